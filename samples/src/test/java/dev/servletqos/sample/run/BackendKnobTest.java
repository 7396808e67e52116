package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.sample.ShopClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The back-end speed knob over real HTTP and in-process, on both containers, QoS on and off. */
class BackendKnobTest {

    @ParameterizedTest(name = "{0}, QoS {1}")
    @CsvSource({"tomcat, true", "jetty, true", "tomcat, false", "jetty, false"})
    void theKnobIsReadSetAndRefusedOverHttpAndSlowsTheBackEnd(String container, boolean qos) throws Exception {
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(qos))) {
            ShopClient c = new ShopClient(server.port());

            HttpResponse<String> get = c.get("/admin/backend");
            assertEquals(200, get.statusCode(), get.body());
            assertTrue(get.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
            assertTrue(get.body().contains("\"backendFactor\": 1"), get.body());

            for (String bad : new String[] {"abc", "0", "-1", "21", "NaN", "1e400"}) {
                HttpResponse<String> r = c.post("/admin/backend?factor=" + bad);
                assertEquals(400, r.statusCode(), bad + ": " + r.body());
                assertTrue(r.body().startsWith("factor must be a number from 0.1 to 20"), r.body());
            }
            HttpResponse<String> missing = c.post("/admin/backend");
            assertEquals(400, missing.statusCode());
            assertTrue(missing.body().startsWith("factor is required"), missing.body());
            assertEquals(1, server.backend().factor(), "refused values change nothing");
            assertEquals(405, c.send("PUT", "/admin/backend?factor=2").statusCode());

            HttpResponse<String> set = c.post("/admin/backend?factor=20");
            assertEquals(200, set.statusCode(), set.body());
            assertTrue(set.body().contains("\"backendFactor\": 20") && set.body().contains("\"previous\": 1"),
                    set.body());
            assertEquals(20, server.backend().factor());

            // the product page's 80 ms of back end, at the test's cost scale 0.05, twenty times: at least 80 ms
            assertEquals(200, c.get("/login").statusCode());
            HttpResponse<String> item = c.get("/item?id=3");
            assertEquals(200, item.statusCode());
            long micros = item.headers().firstValueAsLong("X-Service-Micros").orElse(-1);
            assertTrue(micros >= 80_000, "the item page spent " + micros + " us in the application");

            if (qos) {
                // the bundled policy is the minimal one: the capacity and admission laws run every period
                long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (server.engine().controlStatus().periods() < 1 && System.nanoTime() - end < 0) {
                    Thread.sleep(5);
                }
            }
            HttpResponse<String> status = c.get("/qos");
            if (qos) {
                assertTrue(status.body().contains("\"backend\": {") && status.body().contains("\"factor\": 20"),
                        status.body());
                assertTrue(status.body().contains("\"mode\": \"off\""), status.body());
                // a path chooses no class: an operator's first request to /admin/ starts a basic session
                assertEquals(0, server.engine().snapshot().get("premium").sessionsAdmitted());
                assertEquals(1, server.engine().snapshot().get("basic").sessionsAdmitted());
            } else {
                assertEquals("{\"qos\":\"off\"}", status.body().trim());
            }

            // in-process, as the demo does
            assertEquals(20, server.backend().setFactor(0.5));
            assertTrue(c.get("/admin/backend").body().contains("\"backendFactor\": 0.500"));
            EngineIdle.await(server, Duration.ofSeconds(10));
        }
    }
}

package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.sample.Shop;
import dev.servletqos.sample.ShopClient;
import dev.servletqos.testkit.JsonTree;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The shop maps the QoS status page at {@code /qos/status} on both runners: the servlet behind the valve on
 * Tomcat (a new basic session, like any page), the handler in front of the QoS handler on Jetty (not seen by QoS
 * at all).
 */
class StatusPageOnShopTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat, 2", "jetty, 1"})
    @SuppressWarnings("unchecked")
    void theStatusPageShowsTheShopsEngine(String container, int basicSessions) throws Exception {
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(true))) {
            ShopClient c = new ShopClient(server.port());
            HttpResponse<String> json = c.get(Shop.STATUS_PATH + "?format=json");
            assertEquals(200, json.statusCode(), json.body());
            assertTrue(json.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
            Map<String, Object> doc = (Map<String, Object>) JsonTree.parse(json.body());
            assertEquals("servlet-qos-status/1", doc.get("schema"));
            List<Object> classes = (List<Object>) doc.get("classes");
            assertEquals(List.of("premium", "basic"),
                    classes.stream().map(o -> ((Map<String, Object>) o).get("name")).toList());
            HttpResponse<String> html = c.get(Shop.STATUS_PATH);
            assertEquals(200, html.statusCode());
            assertTrue(html.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
            assertTrue(html.body().contains("<title>servlet-qos status</title>"), html.body());
            assertTrue(new ShopClient(server.port()).get("/").body().contains("/qos/status"), "the index links to it");
            EngineIdle.await(server, Duration.ofSeconds(10));
            EngineSnapshot s = server.engine().snapshot();
            assertEquals(basicSessions, s.get("basic").sessionsAdmitted(),
                    "the index page's session (another client), and on Tomcat the page's");
            assertEquals(0, s.get("premium").sessionsAdmitted());
        }
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tomcat", "jetty"})
    void withQosOffThePageSaysSo(String container) throws Exception {
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(false))) {
            HttpResponse<String> r = new ShopClient(server.port()).get(Shop.STATUS_PATH);
            assertEquals(503, r.statusCode());
            assertTrue(r.body().contains("no QoS engine"), r.body());
        }
    }
}

package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ControlStatus;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.control.UtilizationStatus;
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

    /**
     * The shop's policy gives both classes two content levels under the pi law on worker occupancy (target 0.9):
     * the page shows the law's settings and, once a control period ran, the source it measured; and a level an
     * operator sets through the engine's settings seam (basic at m = 1.5: half its sessions lighter), read back
     * before the idle shop's law raises it again.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tomcat", "jetty"})
    @SuppressWarnings("unchecked")
    void theStatusPageShowsTheShopsContentLevelsAndDegradationLaw(String container) throws Exception {
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(true))) {
            ShopClient c = new ShopClient(server.port());
            QosEngine engine = server.engine();
            int basic = engine.policy().classIndex("basic");
            // a few pages, until the law has fitted its model to a period with completions and set targets
            long end = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (!hasTarget(engine.controlStatus(), basic)) {
                assertTrue(System.nanoTime() < end, "no period with a fitted model in 30 s: "
                        + engine.controlStatus().utilization());
                assertEquals(200, c.get("/browse?page=1").statusCode());
            }
            Map<String, Object> doc = null;
            UtilizationStatus status = null;
            for (int attempt = 0; attempt < 10 && doc == null; attempt++) {
                Settings set = engine.apply(engine.settings().withClass(basic,
                        engine.settings().get(basic).withLevel(1.5)), Settings.Source.OPERATOR);
                long period = engine.controlStatus().periods();
                HttpResponse<String> r = c.get(Shop.STATUS_PATH + "?format=json");
                assertEquals(200, r.statusCode(), r.body());
                ControlStatus after = engine.controlStatus();
                if (after.periods() == period && engine.settings().get(basic).level() == set.get(basic).level()) {
                    doc = (Map<String, Object>) JsonTree.parse(r.body()); // no period moved anything meanwhile
                    status = after.utilization();
                }
            }
            assertTrue(doc != null, "the page read within a control period");
            Map<String, Object> d = (Map<String, Object>) doc.get("degradation");
            assertEquals("pi", d.get("law"));
            assertEquals("occupancy", d.get("sourceSetting"));
            assertEquals("occupancy", d.get("source"));
            assertEquals(0.9, d.get("target"));
            List<Object> classes = (List<Object>) doc.get("classes");
            Map<String, Object> content = (Map<String, Object>) ((Map<String, Object>) classes.get(basic))
                    .get("content");
            assertEquals(2.0, content.get("levels"));
            assertEquals(1.5, content.get("level"), "the operator's level");
            assertEquals(0.5, content.get("degradedShare"), "half the basic sessions served lighter");
            assertEquals(0.0, content.get("refusedShare"));
            Map<String, Object> u = (Map<String, Object>) ((Map<String, Object>) classes.get(basic))
                    .get("utilization");
            UtilizationStatus.ClassLevel law = status.classes().get(basic);
            assertEquals(Math.round(law.target() * 1000) / 1000.0, u.get("target"), "basic's target under the pi law");
            assertEquals(Math.round(law.utilization() * 1000) / 1000.0, u.get("utilization"));
            assertEquals(Math.round(status.measured() * 1000) / 1000.0, d.get("measured"));
            assertEquals(List.of(), doc.get("buckets"), "the shop's policy has no token-bucket rule");
            assertEquals(List.of(), doc.get("hosts"));
        }
    }

    private static boolean hasTarget(ControlStatus control, int index) {
        UtilizationStatus u = control.utilization();
        return u != null && u.source() != null && u.classes().size() > index
                && Double.isFinite(u.classes().get(index).target());
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

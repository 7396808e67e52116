package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.ShopClient;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Every page of the shop over real HTTP, on both containers, QoS on and off. */
class ShopEndpointsTest {

    static ShopConfig config(boolean qos) {
        return new ShopConfig(qos, 0, SamplePolicy.load(null), null, Costs.scaled(0.05));
    }

    @Test
    void tomcatRefusesAPolicyItCouldNotGiveItsValve(@TempDir Path dir) throws Exception {
        // the valve reads a file, as from server.xml: without one it would run the bundled default instead
        ShopConfig tunedWithoutFile = new ShopConfig(true, 0, SamplePolicy.load(SamplePolicy.writeTuned(dir)), null,
                Costs.scaled(0.05));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Containers.start("tomcat", tunedWithoutFile).close());
        assertTrue(e.getMessage().contains("reads its policy from a file"), e.getMessage());
    }

    @ParameterizedTest(name = "{0}, QoS {1}")
    @CsvSource({"tomcat, true", "jetty, true", "tomcat, false", "jetty, false"})
    void aShopperLogsInBrowsesViewsItemsAndChecksOut(String container, boolean qos) throws Exception {
        try (ShopServer server = Containers.start(container, config(qos))) {
            ShopClient c = new ShopClient(server.port());

            HttpResponse<String> login = c.get("/login?tier=basic");
            assertEquals(200, login.statusCode(), login.body());
            assertNotNull(ShopClient.setCookie(login, "QOSTIER"), "the tier cookie");
            assertEquals(qos, ShopClient.setCookie(login, "QOSSESSION") != null, "the admission cookie iff QoS is on");
            assertEquals("full", login.headers().firstValue("X-Content-Level").orElse(null));
            assertTrue(login.headers().firstValueAsLong("X-Service-Micros").orElse(-1) >= 0);

            HttpResponse<String> browse = c.get("/browse?page=2");
            assertEquals(200, browse.statusCode());
            assertTrue(browse.body().contains("/item?id=21"), browse.body());

            HttpResponse<String> item = c.get("/item?id=21");
            assertEquals(200, item.statusCode());
            Matcher img = Pattern.compile("<img src=\"([^\"]+)\"").matcher(item.body());
            int images = 0;
            while (img.find()) {
                HttpResponse<byte[]> image = c.getBytes(img.group(1));
                assertEquals(200, image.statusCode(), img.group(1));
                assertEquals("image/svg+xml", image.headers().firstValue("Content-Type").orElse(null));
                assertTrue(image.body().length > 10_000, "a full-quality image: " + image.body().length + " bytes");
                images++;
            }
            assertEquals(Costs.ITEM_IMAGES, images, item.body());

            HttpResponse<String> checkout = c.post("/checkout");
            assertEquals(200, checkout.statusCode(), checkout.body());
            assertTrue(checkout.body().contains("1 items"), checkout.body());

            HttpResponse<String> qosJson = c.get("/qos");
            assertEquals(200, qosJson.statusCode());
            assertTrue(qosJson.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
            if (qos) {
                assertTrue(qosJson.body().contains("\"qos\": \"on\""), qosJson.body());
                assertTrue(qosJson.body().contains("\"name\": \"premium\""), qosJson.body());
                // the bundled policy's degradation law, said in the degradation section
                assertTrue(qosJson.body().contains("\"law\": \"pi\""), qosJson.body());
                assertTrue(qosJson.body().contains("\"controller\": true"), qosJson.body());
                // login, browse, item, two images, checkout, and this /qos itself
                ClassStats basic = server.engine().snapshot().get("basic");
                assertEquals(7, basic.entered(), basic.toString());
                assertEquals(1, basic.sessionsAdmitted(), basic.toString());
            } else {
                assertEquals("{\"qos\":\"off\"}", qosJson.body().trim());
                assertNull(server.engine());
            }

            HttpResponse<String> metrics = c.get("/metrics");
            assertEquals(200, metrics.statusCode());
            assertTrue(metrics.body().contains("shop_pages_seconds_count{content=\"full\",page=\"item\",status=\"200\"}"),
                    metrics.body());
            assertEquals(qos, metrics.body().contains("qos_requests_total{outcome=\"completed\",qos_class=\"basic\"}"),
                    metrics.body());
            assertEquals(6, server.pagesServed(), "pages the shop served (/qos and /metrics are not shop pages)");
        }
    }

    /**
     * The shop's degraded pages and images follow the level the engine sets: lowering basic's content level
     * through the engine's settings seam (as a controller would) serves basic's product page and its images from the
     * degraded tree, while premium, whose level stays, gets full content.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat", "jetty"})
    void theShopServesTheDegradedTreeAtTheLevelTheEngineSets(String container) throws Exception {
        try (ShopServer server = Containers.start(container, config(true))) {
            ShopClient basic = new ShopClient(server.port());
            assertEquals(200, basic.get("/login?tier=basic").statusCode());
            HttpResponse<String> full = basic.get("/item?id=21");
            assertEquals("full", full.headers().firstValue("X-Content-Level").orElse(null));
            assertEquals(Costs.ITEM_IMAGES, imageSizes(basic, full.body()).size());

            QosEngine engine = server.engine();
            int i = engine.policy().classIndex("basic");
            assertEquals(2, engine.settings().get(i).levels(), "the shop's policy gives basic two levels");
            engine.apply(engine.settings().withClass(i, engine.settings().get(i).withLevel(1)),
                    Settings.Source.CONTROLLER);

            HttpResponse<String> degraded = basic.get("/item?id=21");
            assertEquals(200, degraded.statusCode());
            assertEquals("degraded", degraded.headers().firstValue("X-Content-Level").orElse(null));
            assertTrue(degraded.body().contains("light version"), degraded.body());
            List<Integer> small = imageSizes(basic, degraded.body());
            assertEquals(Costs.ITEM_DEGRADED_IMAGES, small.size());
            assertTrue(small.get(0) < 1_000, "a degraded image: " + small);

            // a returning subscriber: the tier cookie /login issued earlier makes its new session premium
            ShopClient premium = new ShopClient(server.port());
            premium.cookies.put("QOSTIER", engine.tierCookies().issue("premium", "alice"));
            HttpResponse<String> premiumItem = premium.get("/item?id=21");
            assertEquals("full", premiumItem.headers().firstValue("X-Content-Level").orElse(null),
                    "premium keeps its full level");
            String json = basic.get("/qos").body();
            assertTrue(json.contains("\"contentLevel\": 1,"), json);
            assertTrue(json.contains("\"contentLevels\": 2"), json);
        }
    }

    /** The sizes of the images a page references, fetched with the page's client. */
    private static List<Integer> imageSizes(ShopClient c, String html) throws Exception {
        Matcher img = Pattern.compile("<img src=\"([^\"]+)\"").matcher(html);
        List<Integer> sizes = new ArrayList<>();
        while (img.find()) {
            HttpResponse<byte[]> image = c.getBytes(img.group(1));
            assertEquals(200, image.statusCode(), img.group(1));
            sizes.add(image.body().length);
        }
        return sizes;
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat", "jetty"})
    void badRequestsGetA4xxNeverA500(String container) throws Exception {
        try (ShopServer server = Containers.start(container, config(true))) {
            ShopClient c = new ShopClient(server.port());
            assertEquals(400, c.get("/item?id=abc").statusCode());
            assertEquals(400, c.get("/item?id=0").statusCode());
            assertEquals(400, c.get("/item?id=99999999999").statusCode());
            assertEquals(400, c.get("/item").statusCode());
            assertEquals(400, c.get("/browse?page=-1").statusCode());
            assertEquals(400, c.get("/login?tier=%3Cscript%3E").statusCode());
            assertEquals(400, c.get("/login?user=a%20b").statusCode());
            assertEquals(404, c.get("/img/nope.svg").statusCode());
            assertEquals(404, c.get("/img/").statusCode());
            int traversal = c.get("/img/%2e%2e/qos-sample.properties").statusCode();
            assertTrue(traversal == 400 || traversal == 404, "a path out of the image tree: " + traversal);
            assertEquals(401, new ShopClient(server.port()).post("/checkout").statusCode(), "no session: log in first");
            ShopClient fresh = new ShopClient(server.port());
            assertEquals(200, fresh.get("/login").statusCode());
            assertEquals(409, fresh.post("/checkout").statusCode(), "an empty cart");
            // a fresh client: the server may close the connection after answering the path out of the image tree
            // with 400, and the JDK's client does not send a POST again on a connection closed under it
            assertEquals(405, new ShopClient(server.port()).post("/browse").statusCode());
            EngineIdle.await(server, Duration.ofSeconds(10));
        }
    }
}

package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.ShopClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@code GET /metrics} over real HTTP: the Prometheus text format, with the engine's meters per class. */
class PrometheusEndpointTest {

    static final String PATH = "/metrics";

    /**
     * Scrapes {@code /metrics} until {@code ready} holds of the scrape (a request's completion is counted after its
     * response has left), at most 10 s.
     */
    static HttpResponse<String> scrapeUntil(ShopClient c, Predicate<Exposition> ready) throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (true) {
            HttpResponse<String> r = c.get(PATH);
            assertEquals(200, r.statusCode(), r.body());
            if (ready.test(Exposition.parse(r.body())) || System.nanoTime() - end > 0) {
                return r;
            }
            Thread.sleep(20);
        }
    }

    private static double sum(Exposition e, String name, Map<String, String> labels) {
        return e.find(name, labels).stream().mapToDouble(Exposition.Sample::value).sum();
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat", "jetty"})
    void theShopServesTheEnginesMetersPerClassInThePrometheusTextFormat(String container) throws Exception {
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(true))) {
            ShopClient basic = new ShopClient(server.port());
            assertEquals(200, basic.get("/login?tier=basic").statusCode());
            assertEquals(200, basic.get("/browse").statusCode());
            assertEquals(200, basic.get("/item?id=7").statusCode());

            Map<String, String> basicCompleted = Map.of("qos_class", "basic", "outcome", "completed");
            HttpResponse<String> r = scrapeUntil(new ShopClient(server.port()),
                    e -> sum(e, "qos_requests_total", basicCompleted) >= 3);

            String type = r.headers().firstValue("Content-Type").orElse("");
            assertTrue(type.startsWith("text/plain") && type.replace(" ", "").contains("version=0.0.4")
                    && type.toLowerCase(Locale.ROOT).replace(" ", "").contains("charset=utf-8"),
                    "the Prometheus text format 0.0.4: " + type);
            Exposition e = Exposition.parse(r.body());

            assertTrue(e.value("qos_requests_total", basicCompleted) >= 3, "login, browse, item completed: "
                    + e.find("qos_requests_total", Map.of()));
            assertEquals("counter", e.types.get("qos_requests_total"), "the # TYPE line");
            assertEquals("summary", e.types.get("qos_wait_seconds"), "a timer: count and sum in seconds");
            assertEquals("gauge", e.types.get("qos_budget_requests"));
            assertEquals("Requests that ended, by outcome", e.help.get("qos_requests_total"),
                    "the meter's description as # HELP");
            assertTrue(e.value("qos_sessions_total", Map.of("qos_class", "basic", "outcome", "admitted"))
                    >= 1, "the shopper's session");

            // the delay targets of the bundled policy, in seconds, as the control loop's reference
            assertEquals(0.25, e.value("qos_control_reference", Map.of("qos_class", "premium")), 1e-9);
            assertEquals(1.0, e.value("qos_control_reference", Map.of("qos_class", "basic")), 1e-9);
            for (String cls : new String[] {"premium", "basic"}) {
                Map<String, String> tag = Map.of("qos_class", cls);
                assertTrue(e.value("qos_budget_requests", tag) >= 1, cls + "'s budget");
                e.value("qos_queued_requests", tag);
                e.value("qos_wait_seconds_count", tag);
                e.value("qos_session_rate_sessions", tag);
                for (String reason : new String[] {"session-queued", "session-rate", "session-level", "queue-full"}) {
                    e.value("qos_rejections_total", Map.of("qos_class", cls, "reason", reason));
                }
                assertEquals(2, e.value("qos_content_level", tag), cls + " at full content");
                assertEquals(2, e.value("qos_content_levels", tag), cls + "'s levels, as the shop's policy gives");
                e.value("qos_content_served_requests_total", Map.of("qos_class", cls, "level", "1"));
            }
            assertTrue(e.value("qos_content_served_requests_total", Map.of("qos_class", "basic", "level", "2")) >= 3,
                    "login, browse, item served at full content");
            double max = e.value("qos_max_executing_requests", Map.of());
            assertTrue(max >= 1 && max <= e.value("qos_max_executing_ceiling_requests", Map.of()),
                    "max executing " + max + " within its ceiling");
            assertEquals(1, e.value("shop_pages_seconds_count",
                    Map.of("page", "item", "content", "full", "status", "200")), "the shop's own timer");

            Set<String> classes = new TreeSet<>();
            e.samples.stream().filter(s -> s.name().startsWith("qos_") && s.labels().containsKey("qos_class"))
                    .forEach(s -> classes.add(s.labels().get("qos_class")));
            assertEquals(Set.of("basic", "premium"), classes, "the class label takes the policy's classes only");
            EngineIdle.await(server, Duration.ofSeconds(10));
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat", "jetty"})
    void withQosOffTheEndpointServesTheShopsOwnMeters(String container) throws Exception {
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(false))) {
            ShopClient c = new ShopClient(server.port());
            assertEquals(200, c.get("/browse").statusCode());
            HttpResponse<String> r = c.get(PATH);
            assertEquals(200, r.statusCode());
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/plain"));
            Exposition e = Exposition.parse(r.body());
            assertEquals(1, e.value("shop_pages_seconds_count",
                    Map.of("page", "browse", "content", "full", "status", "200")));
            assertFalse(e.names().stream().anyMatch(n -> n.startsWith("qos_")), "no engine, no qos_ meters: "
                    + e.names());
        }
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat", "jetty"})
    void aScrapeIsANewSessionOfTheDefaultClassUnlessAnIpRuleClassifiesThePrometheusServer(String container,
            @TempDir Path dir) throws Exception {
        // Prometheus keeps no cookie: every scrape is a fresh client, and goes through the engine like any request
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(true))) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, new ShopClient(server.port()).get(PATH).statusCode());
            }
            assertEquals(3, server.engine().snapshot().get("basic").sessionsAdmitted(), "three scrapes, three sessions");
            assertEquals(0, server.engine().snapshot().get("premium").sessionsAdmitted());
            EngineIdle.await(server, Duration.ofSeconds(10));
        }
        // the recipe of docs/operations.md: the Prometheus server's address as a premium rule
        Path file = SamplePolicy.write(SamplePolicy.RESOURCE, dir);
        Files.writeString(file, Files.readString(file, StandardCharsets.UTF_8)
                + "\nrule.2.type = ip\nrule.2.value = 127.0.0.1, ::1\nrule.2.class = premium\n", StandardCharsets.UTF_8);
        ShopConfig withRule = new ShopConfig(true, 0, SamplePolicy.load(file), file, Costs.scaled(0.05));
        try (ShopServer server = Containers.start(container, withRule)) {
            for (int i = 0; i < 3; i++) {
                assertEquals(200, new ShopClient(server.port()).get(PATH).statusCode());
            }
            assertEquals(3, server.engine().snapshot().get("premium").sessionsAdmitted(), "the scrapes are premium");
            assertEquals(0, server.engine().snapshot().get("basic").sessionsAdmitted());
            EngineIdle.await(server, Duration.ofSeconds(10));
        }
    }
}

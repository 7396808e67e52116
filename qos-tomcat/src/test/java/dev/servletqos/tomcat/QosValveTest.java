package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.QosEngine;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.catalina.Engine;
import org.apache.coyote.http2.Http2Protocol;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What only the valve does on a running Tomcat: where it finds a relative policy, and the engine it publishes.
 * Start-up errors are in {@link QosValveStartTest}; the behaviour every adapter shares is in
 * {@link QosValveBehaviourTest}.
 */
class QosValveTest {

    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    @Test
    void aRelativePolicyIsReadFromCatalinaBaseAndAttributesOverrideIt() throws Exception {
        Path conf = Files.createDirectories(dir.resolve("tomcat").resolve("conf"));
        Files.writeString(conf.resolve("qos.properties"), "classes = gold, bronze\nmax-executing = 3\n",
                StandardCharsets.UTF_8);
        QosValve valve = new QosValve();
        valve.setPolicy("conf/qos.properties");
        valve.setMaxExecuting(5);
        valve.setDefaultClass("bronze");
        try (EmbeddedTomcat server = new EmbeddedTomcat(dir, 10, ctx -> ctx.getPipeline().addValve(valve))) {
            assertSame(valve.getEngine(), server.engine(), "the engine is published in the servlet context");
            assertEquals(5, server.snapshot().maxExecuting());
            assertEquals(5, valve.getMaxExecuting());
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + server.port() + "/work")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals("ok bronze", r.body());
            server.tomcat.stop();
            assertNull(server.context.getServletContext().getAttribute(QosEngine.class.getName()),
                    "the engine is withdrawn when the valve stops");
        }
    }

    /** A policy built in code, no file: what an embedding application (Spring Boot, a test) gives the valve. */
    private static QosPolicy goldAndRest() {
        return QosPolicy.builder()
                .addClass(ClassPolicy.named("gold").withBudget(2))
                .addClass(ClassPolicy.named("rest").withBudget(2))
                .maxExecuting(4)
                .addRule(Rule.header("gold", "X-Tier", "gold").asTrusted())
                .build();
    }

    private String work(EmbeddedTomcat server, String tier) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/work"));
        if (tier != null) {
            r.header("X-Tier", tier);
        }
        HttpResponse<String> response = client.send(r.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }

    @Test
    void aPolicyBuiltInCodeAdmitsRequestsAndServesTheirClasses() throws Exception {
        QosPolicy policy = goldAndRest();
        QosValve valve = new QosValve(policy);
        try (EmbeddedTomcat server = new EmbeddedTomcat(dir, 10, ctx -> ctx.getPipeline().addValve(valve))) {
            assertEquals("ok gold", work(server, "gold"));
            assertEquals("ok rest", work(server, null));
            assertSame(policy, valve.getEngine().policy(), "no file, no overrides: the policy object itself");
            AdapterBehaviourSuite.await("one served in each class", Duration.ofSeconds(10),
                    () -> server.snapshot().get("gold").completed() == 1 && server.snapshot().get("rest").completed() == 1);
        }
    }

    /**
     * A runtime built in code is started with the valve and stopped with it; the valve's setter changes the running
     * engine at once, as on the handler and the filter.
     */
    @Test
    void aRuntimeBuiltInCodeRunsWithTheValveAndTheSetterChangesItAtOnce() throws Exception {
        QosRuntime runtime = QosRuntime.of(goldAndRest()).noMBeans().build();
        QosValve valve = new QosValve(runtime);
        try (EmbeddedTomcat server = new EmbeddedTomcat(dir, 10, ctx -> ctx.getPipeline().addValve(valve))) {
            assertTrue(runtime.running());
            assertSame(runtime.engine(), server.engine(), "the runtime's engine is published");
            assertEquals("ok gold", work(server, "gold"));
            valve.setMaxExecuting(3);
            assertEquals(3, runtime.engine().snapshot().maxExecuting());
            server.tomcat.stop();
            assertFalse(runtime.running(), "stopped with the valve");
        }
    }

    @Test
    void rulesSeeTheTierCookiePathHostAndAddressOfARealRequest() throws Exception {
        Path conf = Files.createDirectories(dir.resolve("tomcat").resolve("conf"));
        Files.writeString(conf.resolve("qos.properties"), """
                classes = premium, silver, basic
                default-class = basic
                tier-cookie.secret = valve-test-secret-0123456789
                rule.1.type = tier-cookie
                rule.2.type = path
                rule.2.value = /as*nc
                rule.2.class = silver
                rule.2.trusted = true
                rule.3.type = host
                rule.3.value = *.example.com
                rule.3.class = premium
                rule.3.trusted = true
                rule.4.type = ip
                rule.4.value = 10.0.0.0/8, ::1
                rule.4.class = premium
                """, StandardCharsets.UTF_8);
        QosValve valve = new QosValve();
        valve.setPolicy("conf/qos.properties");
        try (EmbeddedTomcat server = new EmbeddedTomcat(dir, 10, ctx -> ctx.getPipeline().addValve(valve))) {
            String base = "http://127.0.0.1:" + server.port();
            String tier = server.engine().tierCookies().setCookieHeader("premium", "alice");
            client.send(HttpRequest.newBuilder(URI.create(base + "/work"))
                    .header("Cookie", tier.substring(0, tier.indexOf(';'))).build(), HttpResponse.BodyHandlers.ofString());
            client.send(HttpRequest.newBuilder(URI.create(base + "/async?ms=1")).build(),
                    HttpResponse.BodyHandlers.ofString());
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.getOutputStream().write("GET /work HTTP/1.1\r\nHost: shop.example.com\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
                s.getInputStream().readAllBytes();
            }
            client.send(HttpRequest.newBuilder(URI.create(base + "/work")).build(), HttpResponse.BodyHandlers.ofString());
            // signed cookie, path glob within the application, Host, and 127.0.0.1 matching no ip rule
            assertEquals(List.of("premium", "silver", "premium", "basic"), server.startedOrder());
        }
    }

    /**
     * With h2c on the connector Tomcat performs the JDK client's {@code Upgrade: h2c} before the valve sees the
     * request, which then waits for its permit as an HTTP/2 stream (without h2c, see
     * {@code AdapterBehaviourSuite.theJdkClientsDefaultRequestsWaitLikeAnyOther}).
     */
    @Test
    void aJdkClientsRequestUpgradedToH2cWaitsLikeAnyOther() throws Exception {
        Path policy = EmbeddedTomcat.writePolicy(dir, "classes = basic\nmax-executing = 1\n");
        QosValve valve = new QosValve();
        valve.setPolicy(policy.toString());
        try (EmbeddedTomcat server = new EmbeddedTomcat(dir, 10, ctx -> {
            ((Engine) ctx.getParent().getParent()).getService().findConnectors()[0]
                    .addUpgradeProtocol(new Http2Protocol());
            ctx.getPipeline().addValve(valve);
        })) {
            String base = "http://127.0.0.1:" + server.port();
            var running = client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/work?ms=1000")).build(),
                    HttpResponse.BodyHandlers.ofString());
            AdapterBehaviourSuite.await("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create(base + "/work")).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.headers().map() + " " + r.body());
            assertEquals(HttpClient.Version.HTTP_2, r.version(), "upgraded by the connector");
            assertEquals(200, running.get().statusCode());
            AdapterBehaviourSuite.await("idle", Duration.ofSeconds(10), () -> server.snapshot().executing() == 0);
            assertEquals(0, server.snapshot().get("basic").cancelled());
            assertTrue(server.snapshot().get("basic").waitNanos() > 0, "the upgraded request waited");
        }
    }

    @Test
    void aProtocolUpgradeThatWouldHaveToWaitIsRefusedNotParked() throws Exception {
        try (EmbeddedTomcat server = EmbeddedTomcat.withValve(dir, "classes = basic\nmax-executing = 1\n", 10)) {
            String base = "http://127.0.0.1:" + server.port();
            var running = client.sendAsync(HttpRequest.newBuilder(URI.create(base + "/work?ms=1500")).build(),
                    HttpResponse.BodyHandlers.ofString());
            AdapterBehaviourSuite.await("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
            String answer;
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.getOutputStream().write(("GET /work HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\n"
                        + "Upgrade: websocket\r\nSec-WebSocket-Version: 13\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                s.setSoTimeout(10_000);
                byte[] head = new byte[512];
                int n = s.getInputStream().read(head);
                answer = new String(head, 0, Math.max(n, 0), StandardCharsets.US_ASCII);
            }
            // Resumed, it would arrive as an ASYNC dispatch that Tomcat's WebSocket filter does not see.
            assertTrue(answer.startsWith("HTTP/1.1 503"), answer);
            assertTrue(answer.contains("Retry-After: "), answer);
            assertEquals(200, running.get().statusCode());
            assertEquals(1, server.snapshot().get("basic").cancelled());
        }
    }
}

package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.servletqos.QosEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
}

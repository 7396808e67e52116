package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.QosEngine;
import dev.servletqos.testkit.StatusPageSuite;
import jakarta.servlet.http.HttpServlet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;

/**
 * The status page as {@link QosStatusHandler} on Jetty, in front of an ee11 servlet context that has the
 * {@link QosHandler} inserted (so that the page itself is never queued), with Jetty's
 * {@link ForwardedRequestCustomizer} on the connector (so that {@code X-Forwarded-For} is the client's address).
 */
class QosStatusHandlerTest extends StatusPageSuite {

    @Override
    protected Server start(Path dir, String policy, String allow, HttpServlet hold) throws Exception {
        Path file = Files.writeString(dir.resolve("qos.properties"), policy, StandardCharsets.UTF_8);
        QueuedThreadPool pool = new QueuedThreadPool(24, 4);
        org.eclipse.jetty.server.Server jetty = new org.eclipse.jetty.server.Server(pool);
        HttpConfiguration http = new HttpConfiguration();
        http.addCustomizer(new ForwardedRequestCustomizer());
        ServerConnector connector = new ServerConnector(jetty, 1, 1, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        jetty.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        ServletHolder holder = new ServletHolder(hold);
        holder.setAsyncSupported(true);
        context.addServlet(holder, HOLD);
        QosHandler qos = new QosHandler();
        qos.setPolicy(file.toString());
        context.insertHandler(qos);
        QosStatusHandler status = new QosStatusHandler(qos);
        if (allow != null) {
            status.setAllow(allow);
        }
        jetty.setHandler(new Handler.Sequence(status, context));
        jetty.start();
        return new Server() {
            @Override
            public int port() {
                return connector.getLocalPort();
            }

            @Override
            public QosEngine engine() {
                return qos.getEngine();
            }

            @Override
            public boolean pageBehindQos() {
                return false;
            }

            @Override
            public String name() {
                return "jetty-handler";
            }

            @Override
            public void close() {
                try {
                    jetty.stop();
                } catch (Exception e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    throw new IllegalStateException("Jetty did not stop", e);
                }
            }
        };
    }

    @Test
    void badSettingsAreRefusedNamingThem() {
        QosStatusHandler status = new QosStatusHandler();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> status.setAllow("10.0.0.0/33"));
        assertTrue(e.getMessage().startsWith("allow = \"10.0.0.0/33\": "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> status.setPath("qos"));
        assertEquals(QosStatusHandler.DEFAULT_PATH, status.getPath());
        assertEquals("127.0.0.0/8, ::1", status.getAllow());
    }
}

package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.Attributes;
import jakarta.servlet.ServletRequestAttributeEvent;
import jakarta.servlet.ServletRequestAttributeListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The three request attributes the valve sets ({@code dev.servletqos.class}, {@code .level}, {@code .levels}), as the
 * application reads them, with and without a request attribute listener in its Context: without one the valve sets
 * them on Tomcat's own request (issue 24: a fifth of the valve's own time), with one through {@code setAttribute}, so
 * that the listener hears each.
 */
class QosValveLabelTest {

    private static final String POLICY = """
            classes = premium, basic
            default-class = basic
            class.basic.levels = 3
            """;

    @TempDir
    Path dir;

    @Test
    void withoutAListenerTheApplicationReadsTheAttributesFromTomcatsRequest() throws Exception {
        try (Server s = new Server(dir, null)) {
            assertEquals("basic 3 3 names []", s.get("/attrs"), "class, level, levels and the names listed");
            assertEquals("basic 3 3 names []", s.get("/attrs"), "a second request on a recycled request");
        }
    }

    @Test
    void aListenerOfTheContextHearsEachAttribute() throws Exception {
        List<String> heard = new CopyOnWriteArrayList<>();
        ServletRequestAttributeListener listener = new ServletRequestAttributeListener() {
            @Override
            public void attributeAdded(ServletRequestAttributeEvent event) {
                if (event.getName().startsWith("dev.servletqos.")) {
                    heard.add(event.getName() + "=" + event.getValue());
                }
            }
        };
        try (Server s = new Server(dir, listener)) {
            assertEquals("basic 3 3 names [dev.servletqos.class, dev.servletqos.level, dev.servletqos.levels]",
                    s.get("/attrs"));
            assertEquals(List.of("dev.servletqos.class=basic", "dev.servletqos.level=3", "dev.servletqos.levels=3"),
                    heard);
        }
    }

    /** A Tomcat with the valve and one servlet that prints the three attributes and those of their names it lists. */
    private static final class Server implements AutoCloseable {
        private final Tomcat tomcat = new Tomcat();
        private final Connector connector = new Connector();
        private final HttpClient client = HttpClient.newHttpClient();

        Server(Path dir, ServletRequestAttributeListener listener) throws Exception {
            Path policy = Files.writeString(dir.resolve("qos.properties"), POLICY, StandardCharsets.UTF_8);
            tomcat.setBaseDir(dir.toString());
            connector.setPort(0);
            connector.setProperty("address", "127.0.0.1");
            tomcat.setConnector(connector);
            Context context = tomcat.addContext("", null);
            Tomcat.addServlet(context, "attrs", new HttpServlet() {
                @Override
                protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                    List<String> names = Collections.list(req.getAttributeNames()).stream()
                            .filter(n -> n.startsWith("dev.servletqos.")).sorted().toList();
                    resp.getWriter().print(req.getAttribute(Attributes.CLASS) + " " + req.getAttribute(Attributes.LEVEL)
                            + " " + req.getAttribute(Attributes.LEVELS) + " names " + names);
                }
            });
            context.addServletMappingDecoded("/attrs", "attrs");
            if (listener != null) {
                ((org.apache.catalina.core.StandardContext) context).addApplicationEventListener(listener);
            }
            QosValve valve = new QosValve();
            valve.setPolicy(policy.toString());
            context.getPipeline().addValve(valve);
            tomcat.start();
        }

        String get(String path) throws Exception {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + connector.getLocalPort() + path)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode(), r.body());
            return r.body();
        }

        @Override
        public void close() throws Exception {
            tomcat.stop();
            tomcat.destroy();
        }
    }
}

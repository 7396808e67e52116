package dev.servletqos.jetty;

import dev.servletqos.QosEngine;
import dev.servletqos.testkit.RealismSuite;
import dev.servletqos.testkit.RealisticApp;
import jakarta.servlet.http.HttpServlet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.ForwardedRequestCustomizer;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * Issue 22's bars ({@link RealismSuite}) on Jetty with the {@link QosHandler} in front of an ee11 servlet context,
 * where the {@code servlet-qos} module puts it: Jetty's defaults (a 200-thread pool), HTTP/1.1 and h2c on one
 * connector, {@link ForwardedRequestCustomizer} on it. Run alone:
 * {@code ./mvnw -q -B -ntp -pl qos-jetty -am verify -Dtest=RealismHandlerTest -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.skip=true}.
 */
class RealismHandlerTest extends RealismSuite {

    @Override
    protected RealismServer start(Path dir, String policyText, boolean qos) throws Exception {
        Path file = Files.writeString(dir.resolve("qos.properties"), policyText, StandardCharsets.UTF_8);
        Server server = new Server();
        HttpConfiguration config = new HttpConfiguration();
        config.addCustomizer(new ForwardedRequestCustomizer());
        ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(config),
                new HTTP2CServerConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        QosHandler handler = new QosHandler();
        RealisticApp app = new RealisticApp(handler::getEngine);
        for (Map.Entry<String, HttpServlet> s : app.servlets().entrySet()) {
            ServletHolder holder = new ServletHolder(s.getValue());
            holder.setAsyncSupported(true);
            context.addServlet(holder, s.getKey());
        }
        if (qos) {
            handler.setPolicy(file.toString());
            handler.setHandler(context);
            server.setHandler(handler);
        } else {
            server.setHandler(context);
        }
        server.start();
        return new RealismServer() {
            @Override
            public int port() {
                return connector.getLocalPort();
            }

            @Override
            public QosEngine engine() {
                return qos ? handler.getEngine() : null;
            }

            @Override
            public RealisticApp app() {
                return app;
            }

            @Override
            public void close() throws Exception {
                try {
                    server.stop();
                } finally {
                    app.close();
                }
            }
        };
    }

    @Override
    protected String container() {
        return "jetty handler";
    }
}

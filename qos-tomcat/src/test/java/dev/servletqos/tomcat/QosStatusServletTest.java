package dev.servletqos.tomcat;

import dev.servletqos.QosEngine;
import dev.servletqos.servlet.QosStatusServlet;
import dev.servletqos.testkit.StatusPageSuite;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import org.apache.catalina.Wrapper;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.RemoteIpValve;

/**
 * The status page as {@link QosStatusServlet} on embedded Tomcat, behind the {@link QosValve}, with Tomcat's
 * {@link RemoteIpValve} in front (so that {@code X-Forwarded-For} from 127.0.0.1 is the client's address).
 */
class QosStatusServletTest extends StatusPageSuite {

    @Override
    protected Server start(Path dir, String policy, String allow, HttpServlet hold) throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, policy);
        EmbeddedTomcat tomcat = new EmbeddedTomcat(dir, 16, ctx -> {
            ctx.getPipeline().addValve(new RemoteIpValve());
            QosValve valve = new QosValve();
            valve.setPolicy(file.toString());
            ctx.getPipeline().addValve(valve);
            Wrapper page = Tomcat.addServlet(ctx, "qos-status", new QosStatusServlet());
            if (allow != null) {
                page.addInitParameter(QosStatusServlet.ALLOW, allow);
            }
            page.setAsyncSupported(true);
            ctx.addServletMappingDecoded(PATH, "qos-status");
            Tomcat.addServlet(ctx, "hold", hold).setAsyncSupported(true);
            ctx.addServletMappingDecoded(HOLD, "hold");
        });
        return new Server() {
            @Override
            public int port() {
                return tomcat.port();
            }

            @Override
            public QosEngine engine() {
                return tomcat.engine();
            }

            @Override
            public boolean pageBehindQos() {
                return true;
            }

            @Override
            public String name() {
                return "tomcat-servlet";
            }

            @Override
            public void close() {
                try {
                    tomcat.close();
                } catch (org.apache.catalina.LifecycleException e) {
                    throw new IllegalStateException("Tomcat did not stop", e);
                }
            }
        };
    }
}

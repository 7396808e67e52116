package dev.servletqos.tomcat;

import dev.servletqos.QosEngine;
import dev.servletqos.testkit.RealismSuite;
import dev.servletqos.testkit.RealisticApp;
import jakarta.servlet.http.HttpServlet;
import java.nio.file.Path;
import java.util.Map;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.RemoteIpValve;
import org.apache.coyote.http2.Http2Protocol;

/**
 * Issue 22's bars ({@link RealismSuite}) on embedded Tomcat with the {@link QosValve}: Tomcat's defaults (200
 * threads), HTTP/1.1 and h2c on one connector, {@link RemoteIpValve} first in the context's pipeline (it trusts
 * 127.0.0.1, its default), then the valve. Run alone:
 * {@code ./mvnw -q -B -ntp -pl qos-tomcat -am verify -Dtest=RealismValveTest -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.skip=true}.
 */
class RealismValveTest extends RealismSuite {

    @Override
    protected RealismServer start(Path dir, String policyText, boolean qos) throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, policyText);
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(dir.resolve("tomcat").toString());
        tomcat.setHostname("127.0.0.1");
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.addUpgradeProtocol(new Http2Protocol());
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        RealisticApp app = new RealisticApp(
                () -> (QosEngine) context.getServletContext().getAttribute(QosValve.ENGINE_ATTRIBUTE));
        for (Map.Entry<String, HttpServlet> e : app.servlets().entrySet()) {
            String name = e.getKey().replace("/", "").replace("*", "");
            Tomcat.addServlet(context, name, e.getValue()).setAsyncSupported(true);
            context.addServletMappingDecoded(e.getKey(), name);
        }
        context.getPipeline().addValve(new RemoteIpValve());
        if (qos) {
            QosValve valve = new QosValve();
            valve.setPolicy(file.toString());
            context.getPipeline().addValve(valve);
        }
        tomcat.start();
        return new RealismServer() {
            @Override
            public int port() {
                return connector.getLocalPort();
            }

            @Override
            public QosEngine engine() {
                return (QosEngine) context.getServletContext().getAttribute(QosValve.ENGINE_ATTRIBUTE);
            }

            @Override
            public RealisticApp app() {
                return app;
            }

            @Override
            public void close() throws Exception {
                try {
                    tomcat.stop();
                    tomcat.destroy();
                } finally {
                    app.close();
                }
            }
        };
    }

    @Override
    protected String container() {
        return "tomcat valve";
    }
}

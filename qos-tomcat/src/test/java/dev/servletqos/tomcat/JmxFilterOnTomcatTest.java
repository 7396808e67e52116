package dev.servletqos.tomcat;

import dev.servletqos.testkit.JmxAdapterSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The JMX suite against the filter on embedded Tomcat: its beans on the platform MBean server. */
class JmxFilterOnTomcatTest extends JmxAdapterSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedTomcat.withFilter(dir, policyText, maxThreads);
    }

    @Override
    protected String engineId() {
        return "/";
    }
}

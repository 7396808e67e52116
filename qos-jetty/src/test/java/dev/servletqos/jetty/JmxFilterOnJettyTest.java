package dev.servletqos.jetty;

import dev.servletqos.testkit.JmxAdapterSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The JMX suite against the filter in an ee11 context on embedded Jetty: its beans on the platform MBean server. */
class JmxFilterOnJettyTest extends JmxAdapterSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withFilter(dir, policyText, maxThreads);
    }

    @Override
    protected String engineId() {
        return "/";
    }
}

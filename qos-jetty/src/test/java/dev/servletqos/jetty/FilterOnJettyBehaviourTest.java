package dev.servletqos.jetty;

import dev.servletqos.servlet.QosFilter;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/**
 * The behaviour every adapter must show, against the portable {@link QosFilter} in a Jetty 12 ee11
 * {@code ServletContextHandler}: the filter's own container test on Jetty (the valve's module runs it on
 * Tomcat).
 */
class FilterOnJettyBehaviourTest extends AdapterBehaviourSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withFilter(dir, policyText, maxThreads);
    }
}

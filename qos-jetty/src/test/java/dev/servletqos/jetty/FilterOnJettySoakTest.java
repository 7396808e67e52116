package dev.servletqos.jetty;

import dev.servletqos.testkit.FaultInjectionSoakSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The fault-injection soak over HTTP/1.1 and h2c against the portable filter on Jetty ee11. */
class FilterOnJettySoakTest extends FaultInjectionSoakSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withFilterForSoak(dir, policyText, maxThreads);
    }
}

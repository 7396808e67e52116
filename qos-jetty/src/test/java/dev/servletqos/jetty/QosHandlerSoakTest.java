package dev.servletqos.jetty;

import dev.servletqos.testkit.FaultInjectionSoakSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The fault-injection soak over HTTP/1.1 and h2c against the Jetty handler in front of a servlet context. */
class QosHandlerSoakTest extends FaultInjectionSoakSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withHandlerForSoak(dir, policyText, maxThreads);
    }
}

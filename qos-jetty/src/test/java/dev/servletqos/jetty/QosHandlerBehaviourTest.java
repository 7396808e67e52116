package dev.servletqos.jetty;

import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The behaviour every adapter must show, against {@link QosHandler} on a real Jetty server. */
class QosHandlerBehaviourTest extends AdapterBehaviourSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withHandler(dir, policyText, maxThreads);
    }
}

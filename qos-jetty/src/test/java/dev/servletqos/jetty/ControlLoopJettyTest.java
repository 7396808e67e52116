package dev.servletqos.jetty;

import dev.servletqos.testkit.ControlLoopSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The control loop on Jetty: the handler's engine runs its controller on the server's scheduler. */
class ControlLoopJettyTest extends ControlLoopSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withHandler(dir, policyText, maxThreads);
    }
}

package dev.servletqos.tomcat;

import dev.servletqos.testkit.ControlLoopSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The control loop on Tomcat: the valve's engine runs its controller on Tomcat's utility executor. */
class ControlLoopTomcatTest extends ControlLoopSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedTomcat.withValve(dir, policyText, maxThreads);
    }
}

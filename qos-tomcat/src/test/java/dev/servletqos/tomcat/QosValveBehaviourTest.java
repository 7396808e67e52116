package dev.servletqos.tomcat;

import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;

/** The adapter behaviour suite against the {@link QosValve} on embedded Tomcat. */
class QosValveBehaviourTest extends AdapterBehaviourSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedTomcat.withValve(dir, policyText, maxThreads);
    }
}

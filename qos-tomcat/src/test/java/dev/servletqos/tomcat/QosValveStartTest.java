package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An admin's mistakes in the policy stop the application's context at startup with a message that names
 * the key, the value and the reason; the attributes of server.xml override the file.
 */
class QosValveStartTest {

    @TempDir
    Path dir;

    /** Starts a Tomcat whose context has the valve; returns the messages of the failure, or null. */
    private String start(Tomcat tomcat, QosValve valve) {
        tomcat.setBaseDir(dir.resolve("tomcat").toString());
        tomcat.setPort(0);
        tomcat.getConnector();
        Context ctx = tomcat.addContext("", null);
        ctx.getPipeline().addValve(valve);
        try {
            tomcat.start();
            return null;
        } catch (LifecycleException e) {
            StringBuilder b = new StringBuilder();
            for (Throwable t = e; t != null; t = t.getCause()) {
                b.append(t.getMessage()).append('\n');
            }
            return b.toString();
        }
    }

    private String failure(QosValve valve) throws Exception {
        Tomcat tomcat = new Tomcat();
        try {
            String failure = start(tomcat, valve);
            assertNotNull(failure, "the application must not start with a bad policy");
            assertEquals(LifecycleState.FAILED, valve.getState());
            return failure;
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private String failure(String policyText) throws Exception {
        Path file = dir.resolve("qos.properties");
        Files.writeString(file, policyText);
        QosValve valve = new QosValve();
        valve.setPolicy(file.toString());
        return failure(valve);
    }

    @Test
    void aBadValueIsNamedWithItsKey() throws Exception {
        String m = failure("classes = premium, basic\nclass.basic.budget = lots\n");
        assertTrue(m.contains("class.basic.budget = lots: not an integer"), m);
    }

    @Test
    void aTypoInAKeyIsNamed() throws Exception {
        String m = failure("classes = premium, basic\nmax-executting = 4\n");
        assertTrue(m.contains("max-executting"), m);
    }

    /** Issue 11, finding 8: the key and the length, never the secret. */
    @Test
    void aShortSecretIsNamedByKeyAndLengthButNotShown() throws Exception {
        String m = failure("classes = premium, basic\ntier-cookie.secret = hunter2-hunter\n");
        assertTrue(m.contains("tier-cookie.secret = (hidden, 14 bytes): must be at least 16 bytes"), m);
        assertTrue(!m.contains("hunter2"), m);
    }

    /** Issue 11, finding 10: a session table that could not fit half of the heap. */
    @Test
    void aSessionTableTooLargeForTheHeapIsNamed() throws Exception {
        String m = failure("classes = premium, basic\nsession-table.max-entries = 100000000\n");
        assertTrue(m.contains("session-table.max-entries = 100000000: "), m);
    }

    @Test
    void aMissingPolicyFileIsNamed() throws Exception {
        QosValve valve = new QosValve();
        valve.setPolicy(dir.resolve("nope.properties").toString());
        String m = failure(valve);
        assertTrue(m.contains("cannot read policy file") && m.contains("nope.properties: no such file"), m);
    }

    @Test
    void theServerXmlAttributesOverrideTheFile() throws Exception {
        Path file = dir.resolve("qos.properties");
        Files.writeString(file, "classes = premium, basic\nmax-executing = 8\n");
        QosValve valve = new QosValve();
        valve.setPolicy(file.toString());
        valve.setMaxExecuting(3);
        valve.setScheduling("weighted");
        valve.setDefaultClass("premium");
        Tomcat tomcat = new Tomcat();
        try {
            assertNull(start(tomcat, valve));
            assertEquals(3, valve.getEngine().snapshot().maxExecuting());
            assertEquals("weighted", valve.getEngine().policy().scheduling().key());
            assertEquals("premium", valve.getEngine().policy().defaultClass());
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
    }
}

package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.testkit.JmxAdapterSuite;
import dev.servletqos.testkit.JmxRemote;
import dev.servletqos.testkit.QosServer;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import org.eclipse.jetty.jmx.MBeanContainer;
import org.junit.jupiter.api.Test;

/**
 * The JMX suite against the {@link QosHandler} on a server with an {@link MBeanContainer} (Jetty's {@code jmx}
 * module): the beans go to the container's MBean server, here one of the test's own, not the platform's; and two
 * handlers without one, on the platform's, under two ids.
 */
class JmxHandlerTest extends JmxAdapterSuite {

    /** The MBean server of the servers' {@code MBeanContainer}s. */
    private static final MBeanServer JETTY_MBEANS = MBeanServerFactory.newMBeanServer();

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        QosHandler qos = new QosHandler();
        qos.setPolicy(Files.writeString(dir.resolve("qos.properties"), policyText).toString());
        EmbeddedJetty jetty = new EmbeddedJetty(qos, maxThreads);
        jetty.server.addBean(new MBeanContainer(JETTY_MBEANS));
        jetty.startServer();
        return jetty;
    }

    @Override
    protected MBeanServer mbeanServer() {
        return JETTY_MBEANS;
    }

    @Override
    protected String engineId() {
        return "/";
    }

    @Test
    void twoHandlersAtTheRootOfTwoServersGetTwoIdsAndEachStopTakesOnlyItsOwnBeans() throws Exception {
        MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
        EmbeddedJetty a = EmbeddedJetty.withHandler(Files.createDirectories(dir.resolve("a")), POLICY, 10);
        try {
            EmbeddedJetty b = EmbeddedJetty.withHandler(Files.createDirectories(dir.resolve("b")), POLICY, 10);
            try {
                List<ObjectName> first = a.qos().getMBeans().names();
                List<ObjectName> second = b.qos().getMBeans().names();
                assertEquals("/", a.qos().getMBeans().engineId());
                assertEquals("/#2", b.qos().getMBeans().engineId());
                a.stopAdapter();
                for (ObjectName n : first) {
                    assertFalse(platform.isRegistered(n), n + " left after its handler stopped");
                }
                for (ObjectName n : second) {
                    assertTrue(platform.isRegistered(n), n + " of the other handler is still there");
                }
                b.stopAdapter();
                for (ObjectName n : second) {
                    assertFalse(platform.isRegistered(n), n + " left after its handler stopped");
                }
            } finally {
                b.close();
            }
        } finally {
            a.close();
        }
    }

    @Test
    void theBeansAreOnTheMBeanContainersServerOnly() throws Exception {
        server = start(dir, POLICY, 10);
        jmx = JmxRemote.start(mbeanServer());
        remote = jmx.connection();
        assertTrue(remote.isRegistered(engineName()));
        assertFalse(ManagementFactory.getPlatformMBeanServer().isRegistered(engineName()),
                "with an MBeanContainer the platform MBean server gets no bean");
    }
}

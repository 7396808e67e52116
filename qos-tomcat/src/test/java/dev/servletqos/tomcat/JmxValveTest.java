package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.testkit.JmxAdapterSuite;
import dev.servletqos.testkit.QosServer;
import java.nio.file.Path;
import java.util.Set;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.tomcat.util.modeler.Registry;
import org.junit.jupiter.api.Test;

/**
 * The JMX suite against the {@link QosValve} on embedded Tomcat: the beans in the container's domain (embedded
 * Tomcat's engine is named {@code Tomcat}; a standalone server's {@code Catalina}), under the web module's name,
 * on Tomcat's MBean server; and the valve's own bean described by its {@code mbeans-descriptors.xml}.
 */
class JmxValveTest extends JmxAdapterSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedTomcat.withValve(dir, policyText, maxThreads);
    }

    @Override
    protected MBeanServer mbeanServer() {
        return Registry.getRegistry(null).getMBeanServer();
    }

    @Override
    protected String domain() {
        return "Tomcat";
    }

    @Override
    protected String engineId() {
        return "//127.0.0.1/";
    }

    @Test
    void theValveIsDescribedByItsDescriptorAndNamesItsEngineBean() throws Exception {
        server = start(dir, POLICY, 10);
        jmx = dev.servletqos.testkit.JmxRemote.start(mbeanServer());
        remote = jmx.connection();
        Set<ObjectName> valves = remote.queryNames(new ObjectName("Tomcat:type=Valve,name=QosValve,*"), null);
        assertEquals(1, valves.size(), valves.toString());
        ObjectName valve = valves.iterator().next();
        assertEquals("servlet-qos: service classes, session admission and per-class queues for this Context",
                remote.getMBeanInfo(valve).getDescription());
        assertEquals(engineName().toString(), remote.getAttribute(valve, "engineObjectName"));
        assertEquals(4, remote.getAttribute(valve, "maxExecuting"));
    }
}

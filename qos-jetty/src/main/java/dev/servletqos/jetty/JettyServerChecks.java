package dev.servletqos.jetty;

import dev.servletqos.QosEngine;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanServer;
import org.eclipse.jetty.jmx.MBeanContainer;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;

/**
 * What {@link QosHandler} reads at start: its policy file, whether every maximum wait ends before the
 * connectors' idle timeouts, and which MBean server the engine's beans go to. Stateless.
 */
final class JettyServerChecks {

    /** How often parked requests past their maximum wait are expired. */
    private static final long SWEEP_MILLIS = QosEngine.SWEEP_MILLIS;
    /** Slack kept between the latest 503 of an expired request (max-wait + one sweep) and an idle timeout. */
    private static final long IDLE_MARGIN_MILLIS = 1000;

    private JettyServerChecks() {
    }

    /** The policy file: {@code policy}, relative to {@code jetty.base}. */
    static Path policyFile(String policy) {
        if (policy == null || policy.isBlank()) {
            throw new PolicyException("policy", String.valueOf(policy), "QosHandler needs a policy file "
                    + "(<Set name=\"policy\">...</Set> in Jetty XML, setPolicy(..) or a QosPolicy in Java)");
        }
        Path file = Path.of(policy.trim());
        String base = System.getProperty("jetty.base");
        if (!file.isAbsolute() && base != null) {
            file = Path.of(base).resolve(file);
        }
        return file;
    }

    /**
     * A connector closes a request that has been idle for its idle timeout; a parked request is idle. Every
     * maximum wait must end before that, or the client gets a closed connection instead of a 503: an expired
     * request is answered up to one sweep ({@value #SWEEP_MILLIS} ms) after its maximum wait, and a margin of
     * {@value #IDLE_MARGIN_MILLIS} ms covers a late sweep and the write of the answer.
     */
    static void checkIdleTimeouts(Server server, QosPolicy p) {
        ClassPolicy longest = p.classes().get(0);
        for (ClassPolicy c : p.classes()) {
            if (c.queue().maxWait().compareTo(longest.queue().maxWait()) > 0) {
                longest = c;
            }
        }
        long neededMillis = longest.queue().maxWait().toMillis() + SWEEP_MILLIS + IDLE_MARGIN_MILLIS;
        for (Connector connector : server.getConnectors()) {
            List<String> timeouts = new ArrayList<>();
            long idle = connector.getIdleTimeout();
            if (idle > 0 && neededMillis >= idle) {
                timeouts.add("idleTimeout = " + idle + " ms");
            }
            for (ConnectionFactory f : connector.getConnectionFactories()) {
                long stream = streamIdleTimeout(f);
                if (stream > 0 && neededMillis >= stream) {
                    timeouts.add(f.getProtocol() + " streamIdleTimeout = " + stream + " ms");
                }
            }
            if (!timeouts.isEmpty()) {
                throw new PolicyException("class." + longest.name() + ".max-wait", format(longest.queue().maxWait()),
                        "plus " + (SWEEP_MILLIS + IDLE_MARGIN_MILLIS) + " ms (the " + SWEEP_MILLIS
                                + " ms expiry sweep and a " + IDLE_MARGIN_MILLIS + " ms margin) must be below "
                                + "the idle timeout of connector " + describe(connector) + " ("
                                + String.join(", ", timeouts) + "): that connector would close a waiting "
                                + "request before its 503. Lower the max-wait or raise the connector's idle "
                                + "timeout");
            }
        }
    }

    /** The HTTP/2 factories' stream idle timeout (0: the connector's); read reflectively, HTTP/2 is optional. */
    private static long streamIdleTimeout(ConnectionFactory f) {
        try {
            Method m = f.getClass().getMethod("getStreamIdleTimeout");
            Object v = m.invoke(f);
            return v instanceof Long l ? l : 0;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return 0;
        }
    }

    private static String describe(Connector c) {
        StringBuilder s = new StringBuilder();
        s.append(c.getName() != null ? "\"" + c.getName() + "\"" : c.getClass().getSimpleName());
        s.append(' ').append(c.getProtocols());
        if (c instanceof NetworkConnector n) {
            s.append(" on ").append(n.getHost() == null ? "*" : n.getHost()).append(':').append(n.getPort());
        }
        return s.toString();
    }

    private static String format(Duration d) {
        long ms = d.toMillis();
        return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
    }

    /** The MBean server of the server's {@code MBeanContainer}, or the platform's without one. */
    static MBeanServer mbeanServer(Server server) {
        MBeanServer s = JettyJmx.PRESENT ? JettyJmx.of(server) : null;
        return s != null ? s : ManagementFactory.getPlatformMBeanServer();
    }

    /** The {@code jetty-jmx} classes, only touched when they are on the class path (the jmx module is optional). */
    private static final class JettyJmx {

        static final boolean PRESENT = present();

        private static boolean present() {
            try {
                Class.forName("org.eclipse.jetty.jmx.MBeanContainer", false, QosHandler.class.getClassLoader());
                return true;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        }

        static MBeanServer of(Server server) {
            MBeanContainer c = server.getBean(MBeanContainer.class);
            return c == null ? null : c.getMBeanServer();
        }
    }
}

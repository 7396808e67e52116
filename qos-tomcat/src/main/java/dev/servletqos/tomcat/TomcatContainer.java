package dev.servletqos.tomcat;

import dev.servletqos.Periodic;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.runtime.QosRuntime;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.catalina.Container;
import org.apache.catalina.Context;
import org.apache.catalina.Engine;
import org.apache.juli.logging.Log;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.modeler.Registry;

/** What {@link QosValve} reads from Tomcat at start: its policy file, its scheduler, threads, MBean server, filters. */
final class TomcatContainer {

    /** Tomcat's WebSocket filter: mapped for REQUEST only, and harmless here, since a handshake never waits. */
    private static final String WEBSOCKET_FILTER = "org.apache.tomcat.websocket.server.WsFilter";

    private TomcatContainer() {
    }

    /**
     * What only Tomcat knows: its utility executor for the periodic work, the fewest threads of its connectors, its
     * MBean server with the container's domain and the web module's name {@code //host/path} as the engine id.
     */
    static void fill(QosRuntime.Builder b, Container container, String domain, Log log) {
        ScheduledExecutorService executor = utilityExecutor(container);
        String id = "/";
        if (container instanceof Context context) {
            String host = context.getParent() != null ? context.getParent().getName() : "";
            id = "//" + host + (context.getPath().isEmpty() ? "/" : context.getPath());
        }
        b.periodic(executor == null ? null : Periodic.on(executor)).threads(connectorThreads(container))
                .mbeanServer(Registry.getRegistry(null).getMBeanServer())
                .jmxDomain(domain != null ? domain : QosMBeans.DOMAIN).engineId(id)
                .log(QosRuntime.Log.of(log::info, log::warn));
    }

    /** The filters mapped for REQUEST dispatches but not ASYNC ones, Tomcat's WebSocket filter aside; sorted. */
    static Set<String> requestOnlyFilters(Context context) {
        Set<String> skipped = new TreeSet<>();
        for (FilterMap m : context.findFilterMaps()) {
            int dispatches = m.getDispatcherMapping();
            FilterDef def = context.findFilterDef(m.getFilterName());
            if ((dispatches & FilterMap.REQUEST) != 0 && (dispatches & FilterMap.ASYNC) == 0
                    && (def == null || !WEBSOCKET_FILTER.equals(def.getFilterClass()))) {
                skipped.add(m.getFilterName());
            }
        }
        return skipped;
    }

    /** The policy file: the {@code policy} attribute, relative to {@code catalina.base}. */
    static Path policyFile(String policy) {
        if (policy == null || policy.isBlank()) {
            throw new PolicyException("policy", String.valueOf(policy),
                    "the valve needs a policy file (attribute policy=\"conf/qos.properties\")");
        }
        Path file = Path.of(policy);
        if (!file.isAbsolute()) {
            String base = System.getProperty("catalina.base");
            if (base != null) {
                file = Path.of(base).resolve(file);
            }
        }
        return file;
    }

    /** The fewest worker threads of the service's connectors (their executor's or their own), or 0 if unknown. */
    private static int connectorThreads(Container container) {
        org.apache.catalina.Service service = service(container);
        if (service == null) {
            return 0;
        }
        int least = 0;
        for (org.apache.catalina.connector.Connector connector : service.findConnectors()) {
            if (connector.getProtocolHandler() instanceof org.apache.coyote.AbstractProtocol<?> protocol
                    && protocol.getMaxThreads() > 0) {
                least = least == 0 ? protocol.getMaxThreads() : Math.min(least, protocol.getMaxThreads());
            }
        }
        return least;
    }

    private static ScheduledExecutorService utilityExecutor(Container container) {
        org.apache.catalina.Service service = service(container);
        return service == null || service.getServer() == null ? null : service.getServer().getUtilityExecutor();
    }

    /** The service of the engine this valve's container belongs to, or null outside one. */
    private static org.apache.catalina.Service service(Container container) {
        Container c = container;
        while (c != null && !(c instanceof Engine)) {
            c = c.getParent();
        }
        return c == null ? null : ((Engine) c).getService();
    }
}

package dev.servletqos.tomcat;

import dev.servletqos.Attributes;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.Periodic;
import dev.servletqos.QosEngine;
import dev.servletqos.Ticket;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.servlet.ServletRequestView;
import dev.servletqos.servlet.ServletTickets;
import jakarta.servlet.ServletException;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.Container;
import org.apache.catalina.Context;
import org.apache.catalina.Engine;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.LifecycleListener;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.modeler.Registry;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/**
 * Server-side quality of service for one Tomcat Context: one line in the Context's XML,
 * <pre>{@code <Valve className="dev.servletqos.tomcat.QosValve" policy="conf/qos.properties"/>}</pre>
 * classifies requests into service classes, admits new sessions only while there is capacity, and makes
 * requests wait in per-class queues without holding a worker thread.
 *
 * <p>A request that must wait is suspended with {@code startAsync()} and its thread goes back to the pool;
 * when a permit is granted it is resumed with {@code AsyncContext.dispatch()}, which runs the pipeline again:
 * a request note marks it so that the second pass goes straight through. The permit is released when the
 * request completes, also when the application itself went asynchronous. Filters mapped to REQUEST only do
 * not see a resumed request (it arrives as an ASYNC dispatch), so a security filter mapped that way would be
 * skipped exactly when the server is loaded: the Context does not start while such a filter is mapped (the
 * message names the filters and the fix), unless {@code allowRequestOnlyFilters="true"}.
 *
 * <p>Attributes (JavaBean setters, as server.xml sets them): {@code policy} (required: the policy file,
 * relative to {@code catalina.base} unless absolute), overrides of its most changed settings:
 * {@code maxExecuting}, {@code scheduling}, {@code defaultClass}, and {@code allowRequestOnlyFilters}. Keep
 * {@code max-executing} below the connector's {@code maxThreads} with some headroom: a resumed request runs as a
 * new executor task.
 *
 * <p>JMX: the valve itself is described by the {@code mbeans-descriptors.xml} beside this class, and registered
 * by Tomcat as its valves are ({@code Catalina:type=Valve,host=..,context=..,name=QosValve}); at start it also
 * registers the engine's beans ({@link QosMBeans}) on Tomcat's MBean server, in the container's domain
 * ({@code Catalina}), under the engine id {@code //host/path} (Tomcat's name of the web module), and unregisters
 * them when it stops.
 */
public class QosValve extends ValveBase {

    /** Servlet context attribute under which the valve publishes its engine (for tier cookies, /qos, JMX). */
    public static final String ENGINE_ATTRIBUTE = Attributes.ENGINE;

    private static final Log log = LogFactory.getLog(QosValve.class);
    private static final String TICKET_NOTE = "dev.servletqos.ticket";
    /** Tomcat's WebSocket filter: mapped for REQUEST only, and harmless here, since a handshake never waits. */
    private static final String WEBSOCKET_FILTER = "org.apache.tomcat.websocket.server.WsFilter";

    private String policy;
    private Integer maxExecuting;
    private String scheduling;
    private String defaultClass;
    private boolean allowRequestOnlyFilters;

    /** The engine requests enter; null when stopped, and set to null first when the context begins to stop. */
    private volatile QosEngine engine;
    /** The engine this start made, stopped by {@link #stopInternal()}. */
    private QosEngine started;
    private volatile ServletTickets.Waiting waiting;
    private LifecycleListener contextEvents;
    private ScheduledExecutorService ownExecutor;
    private volatile QosMBeans beans;

    public QosValve() {
        super(true);
    }

    /** The policy file; relative paths are resolved against {@code catalina.base}. Required. */
    public void setPolicy(String policy) {
        this.policy = policy;
    }

    public String getPolicy() {
        return policy;
    }

    /** Overrides the file's {@code max-executing}. */
    public void setMaxExecuting(int maxExecuting) {
        this.maxExecuting = maxExecuting;
    }

    public int getMaxExecuting() {
        QosEngine e = engine;
        return e != null ? e.snapshot().maxExecuting() : maxExecuting == null ? 0 : maxExecuting;
    }

    /** Overrides the file's {@code scheduling} (strict-priority, weighted, ...). */
    public void setScheduling(String scheduling) {
        this.scheduling = scheduling;
    }

    public String getScheduling() {
        return scheduling;
    }

    /** Overrides the file's {@code default-class}. */
    public void setDefaultClass(String defaultClass) {
        this.defaultClass = defaultClass;
    }

    public String getDefaultClass() {
        return defaultClass;
    }

    /**
     * Whether the Context may start while filters are mapped for REQUEST dispatches but not ASYNC ones; default
     * false. A request that waited reaches the application as an ASYNC dispatch and skips such filters: allow it
     * only for filters that need not see every request.
     */
    public void setAllowRequestOnlyFilters(boolean allow) {
        this.allowRequestOnlyFilters = allow;
    }

    public boolean getAllowRequestOnlyFilters() {
        return allowRequestOnlyFilters;
    }

    /** The running engine, or null before start. */
    public QosEngine getEngine() {
        return engine;
    }

    /** The engine's JMX beans while started, or null (stopped, or refused by the MBean server). */
    public QosMBeans getMBeans() {
        return beans;
    }

    /** The ObjectName of the engine's JMX bean while started, or null: where its class and controller beans are. */
    public String getEngineObjectName() {
        QosMBeans b = beans;
        return b == null ? null : b.names().get(0).toString();
    }

    @Override
    protected void startInternal() throws LifecycleException {
        QosPolicy p;
        QosEngine e;
        try {
            p = loadPolicy();
            e = QosEngine.create(p);
            // JMX reloadPolicy (and policy.watch) read the file again, with the valve's overrides
            e.reloadFrom(this::loadPolicy, policyFile());
        } catch (PolicyException ex) {
            throw new LifecycleException("QosValve: bad policy: " + ex.getMessage(), ex);
        }
        if (getContainer() instanceof Context) {
            ((Context) getContainer()).getServletContext().setAttribute(ENGINE_ATTRIBUTE, e);
        }
        ScheduledExecutorService executor = utilityExecutor();
        if (executor == null) {
            ownExecutor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "servlet-qos-expiry");
                t.setDaemon(true);
                return t;
            });
            executor = ownExecutor;
        }
        int threads = connectorThreads();
        if (threads > 0) {
            e.fitToThreads(threads);
        }
        e.start(Periodic.on(executor));
        started = e;
        registerBeans(e);
        waiting = new ServletTickets.Waiting();
        engine = e;
        // A stopping Context first waits up to its unloadDelay for asynchronous requests (waiting ones are), then
        // stops its servlets, and its valves last: answer the waiting requests before all that.
        // A starting Context starts its valves before its ServletContainerInitializers and listeners run, which may
        // add filters (Spring Boot does): its filters are all known only when it signals START, at the end.
        Container container = getContainer();
        if (container != null) {
            contextEvents = event -> {
                if (Lifecycle.BEFORE_STOP_EVENT.equals(event.getType())) {
                    withdrawEngine();
                } else if (Lifecycle.START_EVENT.equals(event.getType())) {
                    checkFiltersSeeResumedRequests();
                }
            };
            container.addLifecycleListener(contextEvents);
            if (container.getState().isAvailable()) {
                checkFiltersSeeResumedRequests(); // added to a Context that is running already
            }
        }
        log.info("servlet-qos: " + p.classes().size() + " classes, " + p.scheduling().key() + ", max-executing "
                + p.maxExecuting() + " (policy " + policy + ")");
        super.startInternal();
    }

    /**
     * Withdraws the engine (if the context's stop has not already done so), stops it and its expiry thread, and
     * withdraws the published engine.
     */
    @Override
    protected void stopInternal() throws LifecycleException {
        super.stopInternal();
        withdrawEngine();
        closeBeans();
        if (contextEvents != null) {
            getContainer().removeLifecycleListener(contextEvents);
            contextEvents = null;
        }
        if (started != null) {
            started.stop();
            started = null;
        }
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
            try {
                // so that no thread of the engine outlives the application
                ownExecutor.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            ownExecutor = null;
        }
        if (getContainer() instanceof Context) {
            ((Context) getContainer()).getServletContext().removeAttribute(ENGINE_ATTRIBUTE);
        }
    }

    /**
     * Registers the engine's beans beside Tomcat's own: its MBean server, its container's domain, and the web
     * module's name {@code //host/path} as the engine id. A refusal costs the management view, not the protection.
     */
    private void registerBeans(QosEngine e) {
        String domain = getDomain() != null ? getDomain() : QosMBeans.DOMAIN;
        String id = "/";
        if (getContainer() instanceof Context context) {
            String host = context.getParent() != null ? context.getParent().getName() : "";
            id = "//" + host + (context.getPath().isEmpty() ? "/" : context.getPath());
        }
        beans = QosMBeans.registerOrWarn(e, Registry.getRegistry(null).getMBeanServer(), domain, id,
                m -> log.warn("servlet-qos: " + m));
    }

    /** Unregisters the engine's JMX beans, if registered. */
    private void closeBeans() {
        QosMBeans.close(beans);
        beans = null;
    }

    /**
     * Ends the engine's use: later requests pass straight through, and every waiting request is answered 503 with
     * {@code Retry-After} now, while the application still runs, instead of at the container's timeout.
     */
    private void withdrawEngine() {
        engine = null;
        ServletTickets.Waiting w = waiting;
        if (w != null) {
            w.close();
        }
    }

    /**
     * A request that waited is resumed as an ASYNC dispatch, which filters mapped to REQUEST only do not see:
     * a security filter mapped that way would be skipped exactly when the server is loaded. Unless allowed, the
     * Context must not start: throwing here, from its START event, fails its start with this message.
     *
     * @throws IllegalStateException naming the filters and the fix, unless {@code allowRequestOnlyFilters}
     */
    private void checkFiltersSeeResumedRequests() {
        if (!(getContainer() instanceof Context context)) {
            return;
        }
        Set<String> skipped = new TreeSet<>();
        for (FilterMap m : context.findFilterMaps()) {
            int dispatches = m.getDispatcherMapping();
            FilterDef def = context.findFilterDef(m.getFilterName());
            if ((dispatches & FilterMap.REQUEST) != 0 && (dispatches & FilterMap.ASYNC) == 0
                    && (def == null || !WEBSOCKET_FILTER.equals(def.getFilterClass()))) {
                skipped.add(m.getFilterName());
            }
        }
        if (skipped.isEmpty()) {
            return;
        }
        String problem = "the filters " + skipped + " are mapped for REQUEST dispatches but not for ASYNC ones. A "
                + "request that waited for a permit reaches the application as an ASYNC dispatch and would skip them, "
                + "exactly when the server is loaded.";
        if (allowRequestOnlyFilters) {
            log.warn("servlet-qos: " + problem + " Allowed by allowRequestOnlyFilters=\"true\".");
            return;
        }
        withdrawEngine();
        if (started != null) {
            started.stop(); // the failed Context may stay deployed: no sweep runs for it meanwhile, no beans left
        }
        closeBeans();
        throw new IllegalStateException("QosValve: " + problem + " Add <dispatcher>ASYNC</dispatcher> to their "
                + "<filter-mapping> (DispatcherType.ASYNC in addMappingForUrlPatterns or @WebFilter(dispatcherTypes),"
                + " setDispatcherTypes on a Spring Boot FilterRegistrationBean), or, if skipping them is harmless, set "
                + "allowRequestOnlyFilters=\"true\" on the valve.");
    }

    private QosPolicy loadPolicy() {
        return PolicyParser.load(policyFile(), PolicyParser.adapterOverrides(maxExecuting, scheduling, defaultClass));
    }

    /** The policy file: the {@code policy} attribute, relative to {@code catalina.base}. */
    private Path policyFile() {
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
    private int connectorThreads() {
        org.apache.catalina.Service service = service();
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

    private ScheduledExecutorService utilityExecutor() {
        org.apache.catalina.Service service = service();
        return service == null || service.getServer() == null ? null : service.getServer().getUtilityExecutor();
    }

    /** The service of the engine this valve's container belongs to, or null outside one. */
    private org.apache.catalina.Service service() {
        Container c = getContainer();
        while (c != null && !(c instanceof Engine)) {
            c = c.getParent();
        }
        return c == null ? null : ((Engine) c).getService();
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        Object marked = request.getNote(TICKET_NOTE);
        if (marked != null) {
            // A resumed request (our own dispatch) or one the application dispatched again: it already
            // holds its permit.
            // A resumed one whose content comes from its level's tree goes there.
            String forward = ServletTickets.takeForward(marked);
            ServletTickets.passAgain(marked, request, response, forward != null
                    ? () -> forward(request, response, forward) : () -> getNext().invoke(request, response));
            return;
        }
        QosEngine e = engine;
        if (e == null) {
            getNext().invoke(request, response);
            return;
        }
        ServletRequestView view = new ServletRequestView(request);
        Ticket ticket = e.enter(view);
        // A path mapped to no servlet (Tomcat answers it 404, or an error page does) has no request dispatcher: such
        // a request cannot be resumed by AsyncContext.dispatch(), so it is refused rather than parked.
        ServletTickets.serve(waiting, ticket, ServletTickets.contentForward(e, ticket, view),
                request.getWrapper() != null, request, response, m -> request.setNote(TICKET_NOTE, m),
                () -> getNext().invoke(request, response), path -> forward(request, response, path),
                response::getContentWritten);
    }

    /**
     * Serves the request from its content level's tree: a forward within the Context, as Tomcat's error pages are
     * (the path is mapped again, the filters mapped for FORWARD run, the client's URL stays).
     */
    private static void forward(Request request, Response response, String path) throws IOException,
            ServletException {
        ServletTickets.forward(request.getContext().getServletContext(), request.getRequest(), response.getResponse(),
                path);
    }

    /** The engine's state, for tests and management. */
    public EngineSnapshot snapshot() {
        QosEngine e = engine;
        return e == null ? null : e.snapshot();
    }
}

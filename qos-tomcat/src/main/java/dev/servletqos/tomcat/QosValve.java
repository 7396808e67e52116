package dev.servletqos.tomcat;

import dev.servletqos.Attributes;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.Ticket;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.runtime.AdapterSettings;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.servlet.ServletRequestView;
import dev.servletqos.servlet.ServletTickets;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequestAttributeListener;
import java.io.IOException;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.apache.catalina.Container;
import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.catalina.LifecycleListener;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ValveBase;
import org.apache.juli.logging.Log;
import org.apache.juli.logging.LogFactory;

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
 * {@code maxExecuting}, {@code scheduling}, {@code defaultClass} (the same meaning on every adapter:
 * {@link AdapterSettings}), and {@code allowRequestOnlyFilters}. From code: {@code new QosValve(policy)} with a
 * {@link QosPolicy}, or {@code new QosValve(runtime)} with a {@link QosRuntime}. Keep {@code max-executing} below
 * the connector's {@code maxThreads} with some headroom: a resumed request runs as a new executor task.
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

    private final AdapterSettings settings;
    private boolean allowRequestOnlyFilters;

    /** The runtime requests enter; null when stopped, and set to null first when the context begins to stop. */
    private volatile QosRuntime runtime;
    private LifecycleListener contextEvents;
    /**
     * Whether the Context, when it started, had no {@code ServletRequestAttributeListener}: the valve then sets its
     * three request attributes on Tomcat's own request ({@link #labelDirectly}), which no listener hears. False
     * until the Context has started, and for a valve on a Host or Engine.
     */
    private volatile boolean unheard;

    /** A valve to be given a policy file ({@link #setPolicy(String)}), as server.xml does. */
    public QosValve() {
        this(new AdapterSettings());
    }

    /** A valve with a policy built in code: a new engine on it at each start; {@link #setPolicy} is not used. */
    public QosValve(QosPolicy policy) {
        this(new AdapterSettings(policy));
    }

    /** A valve over a runtime built in code, started and stopped with the valve (see {@link AdapterSettings}). */
    public QosValve(QosRuntime runtime) {
        this(new AdapterSettings(runtime));
    }

    private QosValve(AdapterSettings settings) {
        super(true);
        this.settings = settings;
    }

    /** The policy file; relative paths are resolved against {@code catalina.base}. Required unless given in code. */
    public void setPolicy(String policy) {
        settings.setPolicy(policy);
    }

    public String getPolicy() {
        return settings.getPolicy();
    }

    /** See {@link AdapterSettings#setMaxExecuting}: overrides the policy's, and changes a running engine at once. */
    public void setMaxExecuting(int maxExecuting) {
        settings.setMaxExecuting(maxExecuting);
    }

    public int getMaxExecuting() {
        return settings.getMaxExecuting();
    }

    /** Overrides the policy's {@code scheduling} (strict-priority, weighted, ...) from the next start or reload. */
    public void setScheduling(String scheduling) {
        settings.setScheduling(scheduling);
    }

    public String getScheduling() {
        return settings.getScheduling();
    }

    /** Overrides the policy's {@code default-class} from the next start or reload. */
    public void setDefaultClass(String defaultClass) {
        settings.setDefaultClass(defaultClass);
    }

    public String getDefaultClass() {
        return settings.getDefaultClass();
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

    /** The running runtime, or null before start. */
    public QosRuntime getRuntime() {
        return runtime;
    }

    /** The running engine, or null before start. */
    public QosEngine getEngine() {
        QosRuntime r = runtime;
        return r == null ? null : r.engine();
    }

    /** The engine's JMX beans while started, or null (stopped, or refused by the MBean server). */
    public QosMBeans getMBeans() {
        QosRuntime r = runtime;
        return r == null ? null : r.mbeans();
    }

    /** The ObjectName of the engine's JMX bean while started, or null: where its class and controller beans are. */
    public String getEngineObjectName() {
        QosMBeans b = getMBeans();
        return b == null ? null : b.names().get(0).toString();
    }

    @Override
    protected void startInternal() throws LifecycleException {
        QosRuntime r;
        try {
            r = settings.open(b -> b.policyFile(TomcatContainer.policyFile(settings.getPolicy())),
                    b -> TomcatContainer.fill(b, getContainer(), getDomain(), log));
        } catch (PolicyException ex) {
            throw new LifecycleException("QosValve: bad policy: " + ex.getMessage(), ex);
        }
        if (getContainer() instanceof Context) {
            ((Context) getContainer()).getServletContext().setAttribute(ENGINE_ATTRIBUTE, r.engine());
        }
        settings.start(r);
        runtime = r;
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
                    unheard = noAttributeListeners();
                }
            };
            container.addLifecycleListener(contextEvents);
            if (container.getState().isAvailable()) {
                checkFiltersSeeResumedRequests(); // added to a Context that is running already
                unheard = noAttributeListeners();
            }
        }
        super.startInternal();
    }

    /** Withdraws and stops the runtime (if the context's stop has not already done so) and the published engine. */
    @Override
    protected void stopInternal() throws LifecycleException {
        super.stopInternal();
        withdrawEngine();
        if (contextEvents != null) {
            getContainer().removeLifecycleListener(contextEvents);
            contextEvents = null;
        }
        if (getContainer() instanceof Context) {
            ((Context) getContainer()).getServletContext().removeAttribute(ENGINE_ATTRIBUTE);
        }
    }

    /**
     * Ends the runtime's use: later requests pass straight through, and every waiting request is answered 503 with
     * {@code Retry-After} now, while the application still runs, instead of at the container's timeout; then the
     * runtime stops (its beans withdrawn, its periodic work ended).
     */
    private void withdrawEngine() {
        runtime = null;
        settings.stop();
    }

    /**
     * A request that waited is resumed as an ASYNC dispatch, which filters mapped to REQUEST only do not see:
     * a security filter mapped that way would be skipped exactly when the server is loaded. Unless allowed, the
     * Context must not start: throwing here, from its START event, fails its start with this message.
     *
     * @throws IllegalStateException naming the filters and the fix, unless {@code allowRequestOnlyFilters}
     */
    /** Whether the valve's Context has no request attribute listener (its listeners are known once it started). */
    private boolean noAttributeListeners() {
        if (!(getContainer() instanceof Context context)) {
            return false;
        }
        for (Object l : context.getApplicationEventListeners()) {
            if (l instanceof ServletRequestAttributeListener) {
                return false;
            }
        }
        return true;
    }

    private void checkFiltersSeeResumedRequests() {
        if (!(getContainer() instanceof Context context)) {
            return;
        }
        Set<String> skipped = TomcatContainer.requestOnlyFilters(context);
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
        withdrawEngine(); // the failed Context may stay deployed: no sweep runs for it meanwhile, no beans left
        throw new IllegalStateException("QosValve: " + problem + " Add <dispatcher>ASYNC</dispatcher> to their "
                + "<filter-mapping> (DispatcherType.ASYNC in addMappingForUrlPatterns or @WebFilter(dispatcherTypes),"
                + " setDispatcherTypes on a Spring Boot FilterRegistrationBean), or, if skipping them is harmless, set "
                + "allowRequestOnlyFilters=\"true\" on the valve.");
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
        QosRuntime r = runtime;
        if (r == null) {
            getNext().invoke(request, response);
            return;
        }
        QosEngine e = r.engine();
        ServletRequestView view = new TomcatRequestView(request);
        Ticket ticket = e.enter(view);
        // A path mapped to no servlet (Tomcat answers it 404, or an error page does) has no request dispatcher: such
        // a request cannot be resumed by AsyncContext.dispatch(), so it is refused rather than parked.
        Pass pass = new Pass(this, request, response);
        ServletTickets.serve(r.waiting(), ticket, ServletTickets.contentForward(e, ticket, view),
                request.getWrapper() != null, request, response, pass, pass, pass, pass, unheard ? pass : null);
    }

    /**
     * What {@link ServletTickets#serve} does with a request through the valve, in one object rather than four
     * lambdas (issue 24): marks it with a note, runs the rest of the pipeline, forwards it, tells its response's
     * size.
     */
    private static final class Pass implements Consumer<Object>, ServletTickets.Application, ServletTickets.Forward,
            LongSupplier, ServletTickets.Label {
        private final QosValve valve;
        private final Request request;
        private final Response response;

        Pass(QosValve valve, Request request, Response response) {
            this.valve = valve;
            this.request = request;
            this.response = response;
        }

        @Override
        public void accept(Object mark) {
            request.setNote(TICKET_NOTE, mark);
        }

        @Override
        public void run() throws IOException, ServletException {
            valve.getNext().invoke(request, response);
        }

        @Override
        public void to(String encodedPath) throws IOException, ServletException {
            forward(request, response, encodedPath);
        }

        @Override
        public long getAsLong() {
            return response.getContentWritten();
        }

        @Override
        public void label(Ticket ticket) {
            labelDirectly(request, ticket);
        }
    }

    /**
     * Sets the request attributes of the ticket's class and content level on Tomcat's own request
     * ({@code org.apache.coyote.Request}, a plain map that Tomcat empties when it recycles the request), where
     * {@code getAttribute} finds them when the application has not set its own: no listener hears them, which is
     * why this is only for a Context without request attribute listeners. Through {@code setAttribute} each is a
     * put into a {@code ConcurrentHashMap} and a copy of the Context's listener array, and the map is cleared
     * again on recycle: about 200 ns of the valve's 580 a request (issue 24). {@code getAttributeNames()} does not
     * list them.
     */
    static void labelDirectly(Request request, Ticket ticket) {
        org.apache.coyote.Request own = request.getCoyoteRequest();
        own.setAttribute(Attributes.CLASS, ticket.serviceClass());
        own.setAttribute(Attributes.LEVEL, ticket.level());
        own.setAttribute(Attributes.LEVELS, ticket.levels());
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
        QosEngine e = getEngine();
        return e == null ? null : e.snapshot();
    }
}

package dev.servletqos.jetty;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.Periodic;
import dev.servletqos.QosEngine;
import dev.servletqos.Ticket;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.management.MBeanServer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.jmx.MBeanContainer;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Attributes;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.URIUtil;
import org.eclipse.jetty.util.annotation.Name;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.eclipse.jetty.util.thread.ThreadPool;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Server-side quality of service for Jetty 12: a core {@link Handler.Wrapper} that classifies requests into
 * service classes, admits new sessions only while there is capacity, and makes requests wait in per-class
 * queues in front of the wrapped handler without holding a thread.
 *
 * <p>In a Jetty base, with the {@code servlet-qos} module shipped in this module's {@code src/main/jetty-base},
 * or as any other handler in a Jetty XML file (the policy file is described in {@code docs/configuration.md}):
 * <pre>{@code
 * <Call name="insertHandler">
 *   <Arg>
 *     <New class="dev.servletqos.jetty.QosHandler">
 *       <Set name="policy"><Property name="jetty.base"/>/etc/qos.properties</Set>
 *       <Set name="maxExecuting">32</Set>
 *     </New>
 *   </Arg>
 * </Call>
 * }</pre>
 * or from Java: {@code new QosHandler(policy, appHandler)} with a {@link QosPolicy}, or
 * {@code new QosHandler()} with {@link #setPolicy(String)}.
 *
 * <p>How a request goes through: {@link QosEngine#enter} decides. A request that may run now goes on to the
 * wrapped handler at once, and its permit is released when the request completes (response sent, also after
 * an exception or when the handler completed the callback later on another thread). A stream candidate
 * ({@code Accept: text/event-stream}, a path of {@code streams.paths}) whose wrapped handler returned {@code true}
 * without completing the callback yet (an event stream, a long poll: the handler went asynchronous) gives its permit
 * back then ({@link Ticket#detach()}) and is an open stream until it completes. A request that must wait
 * is suspended by returning {@code true} and keeping its callback: no thread waits for it. When the engine
 * grants it a permit, it is resumed through the request's context executor, never inline on the thread that
 * freed the permit. A request that waited longer than its class's {@code max-wait} (checked every 100 ms on
 * the server's scheduler) is answered {@code 503} with {@code Retry-After}; so is a refused one. If Jetty
 * reports the request failed while it waits (an HTTP/2 stream reset, an idle timeout), the wait is cancelled
 * and the callback failed; over HTTP/1.1 Jetty does not notice a client that leaves while its request waits,
 * so its {@code max-wait} ends it. When the handler stops, it withdraws its engine first, then answers the waiting
 * requests 503 with {@code Retry-After} at once (also one granted a permit meanwhile: it is not resumed into a
 * stopping handler), and stops the wrapped handler last; a stopped handler passes requests straight to the
 * wrapped handler. A resumed request the wrapped handler does not handle is answered 404 here (it was already
 * accepted), while one that ran at once is left to the server's default handler, as without this handler. The
 * service class is given to the application in the request attribute
 * {@value #CLASS_ATTRIBUTE}, the content level in {@code dev.servletqos.level} ({@link ContentLevels}); static
 * content of a level with its own tree ({@code content.*}) is handed to the wrapped handler as a
 * {@link Request.Wrapper} whose URI has the tree's path; the engine is published as the attribute
 * {@link #ENGINE_ATTRIBUTE} of the enclosing {@link ContextHandler}, or of the {@link Server} when the handler is
 * outside every context.
 *
 * <p>Where to put it: inside a context ({@code contextHandler.insertHandler(..)}), paths in the policy's
 * rules are paths within that context; around the server's handler ({@code server.insertHandler(..)}), they
 * are whole request paths and every context shares the one set of queues.
 *
 * <p>Settings: {@code policy} (the file; relative paths are resolved against the {@code jetty.base} system
 * property), and overrides of its most changed settings, {@code maxExecuting}, {@code scheduling},
 * {@code defaultClass}, applied at start. While running, {@link #setMaxExecuting(int)},
 * {@link #setBudget(String, int)} and {@link #setSessionRate(String, double, int)} change the engine at once
 * (over JMX, the engine's own beans do the same: {@link QosMBeans}). Start fails with a message naming the values
 * when the policy is invalid or when a class's {@code max-wait}, plus the 100 ms expiry sweep and a 1 s margin,
 * is not below a connector's idle timeout (the connector would close a waiting request before its 503). If
 * the wrapped handler fails to start, the engine is withdrawn again. Keep {@code max-executing} below the thread
 * pool's {@code maxThreads} with some headroom: a resumed request is a new task on that pool.
 *
 * <p>Thread-safe.
 */
public class QosHandler extends Handler.Wrapper {

    /**
     * Request attribute holding the request's service class name, as with the Tomcat valve and the filter.
     * (A compile-time constant: using it does not load the servlet API.)
     */
    public static final String CLASS_ATTRIBUTE = dev.servletqos.Attributes.CLASS;

    /** Attribute (of the context, or of the server) under which the running engine is published. */
    public static final String ENGINE_ATTRIBUTE = dev.servletqos.Attributes.ENGINE;

    private static final Logger LOG = LoggerFactory.getLogger(QosHandler.class);

    /** How often parked requests past their maximum wait are expired. */
    private static final long SWEEP_MILLIS = QosEngine.SWEEP_MILLIS;
    /** Slack kept between the latest 503 of an expired request (max-wait + one sweep) and an idle timeout. */
    private static final long IDLE_MARGIN_MILLIS = 1000;

    private final QosPolicy javaPolicy;
    private volatile String policy;
    private volatile Integer maxExecuting;
    private volatile String scheduling;
    private volatile String defaultClass;

    /**
     * The running engine; null when stopped, and set to null first when stopping. A request remembers the
     * engine it entered: when that is no longer this one, the handler is stopping (or restarted) and the
     * request must not be run into the wrapped handler any more.
     */
    private volatile QosEngine engine;
    private Attributes published;
    /** The engine's JMX beans while started. */
    private volatile QosMBeans beans;
    /** Requests waiting now, so that a stop can answer them instead of leaving them hanging. */
    private final Set<Parked> parked = ConcurrentHashMap.newKeySet();

    /** A handler to be given a policy file ({@link #setPolicy(String)}) and a handler to wrap. */
    public QosHandler() {
        this((Handler) null);
    }

    /** A handler wrapping {@code handler}, to be given a policy file ({@link #setPolicy(String)}). */
    public QosHandler(@Name("handler") Handler handler) {
        super(handler);
        this.javaPolicy = null;
    }

    /** A handler wrapping {@code handler} (may be null) with the policy read from {@code policy} at start. */
    public QosHandler(@Name("policy") String policy, @Name("handler") Handler handler) {
        super(handler);
        this.javaPolicy = null;
        this.policy = policy;
    }

    /** A handler with a policy built in Java; {@link #setPolicy(String)} is then not used. */
    public QosHandler(QosPolicy policy) {
        this(policy, null);
    }

    /** A handler wrapping {@code handler} (may be null) with a policy built in Java. */
    public QosHandler(QosPolicy policy, Handler handler) {
        super(handler);
        this.javaPolicy = Objects.requireNonNull(policy, "policy");
    }

    /**
     * The policy file (UTF-8 properties, see {@code docs/configuration.md}); a relative path is resolved
     * against the {@code jetty.base} system property, or the working directory without it. Required unless
     * a {@link QosPolicy} was given to the constructor. Read at start.
     */
    public void setPolicy(String policy) {
        this.policy = policy;
    }

    public String getPolicy() {
        return policy;
    }

    /**
     * Requests executing at once over all classes. Before start it overrides the policy's
     * {@code max-executing}; while running it changes the engine at once (budgets above it are lowered).
     *
     * @throws IllegalArgumentException while running, if below 1 or below the sum of the reserves the policy gives
     */
    public void setMaxExecuting(int maxExecuting) {
        QosEngine e = engine;
        if (e != null) {
            e.setMaxExecuting(maxExecuting);
        }
        this.maxExecuting = maxExecuting;
    }

    public int getMaxExecuting() {
        QosEngine e = engine;
        if (e != null) {
            return e.snapshot().maxExecuting();
        }
        Integer m = maxExecuting;
        return m != null ? m : javaPolicy != null ? javaPolicy.maxExecuting() : 0;
    }

    /** Overrides the policy's {@code scheduling} (strict-priority, weighted, ...) at the next start. */
    public void setScheduling(String scheduling) {
        this.scheduling = scheduling;
    }

    public String getScheduling() {
        QosEngine e = engine;
        return e != null ? e.snapshot().scheduling().key() : scheduling;
    }

    /** Overrides the policy's {@code default-class} at the next start. */
    public void setDefaultClass(String defaultClass) {
        this.defaultClass = defaultClass;
    }

    public String getDefaultClass() {
        QosEngine e = engine;
        return e != null ? e.policy().defaultClass() : defaultClass;
    }

    /** The running engine, or null when the handler is not started. */
    public QosEngine getEngine() {
        return engine;
    }

    /** The engine's state now, or null when the handler is not started. */
    public EngineSnapshot snapshot() {
        QosEngine e = engine;
        return e == null ? null : e.snapshot();
    }

    /**
     * Sets a class's budget while running, non-preemptively (see {@link QosEngine#setBudget}).
     *
     * @throws IllegalStateException if the handler is not started
     * @throws IllegalArgumentException for an unknown class or a budget outside 0..max-executing
     */
    public void setBudget(String serviceClass, int budget) {
        running().setBudget(serviceClass, budget);
    }

    /**
     * A class's budget now.
     *
     * @throws IllegalStateException if the handler is not started
     * @throws IllegalArgumentException for an unknown class
     */
    public int getBudget(String serviceClass) {
        ClassStats c = running().snapshot().get(serviceClass);
        if (c == null) {
            throw new IllegalArgumentException("no service class \"" + serviceClass + "\"");
        }
        return c.budget();
    }

    /**
     * Sets a class's new-session rate while running (see {@link QosEngine#setSessionRate}).
     *
     * @throws IllegalStateException if the handler is not started
     * @throws IllegalArgumentException for an unknown class or values out of range
     */
    public void setSessionRate(String serviceClass, double perSecond, int burst) {
        running().setSessionRate(serviceClass, perSecond, burst);
    }

    public int getExecuting() {
        EngineSnapshot s = snapshot();
        return s == null ? 0 : s.executing();
    }

    public int getQueued() {
        EngineSnapshot s = snapshot();
        return s == null ? 0 : s.queued();
    }

    public String getBudgets() {
        EngineSnapshot s = snapshot();
        return s == null ? "" : s.classes().stream().map(c -> c.name() + "=" + c.budget())
                .collect(Collectors.joining(", "));
    }

    public String[] getClassStatistics() {
        EngineSnapshot s = snapshot();
        return s == null ? new String[0] : s.classes().stream().map(ClassStats::toString).toArray(String[]::new);
    }

    private QosEngine running() {
        QosEngine e = engine;
        if (e == null) {
            throw new IllegalStateException("QosHandler is not started (" + getState() + ")");
        }
        return e;
    }

    @Override
    protected void doStart() throws Exception {
        Server server = getServer();
        if (server == null) {
            throw new IllegalStateException("QosHandler must be part of a Server (it uses its scheduler and "
                    + "thread pool)");
        }
        QosPolicy p = resolvePolicy();
        checkIdleTimeouts(server, p);
        warnAboutThreadPool(server, p);
        QosEngine e = QosEngine.create(p);
        if (javaPolicy == null) {
            // JMX reloadPolicy (and policy.watch) read the file again, with the handler's overrides and the same check
            // of each max-wait against the connectors' idle timeouts as at start
            e.reloadFrom(() -> {
                QosPolicy next = resolvePolicy();
                checkIdleTimeouts(server, next);
                return next;
            }, policyFile());
        }
        ContextHandler context = Handler.AbstractContainer.findContainerOf(server, ContextHandler.class, this);
        // Published before the wrapped handler starts, so that the application finds it when it starts.
        engine = e;
        published = context != null ? context : server;
        published.setAttribute(ENGINE_ATTRIBUTE, e);
        if (server.getThreadPool() instanceof ThreadPool.SizedThreadPool pool && pool.getMaxThreads() > 0) {
            e.fitToThreads(pool.getMaxThreads());
        }
        e.start(periodic(server.getScheduler()));
        registerBeans(server, context, e);
        try {
            super.doStart();
        } catch (Throwable x) {
            // The wrapped handler failed to start: take the engine, its sweeper and its attribute back.
            withdrawEngine();
            throw x;
        }
        LOG.info("servlet-qos: {} classes, {}, max-executing {} ({})", p.classes().size(), p.scheduling().key(),
                p.maxExecuting(), javaPolicy != null ? "policy from Java" : "policy " + policy);
    }

    /**
     * Withdraws the engine first and answers the waiting requests, while the wrapped handler still runs; stops
     * the wrapped handler last.
     */
    @Override
    protected void doStop() throws Exception {
        try {
            withdrawEngine();
        } finally {
            super.doStop();
        }
    }

    /**
     * Ends the engine's use: new requests pass straight through, and every waiting request is answered 503. A
     * request that read the engine just before and parks after the loop below sees the engine gone and
     * answers itself (see {@link #park}); one granted a permit meanwhile is answered 503 instead of being run
     * (see {@link Parked#run()}).
     */
    private void withdrawEngine() {
        QosEngine e = engine;
        engine = null;
        try {
            // Nothing will resume them any more; the sweeper still expires those due meanwhile.
            for (Parked p : parked) {
                p.abandon();
            }
        } finally {
            QosMBeans.close(beans);
            beans = null;
            if (e != null) {
                e.stop(); // its periodic work on the server's scheduler ends
            }
            if (published != null) {
                published.removeAttribute(ENGINE_ATTRIBUTE);
                published = null;
            }
        }
    }

    /**
     * Registers the engine's beans ({@link QosMBeans}) in the domain {@value QosMBeans#DOMAIN}, under the engine id
     * of the enclosing context's path ({@code /} at the root): on the MBean server of the server's
     * {@code MBeanContainer} when Jetty's {@code jmx} module is on, else on the platform MBean server. A refusal
     * costs the management view, not the protection.
     */
    private void registerBeans(Server server, ContextHandler context, QosEngine e) {
        beans = QosMBeans.registerOrWarn(e, mbeanServer(server), QosMBeans.DOMAIN,
                context == null ? null : context.getContextPath(), m -> LOG.warn("servlet-qos: {}", m));
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

    /** The engine's JMX beans while started, or null. */
    public QosMBeans getMBeans() {
        return beans;
    }

    private QosPolicy resolvePolicy() {
        if (javaPolicy != null) {
            return maxExecuting == null && scheduling == null && defaultClass == null ? javaPolicy
                    : withOverrides(javaPolicy);
        }
        return PolicyParser.load(policyFile(), PolicyParser.adapterOverrides(maxExecuting, scheduling,
                defaultClass));
    }

    /** The policy file: {@code policy}, relative to {@code jetty.base}. */
    private Path policyFile() {
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

    /** Applies the setter overrides to a policy built in Java. */
    private QosPolicy withOverrides(QosPolicy p) {
        QosPolicy.Builder b = p.toBuilder();
        if (maxExecuting != null) {
            b.maxExecuting(maxExecuting);
        }
        if (scheduling != null) {
            QosPolicy.Scheduling s = QosPolicy.Scheduling.fromKey(scheduling.trim());
            if (s == null) {
                throw new PolicyException("scheduling", scheduling, "must be one of "
                        + Arrays.stream(QosPolicy.Scheduling.values()).map(QosPolicy.Scheduling::key).toList());
            }
            b.scheduling(s);
        }
        if (defaultClass != null) {
            b.defaultClass(defaultClass.trim());
        }
        return b.build();
    }

    /**
     * A connector closes a request that has been idle for its idle timeout; a parked request is idle. Every
     * maximum wait must end before that, or the client gets a closed connection instead of a 503: an expired
     * request is answered up to one sweep ({@value #SWEEP_MILLIS} ms) after its maximum wait, and a margin of
     * {@value #IDLE_MARGIN_MILLIS} ms covers a late sweep and the write of the answer.
     */
    private static void checkIdleTimeouts(Server server, QosPolicy p) {
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

    private static void warnAboutThreadPool(Server server, QosPolicy p) {
        if (server.getThreadPool() instanceof ThreadPool.SizedThreadPool pool
                && p.maxExecuting() >= pool.getMaxThreads()) {
            LOG.warn("servlet-qos: max-executing {} is not below the thread pool's maxThreads {}: requests "
                    + "holding a permit may wait for a thread; leave headroom for Jetty's own tasks",
                    p.maxExecuting(), pool.getMaxThreads());
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Handler next = getHandler();
        if (next == null) {
            return false;
        }
        QosEngine e = engine;
        if (e == null) {
            return next.handle(request, response, callback);
        }
        JettyRequestView view = new JettyRequestView(request);
        Ticket ticket = e.enter(view);
        Request served;
        try {
            request.setAttribute(CLASS_ATTRIBUTE, ticket.serviceClass());
            request.setAttribute(dev.servletqos.Attributes.LEVEL, ticket.level());
            request.setAttribute(dev.servletqos.Attributes.LEVELS, ticket.levels());
            served = contentRequest(e, ticket, view, request);
        } catch (Throwable x) {
            // Jetty answers the exception; nobody else would give the permit or the place in the queue back.
            ticket.decline();
            throw x;
        }
        switch (ticket.state()) {
            case RUNNING:
                return runNow(ticket, next, request, served, response, callback);
            case PARKED:
                park(e, ticket, next, request, served, response, callback);
                return true;
            default:
                Refusals.write(request, response, callback, ticket.rejection());
                return true;
        }
    }

    /**
     * The request to hand the wrapped handler: the request itself, or, for static content served from its content
     * level's tree ({@link QosEngine#contentPath}), the request with that path in its URI (the client's URL, and
     * the request the completion listeners are on, stay as they were).
     */
    static Request contentRequest(QosEngine e, Ticket ticket, JettyRequestView view, Request request) {
        String path = e.contentPath(ticket, view);
        if (path == null) {
            return request;
        }
        // The canonical path is the context's path followed by the path in context, both still percent-encoded.
        String canonical = request.getHttpURI().getCanonicalPath();
        String inContext = Request.getPathInContext(request);
        String context = canonical != null && inContext != null && canonical.endsWith(inContext)
                ? canonical.substring(0, canonical.length() - inContext.length()) : "";
        HttpURI uri = HttpURI.build(request.getHttpURI()).path(context + URIUtil.encodePath(path)).asImmutable();
        return new Request.Wrapper(request) {
            @Override
            public HttpURI getHttpURI() {
                return uri;
            }
        };
    }

    /** Adds the admission cookie of a new or renewed session to a response the wrapped handler makes. */
    private static void addCookie(Ticket ticket, Response response) {
        String cookie = ticket.setCookieHeader();
        if (cookie != null) {
            response.getHeaders().add(HttpHeader.SET_COOKIE, cookie);
        }
    }

    private static boolean runNow(Ticket ticket, Handler next, Request request, Request served, Response response,
                                  Callback callback) throws Exception {
        // Completion comes once the response is sent, whether the handler finished on this thread, on
        // another one later, or threw (Jetty then writes the error and completes the stream).
        try {
            Request.addCompletionListener(request,
                    failure -> ticket.complete(Response.getContentBytesWritten(response)));
            addCookie(ticket, response);
        } catch (Throwable x) {
            ticket.decline();
            throw x;
        }
        Watched watched = ticket.streamCandidate() ? new Watched(callback) : null;
        boolean handled = next.handle(served, response, watched != null ? watched : callback);
        if (!handled) {
            // Another handler (or the server's 404) answers it: that needs no permit, and it was not served.
            ticket.decline();
        } else if (watched != null) {
            watched.detachIfOpen(ticket);
        }
        return handled;
    }

    /**
     * A stream candidate's callback, as the wrapped handler gets it: notes whether the handler completed it, so that
     * a handler that returned with the response still open (it went asynchronous) is told apart from one that
     * answered on its thread.
     */
    private static final class Watched extends Callback.Nested {
        private volatile boolean done;

        Watched(Callback callback) {
            super(callback);
        }

        @Override
        public void succeeded() {
            done = true;
            super.succeeded();
        }

        @Override
        public void failed(Throwable x) {
            done = true;
            super.failed(x);
        }

        /**
         * Called once the wrapped handler returned true: if it has not completed the callback, the request stays
         * open without this thread, and its permit is given back ({@link Ticket#detach()}); the costly part, the
         * handler's own thread, ran under it.
         */
        void detachIfOpen(Ticket ticket) {
            if (!done) {
                ticket.detach();
            }
        }
    }

    private void park(QosEngine e, Ticket ticket, Handler next, Request request, Request served, Response response,
                      Callback callback) {
        Parked p = new Parked(e, ticket, next, request, served, response, callback);
        parked.add(p);
        try {
            Request.addCompletionListener(request, failure -> {
                parked.remove(p);
                ticket.complete(Response.getContentBytesWritten(response));
            });
            request.addFailureListener(p::failed);
        } catch (Throwable x) {
            // Jetty answers the exception; the ticket must not stay in the queue (or keep a granted permit).
            parked.remove(p);
            ticket.decline();
            throw x;
        }
        ticket.await(p);
        if (engine != e) {
            // The handler began to stop after this request read the engine: its loop over the parked
            // requests may have run before this one was added, and the sweeper is stopping.
            p.abandon();
        }
    }

    /** A waiting request: resumed on a permit, answered on expiry, dropped when the client is gone. */
    private final class Parked implements Ticket.Listener, Runnable {
        /** The engine the request entered. */
        private final QosEngine entered;
        private final Ticket ticket;
        private final Handler next;
        private final Request request;
        /** The request the wrapped handler gets: {@link #request}, or its content level's path. */
        private final Request served;
        private final Response response;
        private final Callback callback;

        Parked(QosEngine entered, Ticket ticket, Handler next, Request request, Request served, Response response,
               Callback callback) {
            this.entered = entered;
            this.ticket = ticket;
            this.next = next;
            this.request = request;
            this.served = served;
            this.response = response;
            this.callback = callback;
        }

        @Override
        public void granted(Ticket t) {
            parked.remove(this);
            // Often called on the thread completing another request; running the application there would
            // stack one request's handling onto another's.
            dispatch(this, this::unavailable);
        }

        @Override
        public void expired(Ticket t) {
            parked.remove(this);
            // Called on the scheduler's thread, which must not write responses.
            dispatch(this::refuse, this::refuse);
        }

        /** Jetty's failure listener: the stream was reset, the connection closed or timed out. */
        void failed(Throwable failure) {
            // If the ticket already left the queue (granted or expired), its own path completes the callback.
            if (ticket.cancel()) {
                parked.remove(this);
                callback.failed(failure);
            }
        }

        /** The handler stops: nothing will grant a permit any more. */
        void abandon() {
            if (ticket.cancel()) {
                parked.remove(this);
                dispatch(this::refuse, this::refuse);
            }
        }

        /** Runs the wrapped handler with the permit now held, unless the handler is stopping. */
        @Override
        public void run() {
            if (engine != entered) {
                // Granted while the handler stops (or after): the wrapped handler may be stopped already.
                unavailable();
                return;
            }
            try {
                addCookie(ticket, response);
                Watched watched = ticket.streamCandidate() ? new Watched(callback) : null;
                if (!next.handle(served, response, watched != null ? watched : callback)) {
                    ticket.decline();
                    Response.writeError(request, response, callback, HttpStatus.NOT_FOUND_404);
                } else if (watched != null) {
                    watched.detachIfOpen(ticket);
                }
            } catch (Throwable x) {
                // what Jetty does with a handler's exception on its own threads
                Response.writeError(request, response, callback, x);
            }
        }

        private void refuse() {
            Refusals.write(request, response, callback, ticket.rejection());
        }

        /**
         * Releases at once the permit of a request that cannot use it (the handler stops, or the thread pool
         * refused the task) and answers the request 503 with {@code Retry-After}.
         */
        private void unavailable() {
            ticket.decline();
            Refusals.write(request, response, callback, ticket.busyRejection());
        }

        private void dispatch(Runnable task, Runnable ifRejected) {
            try {
                request.getContext().execute(task);
            } catch (RejectedExecutionException x) {
                // the thread pool is stopping
                ifRejected.run();
            }
        }
    }

    /**
     * The engine's {@link Periodic} seam over the server's {@link Scheduler}: each task schedules its next run
     * when it has run, so it never overlaps with itself.
     */
    private static Periodic periodic(Scheduler scheduler) {
        return (task, period) -> {
            Repeating r = new Repeating(scheduler, task, period.toNanos());
            r.start();
            return r::stop;
        };
    }

    /** One periodic task of the engine on the server's scheduler. */
    private static final class Repeating implements Runnable {
        private final Scheduler scheduler;
        private final Runnable work;
        private final long periodNanos;
        private volatile boolean stopped;
        private volatile Scheduler.Task task;
        private volatile LifeCycle.Listener whenStarted;

        Repeating(Scheduler scheduler, Runnable work, long periodNanos) {
            this.scheduler = scheduler;
            this.work = work;
            this.periodNanos = periodNanos;
        }

        void start() {
            if (scheduler.isStarted()) {
                schedule();
                return;
            }
            // The server starts its scheduler before its handlers; this covers a scheduler started later.
            whenStarted = new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarted(LifeCycle event) {
                    event.removeEventListener(this);
                    schedule();
                }
            };
            scheduler.addEventListener(whenStarted);
        }

        private void schedule() {
            if (!stopped) {
                Scheduler.Task t = scheduler.schedule(this, periodNanos, TimeUnit.NANOSECONDS);
                task = t;
                if (stopped) {
                    // stop() ran meanwhile and may have cancelled the previous task instead of this one
                    t.cancel();
                }
            }
        }

        @Override
        public void run() {
            try {
                work.run();
            } catch (RuntimeException e) {
                LOG.error("servlet-qos: a periodic task failed", e);
            } finally {
                schedule();
            }
        }

        void stop() {
            stopped = true;
            LifeCycle.Listener l = whenStarted;
            if (l != null) {
                scheduler.removeEventListener(l);
            }
            Scheduler.Task t = task;
            if (t != null) {
                t.cancel();
            }
        }
    }
}

package dev.servletqos.jetty;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.runtime.AdapterSettings;
import dev.servletqos.runtime.QosRuntime;
import java.util.stream.Collectors;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.handler.ContextHandler;
import org.eclipse.jetty.util.Attributes;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.annotation.Name;
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
 * or from Java: {@code new QosHandler(policy, appHandler)} with a {@link QosPolicy}, {@code new QosHandler(runtime,
 * appHandler)} with a {@link QosRuntime} (started and stopped with the handler), or {@code new QosHandler()} with
 * {@link #setPolicy(String)}.
 *
 * <p>How a request goes through ({@link HandlerRequests}): a request that must wait is suspended without a thread
 * and resumed on the request's context executor. When the handler stops, its runtime answers the waiting requests
 * 503 with {@code Retry-After} at once, and the wrapped handler stops last; a stopped handler passes requests
 * straight on. The service class is in the request attribute {@value #CLASS_ATTRIBUTE}, the content level in
 * {@code dev.servletqos.level} ({@link ContentLevels}); the engine is published as the attribute
 * {@link #ENGINE_ATTRIBUTE} of the enclosing {@link ContextHandler}, or of the {@link Server} outside every context.
 *
 * <p>Where to put it: inside a context ({@code contextHandler.insertHandler(..)}), paths in the policy's
 * rules are paths within that context; around the server's handler ({@code server.insertHandler(..)}), they
 * are whole request paths and every context shares the one set of queues.
 *
 * <p>Settings: {@code policy} (the file; relative paths are resolved against the {@code jetty.base} system
 * property), and {@code maxExecuting}, {@code scheduling}, {@code defaultClass}, which mean what they mean on every
 * adapter ({@link AdapterSettings}). While running, {@link #setBudget(String, int)} and
 * {@link #setSessionRate(String, double, int)} change the engine at once, as its JMX beans do ({@link QosMBeans}).
 * Start fails with a message naming the values when the policy is invalid or when a class's {@code max-wait}, plus
 * the 100 ms expiry sweep and a 1 s margin, is not below a connector's idle timeout (the connector would close a
 * waiting request before its 503). If the wrapped handler fails to start, the engine is withdrawn again. Keep
 * {@code max-executing} below the thread pool's {@code maxThreads}: a resumed request is a new task on that pool.
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

    private final AdapterSettings settings;
    /** The running runtime; null when stopped, and set to null first when stopping (see {@link HandlerRequests}). */
    private volatile QosRuntime runtime;
    private Attributes published;

    /** A handler to be given a policy file ({@link #setPolicy(String)}) and a handler to wrap. */
    public QosHandler() {
        this((Handler) null);
    }

    /** A handler wrapping {@code handler}, to be given a policy file ({@link #setPolicy(String)}). */
    public QosHandler(@Name("handler") Handler handler) {
        this(new AdapterSettings(), handler);
    }

    /** A handler wrapping {@code handler} (may be null) with the policy read from {@code policy} at start. */
    public QosHandler(@Name("policy") String policy, @Name("handler") Handler handler) {
        this(new AdapterSettings(), handler);
        settings.setPolicy(policy);
    }

    /** A handler with a policy built in Java; {@link #setPolicy(String)} is then not used. */
    public QosHandler(QosPolicy policy) {
        this(policy, null);
    }

    /** A handler wrapping {@code handler} (may be null) with a policy built in Java. */
    public QosHandler(QosPolicy policy, Handler handler) {
        this(new AdapterSettings(policy), handler);
    }

    /** A handler wrapping {@code handler} (may be null) over a runtime built in Java, started and stopped with it. */
    public QosHandler(QosRuntime runtime, Handler handler) {
        this(new AdapterSettings(runtime), handler);
    }

    private QosHandler(AdapterSettings settings, Handler handler) {
        super(handler);
        this.settings = settings;
    }

    /**
     * The policy file (UTF-8 properties, see {@code docs/configuration.md}); a relative path is resolved
     * against the {@code jetty.base} system property, or the working directory without it. Required unless
     * a {@link QosPolicy} or a {@link QosRuntime} was given to the constructor. Read at start.
     */
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

    /** The running runtime, or null when the handler is not started. */
    public QosRuntime getRuntime() {
        return runtime;
    }

    /** The running engine, or null when the handler is not started. */
    public QosEngine getEngine() {
        QosRuntime r = runtime;
        return r == null ? null : r.engine();
    }

    /** The engine's JMX beans while started, or null. */
    public QosMBeans getMBeans() {
        QosRuntime r = runtime;
        return r == null ? null : r.mbeans();
    }

    /** The engine's state now, or null when the handler is not started. */
    public EngineSnapshot snapshot() {
        QosEngine e = getEngine();
        return e == null ? null : e.snapshot();
    }

    /** {@link QosEngine#setBudget} while running; {@link IllegalStateException} when not started. */
    public void setBudget(String serviceClass, int budget) {
        engineOrFail().setBudget(serviceClass, budget);
    }

    /** A class's budget now; {@link IllegalStateException} when not started, IllegalArgumentException if unknown. */
    public int getBudget(String serviceClass) {
        ClassStats c = engineOrFail().snapshot().get(serviceClass);
        if (c == null) {
            throw new IllegalArgumentException("no service class \"" + serviceClass + "\"");
        }
        return c.budget();
    }

    /** {@link QosEngine#setSessionRate} while running; {@link IllegalStateException} when not started. */
    public void setSessionRate(String serviceClass, double perSecond, int burst) {
        engineOrFail().setSessionRate(serviceClass, perSecond, burst);
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

    private QosEngine engineOrFail() {
        QosEngine e = getEngine();
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
        ContextHandler context = Handler.AbstractContainer.findContainerOf(server, ContextHandler.class, this);
        // JMX reloadPolicy (and policy.watch) read the file again, with the handler's overrides and the same check
        // of each max-wait against the connectors' idle timeouts as at start
        QosRuntime r = settings.open(b -> b.policyFile(JettyServerChecks.policyFile(settings.getPolicy())), b -> b
                .validate(p -> JettyServerChecks.checkIdleTimeouts(server, p))
                .periodic(JettyPeriodic.periodic(server.getScheduler()))
                .threads(server.getThreadPool() instanceof ThreadPool.SizedThreadPool pool
                        && pool.getMaxThreads() > 0 ? pool.getMaxThreads() : 0)
                .mbeanServer(JettyServerChecks.mbeanServer(server))
                .engineId(context == null ? null : context.getContextPath())
                .log(QosRuntime.Log.of(LOG::info, LOG::warn)));
        // Published before the wrapped handler starts, so that the application finds it when it starts.
        published = context != null ? context : server;
        published.setAttribute(ENGINE_ATTRIBUTE, r.engine());
        settings.start(r);
        runtime = r;
        try {
            super.doStart();
        } catch (Throwable x) {
            // The wrapped handler failed to start: take the engine, its sweeper and its attribute back.
            withdrawEngine();
            throw x;
        }
    }

    /** Withdraws the engine and answers the waiting requests while the wrapped handler still runs; stops it last. */
    @Override
    protected void doStop() throws Exception {
        try {
            withdrawEngine();
        } finally {
            super.doStop();
        }
    }

    /** Ends the engine's use: new requests pass straight on; the runtime stops, answering the waiting requests. */
    private void withdrawEngine() {
        runtime = null;
        try {
            settings.stop(); // its periodic work on the server's scheduler ends
        } finally {
            if (published != null) {
                published.removeAttribute(ENGINE_ATTRIBUTE);
                published = null;
            }
        }
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        Handler next = getHandler();
        if (next == null) {
            return false;
        }
        QosRuntime r = runtime;
        if (r == null) {
            return next.handle(request, response, callback);
        }
        return HandlerRequests.handle(this, r, next, request, response, callback);
    }
}

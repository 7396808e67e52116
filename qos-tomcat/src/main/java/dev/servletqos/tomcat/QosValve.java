package dev.servletqos.tomcat;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.PolicyException;
import dev.servletqos.PolicyParser;
import dev.servletqos.QosEngine;
import dev.servletqos.QosPolicy;
import dev.servletqos.Rejection;
import dev.servletqos.Ticket;
import dev.servletqos.servlet.Responses;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.Container;
import org.apache.catalina.Context;
import org.apache.catalina.Engine;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.core.AsyncContextImpl;
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
 * not see a resumed request (it arrives as an ASYNC dispatch): map them for ASYNC too.
 *
 * <p>Attributes (JavaBean setters, as server.xml sets them): {@code policy} (required: the policy file,
 * relative to {@code catalina.base} unless absolute) and overrides of its most changed settings:
 * {@code maxExecuting}, {@code scheduling}, {@code defaultClass}. Keep {@code max-executing} below the
 * connector's {@code maxThreads} with some headroom: a resumed request runs as a new executor task.
 */
public class QosValve extends ValveBase {

    /** Servlet context attribute under which the valve publishes its engine (for tier cookies, /qos, JMX). */
    public static final String ENGINE_ATTRIBUTE = QosEngine.class.getName();

    private static final Log log = LogFactory.getLog(QosValve.class);
    private static final String TICKET_NOTE = "dev.servletqos.ticket";
    /** How often parked requests past their maximum wait are expired. */
    private static final long SWEEP_MILLIS = 100;
    /** Tomcat's own async timeout is only a backstop behind the engine's maximum wait. */
    private static final long CONTAINER_TIMEOUT_MARGIN_MILLIS = 5_000;

    private String policy;
    private Integer maxExecuting;
    private String scheduling;
    private String defaultClass;

    private volatile QosEngine engine;
    private ScheduledFuture<?> sweeper;
    private ScheduledExecutorService ownExecutor;

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

    /** The running engine, or null before start. */
    public QosEngine getEngine() {
        return engine;
    }

    @Override
    protected void startInternal() throws LifecycleException {
        QosPolicy p;
        try {
            p = loadPolicy();
        } catch (PolicyException e) {
            throw new LifecycleException("QosValve: bad policy: " + e.getMessage(), e);
        }
        engine = QosEngine.create(p);
        if (getContainer() instanceof Context) {
            ((Context) getContainer()).getServletContext().setAttribute(ENGINE_ATTRIBUTE, engine);
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
        QosEngine e = engine;
        sweeper = executor.scheduleWithFixedDelay(() -> {
            try {
                e.expireOverdue();
            } catch (RuntimeException ex) {
                log.error("servlet-qos: expiring overdue requests failed", ex);
            }
        }, SWEEP_MILLIS, SWEEP_MILLIS, TimeUnit.MILLISECONDS);
        log.info("servlet-qos: " + p.classes().size() + " classes, " + p.scheduling().key() + ", max-executing "
                + p.maxExecuting() + " (policy " + policy + ")");
        super.startInternal();
    }

    @Override
    protected void stopInternal() throws LifecycleException {
        super.stopInternal();
        if (sweeper != null) {
            sweeper.cancel(false);
            sweeper = null;
        }
        if (ownExecutor != null) {
            ownExecutor.shutdownNow();
            ownExecutor = null;
        }
        if (getContainer() instanceof Context) {
            ((Context) getContainer()).getServletContext().removeAttribute(ENGINE_ATTRIBUTE);
        }
    }

    private QosPolicy loadPolicy() {
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
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(file);
             Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
            props.load(reader);
        } catch (IOException | IllegalArgumentException e) {
            throw new PolicyException("policy", file.toString(), "cannot read the policy file: " + e);
        }
        if (maxExecuting != null) {
            props.setProperty("max-executing", maxExecuting.toString());
        }
        if (scheduling != null) {
            props.setProperty("scheduling", scheduling);
        }
        if (defaultClass != null) {
            props.setProperty("default-class", defaultClass);
        }
        return PolicyParser.parse(props, file.toString());
    }

    private ScheduledExecutorService utilityExecutor() {
        Container c = getContainer();
        while (c != null && !(c instanceof Engine)) {
            c = c.getParent();
        }
        if (c == null || ((Engine) c).getService() == null || ((Engine) c).getService().getServer() == null) {
            return null;
        }
        return ((Engine) c).getService().getServer().getUtilityExecutor();
    }

    @Override
    public void invoke(Request request, Response response) throws IOException, ServletException {
        QosEngine e = engine;
        if (e == null || request.getNote(TICKET_NOTE) != null) {
            // A resumed request (our own dispatch) or one the application dispatched again: it already
            // holds its permit.
            getNext().invoke(request, response);
            return;
        }
        Ticket ticket = e.enter(new TomcatRequestView(request));
        String cookie = ticket.setCookieHeader();
        if (cookie != null) {
            response.addHeader("Set-Cookie", cookie);
        }
        request.setAttribute(Responses.CLASS_ATTRIBUTE, ticket.serviceClass());
        switch (ticket.state()) {
            case RUNNING:
                request.setNote(TICKET_NOTE, ticket);
                runNow(ticket, request, response);
                break;
            case PARKED:
                request.setNote(TICKET_NOTE, ticket);
                park(ticket, request, response);
                break;
            default:
                reject(response, ticket.rejection(), request);
                break;
        }
    }

    private void runNow(Ticket ticket, Request request, Response response) throws IOException, ServletException {
        try {
            getNext().invoke(request, response);
        } finally {
            releaseWhenDone(ticket, request);
        }
    }

    /** Releases the permit now, or when the request completes if the application went asynchronous. */
    private static void releaseWhenDone(Ticket ticket, Request request) {
        AsyncContextImpl async = request.isAsync() ? request.getAsyncContextInternal() : null;
        if (async == null) {
            ticket.complete();
            return;
        }
        // Completion of an async request is deferred until this container thread leaves the pipeline, so a
        // listener added here cannot miss onComplete.
        try {
            async.addListener(new CompletionListener(ticket));
        } catch (IllegalStateException ex) {
            ticket.complete();
        }
    }

    private void park(Ticket ticket, Request request, Response response) throws IOException {
        AsyncContext async;
        try {
            async = request.startAsync();
        } catch (IllegalStateException ex) {
            // Some valve or filter in front of us does not support async: the request cannot wait.
            ticket.cancel();
            log.warn("servlet-qos: cannot park a request, async is not supported here (" + ex.getMessage() + ")");
            reject(response, ticket.rejection(), request);
            return;
        }
        async.setTimeout(ticket.maxWaitNanos() / 1_000_000 + CONTAINER_TIMEOUT_MARGIN_MILLIS);
        ParkedRequest parked = new ParkedRequest(ticket, async, request.getHeader("Accept"), request.getMethod());
        async.addListener(parked);
        ticket.await(parked);
    }

    private static void reject(Response response, Rejection rejection, Request request) throws IOException {
        Responses.writeRejection(response, rejection, request.getHeader("Accept"), request.getMethod());
    }

    /** A waiting request: resumed by the engine's grant, answered on expiry, released on completion. */
    private static final class ParkedRequest implements AsyncListener, Ticket.Listener {
        private final Ticket ticket;
        private final AsyncContext async;
        private final String accept;
        private final String method;
        private final AtomicBoolean answered = new AtomicBoolean();

        ParkedRequest(Ticket ticket, AsyncContext async, String accept, String method) {
            this.ticket = ticket;
            this.async = async;
            this.accept = accept;
            this.method = method;
        }

        @Override
        public void granted(Ticket t) {
            // dispatch() hands the request to a container thread; it never runs the application inline.
            async.dispatch();
        }

        @Override
        public void expired(Ticket t) {
            answer();
        }

        private void answer() {
            if (!answered.compareAndSet(false, true)) {
                return;
            }
            try {
                Responses.writeRejection((HttpServletResponse) async.getResponse(), ticket.rejection(), accept,
                        method);
            } catch (IOException | RuntimeException ex) {
                log.debug("servlet-qos: could not write the 503 of an expired request", ex);
            } finally {
                try {
                    async.complete();
                } catch (IllegalStateException ignored) {
                    // the request already ended (client gone)
                }
            }
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            // Normally the engine's sweeper expires the ticket seconds before this backstop fires.
            if (ticket.expire() || ticket.state() == Ticket.State.EXPIRED) {
                answer();
            }
        }

        @Override
        public void onError(AsyncEvent event) {
            ticket.cancel();
        }

        @Override
        public void onComplete(AsyncEvent event) {
            ticket.complete();
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // The application went async on the resumed request: listeners must register again.
            event.getAsyncContext().addListener(this);
        }
    }

    /** Releases the permit of a request whose application went asynchronous. */
    private static final class CompletionListener implements AsyncListener {
        private final Ticket ticket;

        CompletionListener(Ticket ticket) {
            this.ticket = ticket;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            ticket.complete();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
        }

        @Override
        public void onError(AsyncEvent event) {
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            event.getAsyncContext().addListener(this);
        }
    }

    /** The engine's state, for tests and management. */
    public EngineSnapshot snapshot() {
        QosEngine e = engine;
        return e == null ? null : e.snapshot();
    }
}

package dev.servletqos.servlet;

import dev.servletqos.Rejection;
import dev.servletqos.Ticket;
import dev.servletqos.runtime.Waiting;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.Collections;
import java.util.Enumeration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

/**
 * A waiting request: resumed by the engine's grant, answered on expiry or when the adapter stops, released on
 * completion. Whoever comes first of the grant, the engine's expiry, the stop and the container's timeout takes
 * the request; the others leave it alone.
 */
final class ParkedRequest implements AsyncListener, Ticket.Listener, Waiting.Waiter {

    private static final System.Logger log = System.getLogger(ServletTickets.class.getName());
    /** The container's async timeout is only a backstop behind the engine's maximum wait. */
    static final long CONTAINER_TIMEOUT_MARGIN_MILLIS = 5_000;
    private static final AtomicBoolean ASYNC_WARNED = new AtomicBoolean();
    private static final AtomicBoolean DISPATCH_WARNED = new AtomicBoolean();

    /**
     * Suspends the request of a {@link Ticket.State#PARKED PARKED} ticket so that it waits holding no thread:
     * {@code startAsync()}, a container timeout of the ticket's maximum wait plus a margin (a backstop: the engine
     * normally expires the ticket first), a listener, then {@link Ticket#await}. When the engine grants a
     * permit, the request is resumed with {@link AsyncContext#dispatch()} (on a container thread, never inline),
     * and the permit is released when the resumed request completes. When the engine expires it, the rejection
     * is written on a container thread ({@link AsyncContext#start}, never on the thread that expired it) and the
     * request completed. A client error while it waits (an HTTP/2 reset) cancels the ticket and completes the
     * request. When the adapter stops ({@link Waiting#close()}), it is answered 503. If the container cannot
     * dispatch the granted request after all (it throws anything but the {@link IllegalStateException} of a request
     * that ended), the request is answered 503 on a container thread and its permit released as declined: nothing is
     * thrown into the container while the request is suspended, also when the grant reaches the listener inline, on
     * the parking thread.
     *
     * <p>A request that {@link AsyncContext#dispatch()} could not resume ({@code resumable} false: Tomcat mapped its
     * path to no servlet) is never parked: it is refused at once. A WebSocket handshake is never parked either:
     * resumed, it would arrive as an ASYNC dispatch, which the container's WebSocket filter does not see. Any other
     * request is parked, also one that asks for another upgrade: an {@code Upgrade: h2c} (which the JDK's
     * {@code HttpClient} sends on every cleartext request by default) is either performed by the connector before
     * any adapter sees the request, or ignored.
     *
     * @return true if the request now waits; false if it cannot be suspended (not resumable, a WebSocket handshake,
     *         or something in front of the adapter does not support async). The ticket is then CANCELLED (the
     *         caller answers {@link ServletTickets#reject}) or, if a permit was granted meanwhile, RUNNING (the caller runs
     *         the request)
     */
    static boolean park(Waiting waiting, Ticket ticket, boolean resumable, HttpServletRequest request,
                        LongSupplier bytes) {
        if (!resumable || isWebSocketHandshake(request)) {
            ticket.cancel();
            return false;
        }
        AsyncContext async;
        try {
            async = request.startAsync();
        } catch (IllegalStateException ex) {
            ticket.cancel();
            if (ASYNC_WARNED.compareAndSet(false, true)) {
                log.log(Level.WARNING, "servlet-qos: cannot park a request, async is not supported here ("
                        + ex.getMessage() + "); mark every filter and servlet in front of the application "
                        + "asyncSupported. Requests that must wait are refused with 503 meanwhile.");
            }
            return false;
        }
        async.setTimeout(ticket.maxWaitNanos() / 1_000_000 + CONTAINER_TIMEOUT_MARGIN_MILLIS);
        ParkedRequest parked = new ParkedRequest(waiting, ticket, async, request.getHeader("Accept"),
                request.getMethod(), bytes);
        async.addListener(parked);
        waiting.add(parked);
        ticket.await(parked);
        if (waiting.closed()) {
            // The adapter began to stop after this request entered: its loop over the waiting requests may have
            // run before this one was added.
            parked.abandon();
        }
        return true;
    }

    /**
     * Whether the request asks to become a WebSocket over HTTP/1.1: an {@code Upgrade} header naming
     * {@code websocket} (case-insensitive, in a list, with or without a version). Over HTTP/2 the header means
     * nothing (RFC 9113); there a WebSocket is an extended {@code CONNECT} (RFC 8441), not recognised here.
     */
    static boolean isWebSocketHandshake(HttpServletRequest request) {
        String protocol = request.getProtocol();
        if (protocol == null || !protocol.startsWith("HTTP/1.")) {
            return false;
        }
        Enumeration<String> values = request.getHeaders("Upgrade");
        if (values == null) {
            return false;
        }
        for (String value : Collections.list(values)) {
            for (String token : value.split(",")) {
                String name = token.trim();
                int slash = name.indexOf('/');
                if ((slash < 0 ? name : name.substring(0, slash)).trim().equalsIgnoreCase("websocket")) {
                    return true;
                }
            }
        }
        return false;
    }

    private final Waiting waiting;
    private final Ticket ticket;
    private final AsyncContext async;
    private final String accept;
    private final String method;
    private final AtomicBoolean taken = new AtomicBoolean();
    private final LongSupplier bytes;
    /** Granted, but answered 503 instead of being run: the permit is released as declined, not served. */
    private volatile boolean declined;

    ParkedRequest(Waiting waiting, Ticket ticket, AsyncContext async, String accept, String method,
                  LongSupplier bytes) {
        this.waiting = waiting;
        this.ticket = ticket;
        this.async = async;
        this.accept = accept;
        this.method = method;
        this.bytes = bytes;
    }

    @Override
    public void granted(Ticket t) {
        waiting.remove(this);
        if (!taken.compareAndSet(false, true)) {
            return; // the container timed the request out first; onComplete releases the permit
        }
        if (waiting.closed()) {
            // the adapter stops: its application may be stopping too
            declined = true;
            answerOnContainerThread(ticket.busyRejection());
            return;
        }
        try {
            // dispatch() hands the request to a container thread; it never runs the application inline.
            async.dispatch();
        } catch (IllegalStateException ex) {
            // the request already ended (client gone, container error): nobody will run it
            ticket.decline();
        } catch (RuntimeException ex) {
            // The container cannot dispatch the request (Tomcat throws UnsupportedOperationException where it
            // has no request dispatcher for the path), but it is still suspended: answer it instead of leaving
            // it to the container's timeout, or, if the grant came inline in park(), throwing into the
            // container with the request suspended (Tomcat then closes the connection without an answer).
            log.log(DISPATCH_WARNED.compareAndSet(false, true) ? Level.WARNING : Level.DEBUG,
                    "servlet-qos: the container cannot resume a request that waited; it is answered 503 (later "
                    + "ones at DEBUG)", ex);
            declined = true;
            answerOnContainerThread(ticket.busyRejection());
        }
    }

    @Override
    public void expired(Ticket t) {
        waiting.remove(this);
        if (taken.compareAndSet(false, true)) {
            // Called on the engine's expiry sweep or on the thread of a request that just entered: a client
            // that reads slowly must not hold either while its 503 is written.
            answerOnContainerThread(ticket.rejection());
        }
    }

    /** The adapter stops: nothing will grant a permit any more. */
    @Override
    public void abandon() {
        if (ticket.cancel()) {
            waiting.remove(this);
            if (taken.compareAndSet(false, true)) {
                answerOnContainerThread(ticket.rejection());
            }
        }
    }

    /** Answers on a thread of the container, not on the caller's (another request's, or a stopping one). */
    private void answerOnContainerThread(Rejection rejection) {
        try {
            async.start(() -> answer(rejection));
        } catch (RuntimeException ex) {
            // the container cannot run it (the request ended, the pool stops): answer here, or complete
            answer(rejection);
        }
    }

    private void answer(Rejection rejection) {
        try {
            Responses.writeRejection((HttpServletResponse) async.getResponse(), rejection, accept, method);
        } catch (IOException | RuntimeException ex) {
            log.log(Level.DEBUG, "servlet-qos: could not write the 503 of a request that waited", ex);
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
        waiting.remove(this);
        // Normally the engine expires the ticket seconds before this backstop fires. If a permit was just
        // granted but the resume has not happened, the container gives up anyway: answer 503 here and let
        // onComplete release the permit.
        boolean wasParked = ticket.expire();
        if (taken.compareAndSet(false, true)) {
            // granted but never resumed: its permit is released as declined when the request completes
            declined = !wasParked;
            answer(ticket.busyRejection());
        }
    }

    /**
     * The client went away while the request waited (an HTTP/2 reset): the ticket is cancelled and, if nothing
     * else took the request, it is completed here, as a listener may, instead of leaving that to the container.
     * Tomcat 11.0.24 does not complete it itself when the reset arrived before the thread that parked the request
     * returned (its async state is then MUST_ERROR, which its post-processing rejects): the stream ends with a
     * connection error and the request object, never recycled, goes back to the HTTP/2 pool, where the next
     * stream to take it is answered 500. See docs/security.md.
     */
    @Override
    public void onError(AsyncEvent event) {
        waiting.remove(this);
        if (ticket.cancel() && taken.compareAndSet(false, true)) {
            try {
                async.complete();
            } catch (IllegalStateException ignored) {
                // the request already ended
            }
        }
    }

    @Override
    public void onComplete(AsyncEvent event) {
        waiting.remove(this);
        if (declined) {
            ticket.decline();
        } else {
            ticket.complete(bytes.getAsLong());
        }
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
        // The application went async on the resumed request: listeners must register again.
        event.getAsyncContext().addListener(this);
    }
}

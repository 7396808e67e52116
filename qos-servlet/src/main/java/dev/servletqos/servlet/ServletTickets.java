package dev.servletqos.servlet;

import dev.servletqos.Attributes;
import dev.servletqos.QosEngine;
import dev.servletqos.RequestView;
import dev.servletqos.Ticket;
import dev.servletqos.runtime.Waiting;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * What every servlet-level adapter (the Tomcat valve, {@link QosFilter}) does with a request's {@link Ticket}
 * around the application, written once: label the request (its class and content level), refuse it, suspend a
 * parked one without holding its thread and resume it with {@link AsyncContext#dispatch()}, serve static content
 * from its level's tree by a forward, and release the permit when the response is done, also when the
 * application went asynchronous.
 *
 * <p>The adapter keeps two things to itself: marking the request so that the second pass of a resumed request
 * (an {@code ASYNC} dispatch, which runs the valve pipeline and the filter chain again) goes straight to the
 * application, and the runtime's {@link Waiting}, closed when it stops. Safe from any thread.
 */
public final class ServletTickets {

    private ServletTickets() {
    }

    /**
     * The size of a finished response's body from its {@code Content-Length} header, or -1 when it has none: what
     * the portable filter knows of it.
     */
    public static long contentLength(HttpServletResponse response) {
        String v = response.getHeader("Content-Length");
        if (v == null) {
            return -1;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Sets the request attributes {@link Attributes#CLASS}, {@link Attributes#LEVEL} and {@link Attributes#LEVELS}
     * of a ticket's request, where an adapter has a cheaper way than {@link #label} (the valve, on a Context without
     * request attribute listeners). Throws as {@link #label} does.
     */
    @FunctionalInterface
    public interface Label {
        void label(Ticket ticket);
    }

    /** The rest of the request's processing after the adapter: the valve pipeline or the filter chain. */
    @FunctionalInterface
    public interface Application {
        void run() throws IOException, ServletException;
    }

    /**
     * Serves the request from another path of the application instead of the rest of the chain: a forward
     * ({@link RequestDispatcher#forward}) to the path, percent-encoded, within the application.
     */
    @FunctionalInterface
    public interface Forward {
        void to(String encodedPath) throws IOException, ServletException;
    }

    /**
     * Where a request is served from at its content level ({@link QosEngine#contentPath}), percent-encoded for
     * {@link jakarta.servlet.ServletContext#getRequestDispatcher}, or null to serve it as it is.
     */
    public static String contentForward(QosEngine engine, Ticket ticket, RequestView request) {
        String path = engine.contentPath(ticket, request);
        return path == null ? null : encodePath(path);
    }

    /**
     * A decoded path percent-encoded as a URI path: every character but the unreserved ones, the
     * sub-delimiters other than {@code ;}, {@code :}, {@code @} and {@code /} as UTF-8 bytes in {@code %XX}.
     */
    static String encodePath(String path) {
        int i = 0;
        while (i < path.length() && keepsInPath(path.charAt(i))) {
            i++;
        }
        if (i == path.length()) {
            return path;
        }
        StringBuilder out = new StringBuilder(path.length() + 16).append(path, 0, i);
        for (byte b : path.substring(i).getBytes(StandardCharsets.UTF_8)) {
            int u = b & 0xFF;
            if (u < 0x80 && keepsInPath((char) u)) {
                out.append((char) u);
            } else {
                out.append('%').append(HEX.charAt(u >> 4)).append(HEX.charAt(u & 0xF));
            }
        }
        return out.toString();
    }

    private static final String HEX = "0123456789ABCDEF";

    /**
     * Forwards the request to {@code encodedPath} within the application of {@code context}: what the adapters
     * do for a request whose static content comes from its level's tree ({@link Forward}).
     *
     * @throws ServletException if the container has no dispatcher for the path
     */
    public static void forward(ServletContext context, ServletRequest request, ServletResponse response,
                               String encodedPath) throws IOException, ServletException {
        RequestDispatcher d = context.getRequestDispatcher(encodedPath);
        if (d == null) {
            throw new ServletException("servlet-qos: no request dispatcher for the content path " + encodedPath);
        }
        d.forward(request, response);
    }

    private static boolean keepsInPath(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || "-._~!$&'()*+,=:@/".indexOf(c) >= 0;
    }

    /**
     * Carries a freshly entered ticket through, the same way for every servlet-level adapter: labels the
     * request, then parks it (it waits holding no thread), refuses it, or runs the application with the
     * permit held and releases the permit when the application is done. A ticket that cannot be parked is
     * refused, or run if it was granted a permit meanwhile. Whatever throws before the request is parked or the
     * application runs (an attribute listener of the application, the adapter's mark) gives the permit or the
     * place in the queue back at once ({@link Ticket#decline()}) and is thrown on to the container. The
     * ticket's admission cookie is added only to a response the application makes: a refusal carries none.
     * The request attributes {@link Attributes#LEVEL} and {@link Attributes#LEVELS} carry the ticket's content
     * level; a request whose static content comes from its level's tree ({@code forward} not null) is forwarded
     * there instead of running the rest of the chain, also when it resumes after waiting ({@link #passAgain}).
     *
     * @param waiting the adapter's waiting requests, answered when it stops
     * @param forward where the request is served from at its content level ({@link #contentForward}), or null
     * @param resumable whether {@link AsyncContext#dispatch()} can resume the request: false where the container
     *             mapped its path to no servlet (Tomcat has no request dispatcher for such a path and throws from
     *             {@code dispatch()}); a request that is not resumable and must wait is refused, not parked
     * @param mark stores the given object on the request (a request note, an attribute), so that the second
     *             pass of a resumed request (an ASYNC dispatch through the adapter again) goes straight to the
     *             application after {@link #passAgain}; called before the request is suspended or run. It may
     *             throw, see {@link #setAttribute}
     * @param app  runs the application
     * @param forwarder serves the request from another path instead of the application
     * @param bytes tells the response's size when the request is done
     * @param labels sets the request attributes of the ticket's class and content level; null: {@link #label}
     */
    public static void serve(Waiting waiting, Ticket ticket, String forward, boolean resumable,
                             HttpServletRequest request, HttpServletResponse response, Consumer<Object> mark,
                             Application app, Forward forwarder, LongSupplier bytes, Label labels)
            throws IOException, ServletException {
        boolean parking = ticket.state() == Ticket.State.PARKED;
        Marked marked = Marked.of(ticket.setCookieHeader(), parking ? forward : null);
        try {
            if (labels == null) {
                label(request, ticket);
            } else {
                labels.label(ticket);
            }
            if (parking) {
                mark.accept(Marked.waiting(ticket.setCookieHeader(), forward, ticket, bytes));
                if (ParkedRequest.park(waiting, ticket, resumable, request, bytes)) {
                    return; // the container and the ticket's listener own the request now
                }
                // Not parked: cancelled (refuse it below), or granted a permit meanwhile (run it).
            }
            if (ticket.state() != Ticket.State.RUNNING) {
                reject(ticket, request, response);
                return;
            }
            mark.accept(marked);
            marked.takeForward(); // granted while it was being parked: forwarded now, not on a later pass
            marked.addCookie(response);
        } catch (Throwable x) {
            // Until the application runs or the request waits, nobody else would release the ticket; a no-op
            // on a ticket that has ended already.
            ticket.decline();
            throw x;
        }
        try {
            if (forward != null) {
                forwarder.to(forward);
            } else {
                app.run();
            }
        } finally {
            releaseWhenDone(ticket, request, bytes);
        }
    }

    /**
     * Where to forward the resumed pass of a request that waited and whose static content comes from its level's
     * tree: call on a later pass through the adapter before {@link #passAgain}; the first such pass takes it, later
     * ones (and requests that ran at once) get null.
     *
     * @param mark what {@link #serve} gave the adapter's mark
     * @return the percent-encoded path to forward to ({@link Forward}), or null: go on with the chain
     */
    public static String takeForward(Object mark) {
        return mark instanceof Marked m ? m.takeForward() : null;
    }

    /**
     * Every later pass through the adapter of a request that carries the adapter's mark (the resumed request, or one
     * the application dispatched again) goes through here: adds the admission cookie of a request that waited for
     * its permit, on the first such pass only, runs the rest of the chain, and, for a request that waited, releases
     * its permit when the application is done with it, as {@link #serve} does for a request that ran at once. (The
     * listener on the suspended request releases it too, whichever comes first, but Jetty's servlet layer does not
     * call it when the resumed request ends because its client went away while the response was written.)
     *
     * @param mark what {@link #serve} gave the adapter's mark
     * @param rest the rest of the chain: the valve pipeline or the filter chain
     */
    public static void passAgain(Object mark, HttpServletRequest request, HttpServletResponse response,
                                 Application rest) throws IOException, ServletException {
        if (!(mark instanceof Marked m)) {
            rest.run();
            return;
        }
        m.addCookie(response);
        if (m.waited == null) {
            rest.run();
            return;
        }
        try {
            rest.run();
        } finally {
            releaseWhenDone(m.waited, request, m.bytes);
        }
    }

    /**
     * What the adapter's mark holds: the admission cookie, until the application's response takes it; for a
     * request that waits, where its resumed pass is forwarded to, until that pass takes it; and for a request that
     * waited, its ticket, released when a later pass is done.
     */
    private static final class Marked extends AtomicReference<String> {
        /** The mark of the requests that carry no cookie and forward nowhere (most of them): one shared. */
        static final Marked NONE = new Marked(null, null, null, null);

        private final AtomicReference<String> forward;
        /** The ticket of a request that waited (its permit held by the resumed request), else null. */
        final Ticket waited;
        final LongSupplier bytes;

        private Marked(String cookie, String forward, Ticket waited, LongSupplier bytes) {
            super(cookie);
            this.forward = forward == null ? null : new AtomicReference<>(forward);
            this.waited = waited;
            this.bytes = bytes;
        }

        static Marked of(String cookie, String forward) {
            return cookie == null && forward == null ? NONE : new Marked(cookie, forward, null, null);
        }

        static Marked waiting(String cookie, String forward, Ticket ticket, LongSupplier bytes) {
            return new Marked(cookie, forward, ticket, bytes);
        }

        /** Where to forward the resumed pass, once; null if nowhere. */
        String takeForward() {
            return forward == null ? null : forward.getAndSet(null);
        }

        /** Adds the admission cookie ({@code Set-Cookie}) of a newly admitted or renewed session, once. */
        void addCookie(HttpServletResponse response) {
            // read first: most requests share NONE, and a write to it from every request on every core would
            // bounce its cache line between them
            String c = get() == null ? null : getAndSet(null);
            if (c != null) {
                response.addHeader("Set-Cookie", c);
            }
        }
    }

    /**
     * Sets a request attribute, and throws when an attribute listener of the application failed, also where the
     * container catches the listener's exception itself (Tomcat keeps it in the request's
     * {@link RequestDispatcher#ERROR_EXCEPTION} attribute and goes on; a request suspended that way is then
     * dropped without an answer). An {@link IOException} there is not a listener's: Tomcat stores one when an HTTP/2
     * client resets the stream, which may happen at the same moment on another thread; the request ends anyway.
     *
     * @throws IllegalStateException carrying the listener's exception
     */
    public static void setAttribute(HttpServletRequest request, String name, Object value) {
        Object failedBefore = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        request.setAttribute(name, value);
        Object failed = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        if (failed != failedBefore && failed instanceof Throwable t && !(t instanceof IOException)) {
            throw new IllegalStateException("servlet-qos: setting the request attribute " + name + " failed", t);
        }
    }

    /**
     * Sets the request attributes of the ticket's class and content level as {@link #setAttribute} does each, but
     * reads the container's error attribute once before the three and once after them: on every request (issue 24).
     *
     * @throws IllegalStateException carrying an attribute listener's exception
     */
    static void label(HttpServletRequest request, Ticket ticket) {
        Object failedBefore = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        request.setAttribute(Responses.CLASS_ATTRIBUTE, ticket.serviceClass());
        request.setAttribute(Attributes.LEVEL, ticket.level());
        request.setAttribute(Attributes.LEVELS, ticket.levels());
        Object failed = request.getAttribute(RequestDispatcher.ERROR_EXCEPTION);
        if (failed != failedBefore && failed instanceof Throwable t && !(t instanceof IOException)) {
            throw new IllegalStateException("servlet-qos: setting the request attributes " + Responses.CLASS_ATTRIBUTE
                    + ", " + Attributes.LEVEL + " and " + Attributes.LEVELS + " failed", t);
        }
    }

    /** Answers the ticket's {@link Ticket#rejection() rejection} (a refused or expired request). */
    static void reject(Ticket ticket, HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        Responses.writeRejection(response, ticket.rejection(), request.getHeader("Accept"), request.getMethod());
    }

    /**
     * Releases the permit of a {@link Ticket.State#RUNNING RUNNING} ticket once the application is done with the
     * request: now, or, if the application went asynchronous, when the request completes. A stream candidate's
     * ({@link Ticket#streamCandidate()}) application that went asynchronous (an event stream, a long poll) gives
     * its permit back now instead ({@link Ticket#detach()}): its synchronous part ran under the permit, and the
     * open stream holds none. Call it on the thread that ran the application, after the application returned (also
     * when it threw). The adapter's own {@code startAsync()} (a waiting request) never gets here: the permit is
     * granted later, and the resumed pass, a new dispatch, is asynchronous only if its application started async
     * again.
     */
    static void releaseWhenDone(Ticket ticket, HttpServletRequest request, LongSupplier bytes) {
        // While this container thread has not returned, isAsyncStarted() is still true even if the application
        // already called complete() or dispatch(): the container defers both until the thread leaves, so the
        // listener added here cannot miss onComplete.
        if (!request.isAsyncStarted()) {
            ticket.complete(bytes.getAsLong());
            return;
        }
        try {
            request.getAsyncContext().addListener(new CompletionListener(ticket, bytes));
        } catch (IllegalStateException ex) {
            ticket.complete(bytes.getAsLong());
            return;
        }
        ticket.detach(); // a no-op for a request that is no stream candidate: it keeps its permit until onComplete
    }

    /** Releases the permit of a request whose application went asynchronous. */
    private static final class CompletionListener implements AsyncListener {
        private final Ticket ticket;
        private final LongSupplier bytes;

        CompletionListener(Ticket ticket, LongSupplier bytes) {
            this.ticket = ticket;
            this.bytes = bytes;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            ticket.complete(bytes.getAsLong());
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
}

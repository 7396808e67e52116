package dev.servletqos.jetty;

import dev.servletqos.QosEngine;
import dev.servletqos.Ticket;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.runtime.Waiting;
import java.util.concurrent.RejectedExecutionException;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.URIUtil;

/**
 * The request path of {@link QosHandler}: {@link QosEngine#enter} decides. A request that may run now goes on to the
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
 * so its {@code max-wait} ends it. When the handler stops, its runtime answers the waiting requests 503 with
 * {@code Retry-After} at once ({@link Waiting}; also one granted a permit meanwhile: it is not resumed into a
 * stopping handler). A resumed request the wrapped handler does not handle is answered 404 here (it was already
 * accepted), while one that ran at once is left to the server's default handler, as without this handler.
 * Stateless.
 */
final class HandlerRequests {

    private HandlerRequests() {
    }

    /** Handles a request through the running runtime {@code r}, in front of {@code next}; as {@link Handler#handle}. */
    static boolean handle(QosHandler handler, QosRuntime r, Handler next, Request request, Response response,
                          Callback callback) throws Exception {
        QosEngine e = r.engine();
        JettyRequestView view = new JettyRequestView(request);
        Ticket ticket = e.enter(view);
        Request served;
        try {
            request.setAttribute(QosHandler.CLASS_ATTRIBUTE, ticket.serviceClass());
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
                park(handler, r, ticket, next, request, served, response, callback);
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

    private static void park(QosHandler handler, QosRuntime r, Ticket ticket, Handler next, Request request,
                             Request served, Response response, Callback callback) {
        Waiting parked = r.waiting();
        Parked p = new Parked(handler, parked, r, ticket, next, request, served, response, callback);
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
        if (handler.getRuntime() != r) {
            // The handler began to stop after this request read the engine: its loop over the parked
            // requests may have run before this one was added, and the sweeper is stopping.
            p.abandon();
        }
    }

    /** A waiting request: resumed on a permit, answered on expiry, dropped when the client is gone. */
    private static final class Parked implements Ticket.Listener, Runnable, Waiting.Waiter {
        private final QosHandler handler;
        /** The requests waiting in the runtime the request entered: a stop answers them. */
        private final Waiting parked;
        /** The runtime the request entered. */
        private final QosRuntime entered;
        private final Ticket ticket;
        private final Handler next;
        private final Request request;
        /** The request the wrapped handler gets: {@link #request}, or its content level's path. */
        private final Request served;
        private final Response response;
        private final Callback callback;

        Parked(QosHandler handler, Waiting parked, QosRuntime entered, Ticket ticket, Handler next, Request request,
               Request served, Response response, Callback callback) {
            this.handler = handler;
            this.parked = parked;
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
        @Override
        public void abandon() {
            if (ticket.cancel()) {
                parked.remove(this);
                dispatch(this::refuse, this::refuse);
            }
        }

        /** Runs the wrapped handler with the permit now held, unless the handler is stopping. */
        @Override
        public void run() {
            if (handler.getRuntime() != entered) {
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
}

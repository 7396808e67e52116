package dev.servletqos.servlet;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.runtime.Waiting;
import dev.servletqos.ClassStats;
import dev.servletqos.QosEngine;
import dev.servletqos.RequestView;
import dev.servletqos.Ticket;
import dev.servletqos.policy.PolicyParser;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A waiting request that the container cannot resume with {@link AsyncContext#dispatch()}: Tomcat throws
 * {@code UnsupportedOperationException} from it for a path no servlet is mapped to. The request is still suspended
 * and nobody else will answer it, so the adapter answers it 503 on a container thread and releases its permit as
 * declined; nothing is thrown into the container, also when the permit is granted while the request is being parked
 * (the grant then reaches the listener on the parking thread, inside {@link Ticket#await}). The request, the response
 * and the asynchronous context are plain proxies that record what the adapter does with them.
 */
class ServletTicketsResumeTest {

    private final QosEngine engine = QosEngine.create(PolicyParser.parse(props("""
            classes = basic
            default-class = basic
            max-executing = 1
            class.basic.max-wait = 10s
            """), "test"));

    /** What the adapter did with the suspended request. */
    private final List<AsyncListener> listeners = new ArrayList<>();
    private final AtomicInteger dispatches = new AtomicInteger();
    private final AtomicInteger starts = new AtomicInteger();
    private final AtomicInteger completes = new AtomicInteger();
    private final AtomicInteger status = new AtomicInteger();
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();

    @AfterEach
    void stop() {
        engine.stop();
    }

    @Test
    void aGrantWhileTheRequestIsBeingParkedThatCannotBeDispatchedIsAnswered503() {
        Ticket running = engine.enter(view());
        Ticket waiting = engine.enter(view());
        assertEquals(Ticket.State.RUNNING, running.state());
        assertEquals(Ticket.State.PARKED, waiting.state());
        AtomicBoolean appRan = new AtomicBoolean();
        Waiting adapter = new Waiting();

        // The running request completes between the waiting one's entry and its await(): the grant comes inline.
        assertDoesNotThrow(() -> ServletTickets.serve(adapter, waiting, null, true, request(), response(),
                mark -> running.complete(), () -> appRan.set(true), path -> appRan.set(true), () -> 0, null));

        assertEquals(1, dispatches.get(), "the adapter tried to resume the request");
        assertFalse(appRan.get(), "nothing ran the application on the parking thread");
        assertEquals(1, starts.get(), "the answer is written on a container thread (AsyncContext.start)");
        assertEquals(503, status.get(), "answered 503");
        assertTrue(body.size() > 0, "with a body");
        assertEquals(1, completes.get(), "and completed");
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(0, basic.executing(), "the permit is released: " + basic);
        assertEquals(1, basic.declined(), "as declined, not served: " + basic);
        assertTrue(basic.reconciles(), basic.toString());
    }

    @Test
    void aRequestThatCannotBeResumedIsRefusedInsteadOfParked() throws Exception {
        Ticket running = engine.enter(view());
        Ticket waiting = engine.enter(view());
        assertEquals(Ticket.State.PARKED, waiting.state());
        AtomicBoolean appRan = new AtomicBoolean();

        ServletTickets.serve(new Waiting(), waiting, null, false, request(), response(),
                mark -> { }, () -> appRan.set(true), path -> appRan.set(true), () -> 0, null);

        assertEquals(0, dispatches.get() + starts.get(), "never suspended");
        assertFalse(appRan.get());
        assertEquals(503, status.get());
        running.complete();
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(1, basic.cancelled(), basic.toString());
        assertEquals(0, basic.declined() + basic.executing() + basic.queued(), basic.toString());
    }

    private static Properties props(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return p;
    }

    private static RequestView view() {
        return new RequestView() {
            @Override
            public String method() {
                return "GET";
            }

            @Override
            public String host() {
                return "127.0.0.1";
            }

            @Override
            public String path() {
                return "/nothing";
            }

            @Override
            public String remoteAddress() {
                return "127.0.0.1";
            }

            @Override
            public String cookie(String name) {
                return null;
            }

            @Override
            public String header(String name) {
                return null;
            }
        };
    }

    /** An HTTP/1.1 GET with no headers; startAsync() gives the recording asynchronous context. */
    private HttpServletRequest request() {
        AsyncContext async = (AsyncContext) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {AsyncContext.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "addListener" -> {
                        listeners.add((AsyncListener) args[0]);
                        yield null;
                    }
                    case "dispatch" -> {
                        dispatches.incrementAndGet();
                        throw new UnsupportedOperationException("no request dispatcher for the path (as Tomcat)");
                    }
                    case "start" -> {
                        starts.incrementAndGet();
                        ((Runnable) args[0]).run();
                        yield null;
                    }
                    case "complete" -> {
                        completes.incrementAndGet();
                        for (AsyncListener l : List.copyOf(listeners)) {
                            l.onComplete(null);
                        }
                        yield null;
                    }
                    case "getResponse" -> response();
                    default -> null;
                });
        return (HttpServletRequest) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletRequest.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "getProtocol" -> "HTTP/1.1";
                    case "getMethod" -> "GET";
                    case "startAsync" -> async;
                    case "isAsyncStarted" -> !listeners.isEmpty() && completes.get() == 0;
                    case "getHeaders" -> java.util.Collections.emptyEnumeration();
                    default -> m.getReturnType() == boolean.class ? false : null;
                });
    }

    /** Records the status and the body written. */
    private HttpServletResponse response() {
        ServletOutputStream out = new ServletOutputStream() {
            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener l) {
            }

            @Override
            public void write(int b) {
                body.write(b);
            }
        };
        return (HttpServletResponse) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {HttpServletResponse.class}, (proxy, m, args) -> switch (m.getName()) {
                    case "setStatus" -> {
                        status.set((Integer) args[0]);
                        yield null;
                    }
                    case "getOutputStream" -> out;
                    default -> m.getReturnType() == boolean.class ? false : null;
                });
    }
}

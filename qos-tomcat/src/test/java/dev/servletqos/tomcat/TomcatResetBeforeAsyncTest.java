package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http2.Http2Protocol;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.api.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tomcat's own handling, without servlet-qos (no valve, no filter): over h2c, when the client resets a stream
 * before the container thread running its request has returned, and the application has called {@code startAsync()}
 * on that thread, Tomcat 11.0.24 leaves the request's async state at MUST_ERROR (nothing completes it), its
 * post-processing throws, the connection ends with a connection error, and the request's Request/Response objects go
 * back to the HTTP/2 pool without being recycled: the next stream to take them, on any connection, is answered 500
 * with an empty body before any application code runs. The sequence, with Tomcat's classes and lines, is in
 * docs/security.md. This is why {@code ServletTickets} completes a parked request itself when its client resets it.
 *
 * <p>These tests pin down the defect on the Tomcat version the build uses: if the first one fails after a Tomcat
 * upgrade, Tomcat has fixed it; say so in docs/security.md.
 */
class TomcatResetBeforeAsyncTest {

    private static final int FOLLOWING = 10;

    @TempDir
    Path dir;

    private Tomcat tomcat;
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch wentAsync = new CountDownLatch(1);
    private final AtomicInteger onErrors = new AtomicInteger();
    private final AtomicInteger helloServed = new AtomicInteger();

    @AfterEach
    void stop() throws LifecycleException {
        if (tomcat != null) {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    @Test
    void theNextStreamGetsTheRequestObjectsOfAResetAsyncRequestAndIsAnswered500() throws Exception {
        List<H2cProbe.Answer> answers = resetOneThenAsk(false);
        // The stream that took the pooled objects that were not recycled: 500, empty, from Tomcat alone.
        assertEquals(1, Collections.frequency(answers, new H2cProbe.Answer(500, "")), answers.toString());
        assertEquals(FOLLOWING - 1, Collections.frequency(answers, new H2cProbe.Answer(200, "hello")),
                answers.toString());
        assertEquals(FOLLOWING - 1, helloServed.get(), "the 500 came before the application");
    }

    @Test
    void withoutReusingRequestObjectsTheNextStreamsAreServed() throws Exception {
        // Control: Http2Protocol's discardRequestsAndResponses: the stale objects are not reused, nothing else changes.
        List<H2cProbe.Answer> answers = resetOneThenAsk(true);
        assertEquals(Collections.nCopies(FOLLOWING, new H2cProbe.Answer(200, "hello")), answers);
        assertEquals(FOLLOWING, helloServed.get());
    }

    /**
     * Resets the stream of a request while the application runs it; the application goes asynchronous after the reset
     * arrived. Then sends {@value #FOLLOWING}
     * requests at once on a new connection and returns their answers.
     */
    private List<H2cProbe.Answer> resetOneThenAsk(boolean discardRequestsAndResponses) throws Exception {
        int port = start(discardRequestsAndResponses);
        try (H2cProbe probe = new H2cProbe(port)) {
            H2cProbe.Connection resetting = probe.connect();
            Stream stream = resetting.open("/async");
            assertTrue(arrived.await(10, TimeUnit.SECONDS), "the request reached the application");
            resetting.reset(stream);
            assertTrue(wentAsync.await(10, TimeUnit.SECONDS), "the request went asynchronous after the reset");
            // Tomcat told the application (AsyncListener.onError), then failed the connection: its post-processing
            // rejected the async state MUST_ERROR, which nothing had left.
            assertEquals(ErrorCode.INTERNAL_ERROR.code, resetting.goAway.get(10, TimeUnit.SECONDS),
                    "the connection of the reset stream ends with a connection error");
            assertEquals(1, onErrors.get());
            // At once, so that they take every Request/Response pair in the HTTP/2 pool (a stack).
            H2cProbe.Connection other = probe.connect();
            List<CompletableFuture<H2cProbe.Answer>> sent = new ArrayList<>();
            for (int i = 0; i < FOLLOWING; i++) {
                sent.add(other.send("/hello"));
            }
            List<H2cProbe.Answer> answers = new ArrayList<>();
            for (CompletableFuture<H2cProbe.Answer> f : sent) {
                answers.add(f.get(20, TimeUnit.SECONDS));
            }
            return answers;
        }
    }

    private int start(boolean discardRequestsAndResponses) throws LifecycleException {
        tomcat = new Tomcat();
        tomcat.setBaseDir(dir.resolve("tomcat").toString());
        tomcat.setHostname("127.0.0.1");
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        Http2Protocol h2 = new Http2Protocol();
        h2.setDiscardRequestsAndResponses(discardRequestsAndResponses);
        connector.addUpgradeProtocol(h2);
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Tomcat.addServlet(context, "async", new GoesAsyncAfterTheReset(arrived, wentAsync, onErrors))
                .setAsyncSupported(true);
        context.addServletMappingDecoded("/async", "async");
        Tomcat.addServlet(context, "hello", new Hello(helloServed));
        context.addServletMappingDecoded("/hello", "hello");
        tomcat.start();
        return connector.getLocalPort();
    }

    /**
     * Tells the test it runs, waits until the client's reset has arrived (Tomcat then keeps an IOException in the
     * request's error attribute), then calls {@code startAsync()} and returns, as an application that hands the
     * request to another thread does.
     */
    private static final class GoesAsyncAfterTheReset extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient CountDownLatch arrived;
        private final transient CountDownLatch wentAsync;
        private final transient AtomicInteger onErrors;

        GoesAsyncAfterTheReset(CountDownLatch arrived, CountDownLatch wentAsync, AtomicInteger onErrors) {
            this.arrived = arrived;
            this.wentAsync = wentAsync;
            this.onErrors = onErrors;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException {
            arrived.countDown();
            awaitReset(req);
            req.startAsync().addListener(new AsyncListener() {
                @Override
                public void onComplete(AsyncEvent event) {
                }

                @Override
                public void onTimeout(AsyncEvent event) {
                }

                @Override
                public void onError(AsyncEvent event) {
                    onErrors.incrementAndGet();
                }

                @Override
                public void onStartAsync(AsyncEvent event) {
                }
            });
            wentAsync.countDown();
        }
    }

    /** Waits (10 s at most) until Tomcat has seen the client reset the request's stream. */
    static void awaitReset(HttpServletRequest req) throws ServletException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!(req.getAttribute(RequestDispatcher.ERROR_EXCEPTION) instanceof IOException)) {
            if (System.nanoTime() - end > 0) {
                throw new ServletException("the client's reset did not arrive");
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ServletException(e);
            }
        }
    }

    private static final class Hello extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient AtomicInteger served;

        Hello(AtomicInteger served) {
            this.served = served;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            served.incrementAndGet();
            resp.setContentType("text/plain");
            resp.getWriter().write("hello");
        }
    }
}

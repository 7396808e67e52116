package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.client.CompletableResponseListener;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.StringRequestContent;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.ErrorCode;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.ResetFrame;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What is particular to {@link QosHandler} on a real Jetty server, over real HTTP/1.1 and h2c on 127.0.0.1:
 * HTTP/2 resets, bodies of parked requests under flow control, the idle-timeout check, live settings, stop. The
 * behaviour every adapter shares is in {@link QosHandlerBehaviourTest}.
 */
class QosHandlerTest {

    private static final String CLASSES = """
            classes = premium, basic
            default-class = basic
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            rule.1.trusted = true
            """;
    private static final int MAX_THREADS = 10;

    @TempDir
    Path dir;

    private EmbeddedJetty server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private void start(String policy) throws Exception {
        server = EmbeddedJetty.withHandler(dir, CLASSES + policy, MAX_THREADS);
    }

    @AfterEach
    void nothingLeaks() throws Exception {
        if (server != null) {
            try {
                server.awaitIdle();
                for (ClassStats c : server.snapshot().classes()) {
                    assertTrue(c.reconciles(), c.toString());
                }
                server.awaitState("no worker thread stays busy", Duration.ofSeconds(10),
                        () -> server.busyWorkerThreads() == 0);
            } finally {
                server.close();
            }
        }
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
                .timeout(Duration.ofSeconds(60));
    }

    private CompletableFuture<HttpResponse<String>> send(HttpRequest r) {
        return client.sendAsync(r, HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> get(HttpRequest r) throws Exception {
        return client.send(r, HttpResponse.BodyHandlers.ofString());
    }

    /** The refusals are written by Jetty-side code: the same statuses, headers and bodies as the valve's. */
    @Test
    void refusalsCarryRetryAfterNoStoreAndTheBodyTheClientAsksForAtTheMaximumWait() throws Exception {
        start("max-executing = 1\nclass.basic.max-queue = 2\nclass.basic.max-wait = 1s\n"
                + "admission.retry-after = 7s\n");
        CompletableFuture<HttpResponse<String>> running = send(request("/work?ms=3000").build());
        server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        long parkedAt = System.nanoTime();
        CompletableFuture<HttpResponse<String>> w1 = send(request("/work").build());
        CompletableFuture<HttpResponse<String>> w2 = send(request("/work").build());
        server.awaitState("two waiting", Duration.ofSeconds(10), () -> server.snapshot().queued() == 2);

        HttpResponse<String> full = get(request("/work").header("Accept", "application/json").build());
        assertEquals(503, full.statusCode());
        AdapterBehaviourSuite.assertRetryAfter(7, full);
        assertEquals("no-store", full.headers().firstValue("Cache-Control").orElse(null));
        assertTrue(full.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        assertTrue(full.body().contains("\"reason\":\"queue-full\""), full.body());

        HttpResponse<String> head = get(request("/work").method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build());
        assertEquals(503, head.statusCode());
        AdapterBehaviourSuite.assertRetryAfter(7, head);
        assertEquals("", head.body());

        for (CompletableFuture<HttpResponse<String>> w : List.of(w1, w2)) {
            HttpResponse<String> r = w.get();
            assertEquals(503, r.statusCode(), "expired after its maximum wait");
            AdapterBehaviourSuite.assertRetryAfter(7, r);
            assertTrue(r.headers().firstValue("Content-Type").orElse("").startsWith("text/html"));
            assertTrue(r.body().contains("Server busy"), r.body());
        }
        long waitedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - parkedAt);
        assertTrue(waitedMillis >= 1000 && waitedMillis < 2500, "answered after the 1 s wait: " + waitedMillis);
        assertEquals(200, running.get().statusCode());
        ClassStats basic = server.snapshot().get("basic");
        assertEquals(2, basic.expired());
        assertEquals(2, basic.queueFull());
    }

    @Test
    void aResumedRequestThatFailsReleasesItsPermit() throws Exception {
        start("max-executing = 1\n");
        CompletableFuture<HttpResponse<String>> blocker = send(request("/work?ms=300").build());
        server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> failing = send(request("/fail").build());
        CompletableFuture<HttpResponse<String>> missing = send(request("/nothing-here").build());
        server.awaitState("two waiting", Duration.ofSeconds(10), () -> server.snapshot().queued() == 2);
        assertEquals(200, blocker.get().statusCode());
        assertEquals(500, failing.get().statusCode());
        assertEquals(404, missing.get().statusCode());
        server.awaitIdle();
        // the request no handler took held a permit but was not served: declined, not completed
        assertEquals(2, server.snapshot().get("basic").completed());
        assertEquals(1, server.snapshot().get("basic").declined());
    }

    @Test
    void anH2cStreamResetWhileParkedCancelsTheWait() throws Exception {
        start("max-executing = 1\nclass.basic.max-wait = 20s\n");
        HTTP2Client h2 = new HTTP2Client();
        h2.start();
        try {
            Session session = h2.connect(new InetSocketAddress("127.0.0.1", server.port()), new Session.Listener() {
            }).get(10, TimeUnit.SECONDS);
            Stream running = session.newStream(h2Get("/work?ms=1000"), new Stream.Listener() {
            }).get(10, TimeUnit.SECONDS);
            server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
            Stream waiting = session.newStream(h2Get("/work"), new Stream.Listener() {
            }).get(10, TimeUnit.SECONDS);
            server.awaitState("one parked", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);

            waiting.reset(new ResetFrame(waiting.getId(), ErrorCode.CANCEL_STREAM_ERROR.code))
                    .get(10, TimeUnit.SECONDS);
            server.awaitState("the parked stream cancelled", Duration.ofSeconds(5),
                    () -> server.snapshot().get("basic").cancelled() == 1);
            ClassStats basic = server.snapshot().get("basic");
            assertEquals(0, basic.queued());
            assertEquals(1, basic.executing(), "the running stream keeps its permit");
            assertEquals(0, basic.expired());
            assertNotNull(running);
        } finally {
            h2.stop();
        }
        server.awaitIdle();
        assertEquals(1, server.snapshot().get("basic").completed());
        assertEquals(200, get(request("/work").build()).statusCode());
    }

    private HeadersFrame h2Get(String pathAndQuery) {
        MetaData.Request meta = new MetaData.Request("GET",
                HttpURI.from("http://127.0.0.1:" + server.port() + pathAndQuery), HttpVersion.HTTP_2,
                HttpFields.EMPTY);
        return new HeadersFrame(meta, null, true);
    }

    /** 300 KB: more than the socket buffers hold, so the client is still sending while its request waits. */
    @Test
    void aLargeBodyOfAParkedRequestIsReadableWhenItResumesOverHttp11() throws Exception {
        start("max-executing = 1\n");
        CompletableFuture<HttpResponse<String>> blocker = send(request("/work?ms=500").build());
        server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        String body = "item=42&qty=3&note=" + "x".repeat(300_000);
        CompletableFuture<HttpResponse<String>> post = send(request("/echo")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        server.awaitState("the POST waits", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);
        assertEquals(200, blocker.get().statusCode());
        HttpResponse<String> echoed = post.get();
        assertEquals(200, echoed.statusCode());
        assertEquals(body, echoed.body());
    }

    /** 300 KB over h2c: beyond HTTP/2's initial 64 KB flow-control window, so the rest flows only on resume. */
    @Test
    void aLargeBodyOfAParkedRequestIsReadableWhenItResumesOverH2c() throws Exception {
        start("max-executing = 1\n");
        org.eclipse.jetty.client.HttpClient h2 = new org.eclipse.jetty.client.HttpClient(
                new HttpClientTransportOverHTTP2(new HTTP2Client()));
        h2.start();
        try {
            CompletableFuture<HttpResponse<String>> blocker = send(request("/work?ms=500").build());
            server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
            String body = "item=42&qty=3&note=" + "y".repeat(300_000);
            CompletableFuture<ContentResponse> post = new CompletableResponseListener(
                    h2.POST("http://127.0.0.1:" + server.port() + "/echo")
                            .body(new StringRequestContent("text/plain", body))
                            .timeout(30, TimeUnit.SECONDS), 1 << 20).send();
            server.awaitState("the POST waits", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);
            assertEquals(200, blocker.get().statusCode());
            ContentResponse echoed = post.get(30, TimeUnit.SECONDS);
            assertEquals(200, echoed.getStatus());
            assertEquals(HttpVersion.HTTP_2, echoed.getVersion());
            assertEquals(body, echoed.getContentAsString());
        } finally {
            h2.stop();
        }
    }

    @Test
    void stoppingTheHandlerAnswersTheWaitingRequests() throws Exception {
        start("max-executing = 1\nclass.basic.max-wait = 20s\n");
        // Runs well past the stop below, so that no permit frees up while the handler stops.
        CompletableFuture<HttpResponse<String>> running = send(request("/work?ms=3000").build());
        server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> w1 = send(request("/work").build());
        CompletableFuture<HttpResponse<String>> w2 = send(request("/work").build());
        server.awaitState("two waiting", Duration.ofSeconds(10), () -> server.snapshot().queued() == 2);
        QosHandler qos = server.qos();
        QosEngine engine = qos.getEngine();

        qos.stop();
        // Nothing will grant them a permit any more: they are answered now, not left hanging for 20 s.
        for (CompletableFuture<HttpResponse<String>> w : List.of(w1, w2)) {
            HttpResponse<String> r = w.get(5, TimeUnit.SECONDS);
            assertEquals(503, r.statusCode());
            assertTrue(r.headers().firstValue("Retry-After").isPresent(), r.headers().map().toString());
        }
        assertEquals(200, running.get().statusCode());
        // the permit is released when the exchange completes, a moment after the client has read the response
        server.awaitState("the running request released", Duration.ofSeconds(5),
                () -> engine.snapshot().executing() == 0);
        EngineSnapshot last = engine.snapshot();
        assertEquals(2, last.get("basic").cancelled());
        assertEquals(0, last.executing() + last.queued());
        assertNull(qos.getEngine());

        qos.start();
        assertEquals("ok basic", get(request("/work").build()).body(), "a restarted handler has a new engine");
        server.awaitIdle();
        assertEquals(1, server.snapshot().get("basic").completed());
    }

    /**
     * Stops the handler while requests run, finish and hand their permits on to waiting ones, in several
     * rounds: whatever the interleaving, every client is answered (200 or 503 with Retry-After) long before
     * the 20 s max-wait, nothing stays executing or queued, and no request is run into the stopped wrapped
     * handler.
     */
    @Test
    void stoppingWhileRequestsRunAndWaitAnswersEveryClientAndRunsNothingIntoTheStoppedHandler() throws Exception {
        Files.writeString(dir.resolve("qos.properties"), CLASSES + "max-executing = 2\nclass.basic.max-wait = 20s\n");
        QosHandler qos = new QosHandler();
        qos.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty jetty = new EmbeddedJetty(qos, MAX_THREADS);
        AtomicInteger reached = new AtomicInteger();
        AtomicInteger intoStopped = new AtomicInteger();
        qos.setHandler(new Handler.Wrapper(jetty.app) {
            @Override
            public boolean handle(Request request, Response response, Callback callback) throws Exception {
                if (!isStarted()) {
                    intoStopped.incrementAndGet();
                }
                reached.incrementAndGet();
                return super.handle(request, response, callback);
            }
        });
        jetty.startServer();
        server = jetty;

        int refused = 0;
        for (int round = 0; round < 6; round++) {
            ClassStats before = server.snapshot().get("basic");
            int reachedBefore = reached.get();
            List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                // Short and staggered: permits keep passing from running requests to waiting ones.
                all.add(send(request("/work?ms=" + (60 + 15 * i)).build()));
            }
            // Stop once all eight entered and every one holding a permit reached the wrapped handler: one
            // that got its permit at once and is still on its way there would pass into it whenever the
            // stop happens (as with any handler). Permits go on being handed to waiting requests meanwhile.
            server.awaitState("all eight entered, those running in the application", Duration.ofSeconds(10),
                    () -> {
                        ClassStats b = server.snapshot().get("basic");
                        long inApplication = reached.get() - reachedBefore - (b.completed() - before.completed());
                        return b.entered() == before.entered() + 8 && b.executing() == inApplication;
                    });
            QosEngine engine = qos.getEngine();

            qos.stop();
            for (CompletableFuture<HttpResponse<String>> f : all) {
                HttpResponse<String> r = f.get(10, TimeUnit.SECONDS);
                if (r.statusCode() == 503) {
                    refused++;
                    assertTrue(r.headers().firstValue("Retry-After").isPresent(), r.headers().map().toString());
                } else {
                    assertEquals(200, r.statusCode(), r.body());
                }
            }
            AdapterBehaviourSuite.await("the stopped engine drained", Duration.ofSeconds(10), () -> {
                EngineSnapshot s = engine.snapshot();
                return s.executing() == 0 && s.queued() == 0;
            });
            assertTrue(engine.snapshot().get("basic").reconciles(), engine.snapshot().toString());
            assertNull(server.server.getAttribute(QosHandler.ENGINE_ATTRIBUTE));
            qos.start();
        }
        assertEquals(0, intoStopped.get(), "requests run into the stopped wrapped handler");
        assertTrue(refused > 0, "some waiting requests were answered by the stop");
    }

    /** The wrapped handler fails to start: the engine, its attribute and its sweeper are withdrawn again. */
    @Test
    void aFailedStartOfTheWrappedHandlerWithdrawsTheEngine() throws Exception {
        start("max-executing = 1\n");
        QosHandler qos = server.qos();
        qos.stop();
        qos.setHandler(new Handler.Abstract() {
            @Override
            protected void doStart() throws Exception {
                assertNotNull(qos.getEngine(), "published before the wrapped handler starts");
                throw new IllegalStateException("the application cannot start (on purpose)");
            }

            @Override
            public boolean handle(Request request, Response response, Callback callback) {
                return false;
            }
        });
        IllegalStateException e = assertThrows(IllegalStateException.class, qos::start);
        assertTrue(e.getMessage().contains("on purpose"), e.getMessage());
        assertNull(qos.getEngine());
        assertNull(server.server.getAttribute(QosHandler.ENGINE_ATTRIBUTE));
        assertEquals(0, qos.getExecuting());

        qos.setHandler(server.app);
        qos.start();
        assertEquals(qos.getEngine(), server.server.getAttribute(QosHandler.ENGINE_ATTRIBUTE));
        assertEquals("ok basic", get(request("/work").build()).body());
    }

    @Test
    void budgetsAndTheTotalChangeWhileRunning() throws Exception {
        start("max-executing = 1\nborrowing = false\n");
        CompletableFuture<HttpResponse<String>> first = send(request("/async?ms=3000").build());
        server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> second = send(request("/async?ms=10").build());
        CompletableFuture<HttpResponse<String>> third = send(request("/async?ms=10").build());
        server.awaitState("two waiting", Duration.ofSeconds(10), () -> server.snapshot().queued() == 2);

        server.qos().setMaxExecuting(3);
        assertEquals(3, server.qos().getMaxExecuting());
        assertEquals(2, server.snapshot().queued(), "basic's own budget is still 1");
        server.qos().setBudget("basic", 3);
        // The raised budget starts the waiting requests now, long before the first one finishes.
        assertEquals("async done", second.get(2, TimeUnit.SECONDS).body());
        assertEquals("async done", third.get(2, TimeUnit.SECONDS).body());
        assertTrue(!first.isDone(), "the first request is still running");

        server.qos().setBudget("basic", 1);
        assertEquals(1, server.qos().getBudget("basic"));
        assertEquals("premium=1, basic=1", server.qos().getBudgets());
        CompletableFuture<HttpResponse<String>> fourth = send(request("/work").build());
        server.awaitState("basic waits behind its lowered budget", Duration.ofSeconds(10),
                () -> server.snapshot().get("basic").queued() == 1);
        IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class,
                () -> server.qos().setBudget("gold", 1));
        assertTrue(unknown.getMessage().contains("gold"), unknown.getMessage());
        assertEquals(200, first.get().statusCode());
        assertEquals(200, fourth.get().statusCode());
    }

    @Test
    void theServiceClassAndTheEngineAreGivenToTheApplication() throws Exception {
        start("max-executing = 2\n");
        assertEquals("ok premium", get(request("/work").header("X-Tier", "premium").build()).body());
        assertEquals("ok basic", get(request("/work").build()).body());
        assertEquals(server.qos().getEngine(), server.server.getAttribute(QosHandler.ENGINE_ATTRIBUTE));
    }

    @Test
    void aReloadedPolicyMeetsTheSameIdleTimeoutCheckAsAtStart() throws Exception {
        Files.writeString(dir.resolve("qos.properties"), CLASSES + "class.basic.max-wait = 5s\n");
        QosHandler qos = new QosHandler();
        qos.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty jetty = new EmbeddedJetty(qos, MAX_THREADS);
        jetty.connector.setIdleTimeout(20_000);
        try {
            jetty.startServer();
            Files.writeString(dir.resolve("qos.properties"), CLASSES + "class.basic.max-wait = 30s\n");
            PolicyException e = assertThrows(PolicyException.class, () -> qos.getEngine().reloadPolicy());
            assertEquals("class.basic.max-wait", e.key());
            assertTrue(e.getMessage().contains("idleTimeout = 20000 ms"), e.getMessage());
            assertEquals(Duration.ofSeconds(5), qos.getEngine().policy().classes().get(1).queue().maxWait(),
                    "the policy in force stays");
            Files.writeString(dir.resolve("qos.properties"), CLASSES + "class.basic.max-wait = 15s\n");
            qos.getEngine().reloadPolicy();
            assertEquals(Duration.ofSeconds(15), qos.getEngine().policy().classes().get(1).queue().maxWait());
        } finally {
            jetty.close();
        }
    }

    @Test
    void startFailsWhenTheMaxWaitIsNotBelowTheConnectorsIdleTimeout() throws Exception {
        Files.writeString(dir.resolve("qos.properties"),
                CLASSES + "class.basic.max-wait = 30s\nclass.premium.max-wait = 5s\n");
        QosHandler qos = new QosHandler();
        qos.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty jetty = new EmbeddedJetty(qos, MAX_THREADS);
        jetty.connector.setIdleTimeout(20_000);
        PolicyException e = assertThrows(PolicyException.class, jetty::startServer);
        assertEquals("class.basic.max-wait", e.key());
        assertTrue(e.getMessage().contains("class.basic.max-wait = 30s"), e.getMessage());
        assertTrue(e.getMessage().contains("idleTimeout = 20000 ms"), e.getMessage());
        assertTrue(e.getMessage().contains("plus 1100 ms"), e.getMessage());
        assertTrue(e.getMessage().contains("127.0.0.1"), e.getMessage());
        assertNull(qos.getEngine());
        assertTrue(jetty.server.isFailed() || jetty.server.isStopped(), jetty.server.getState());

        // Below the idle timeout, but without room for the last sweep and a margin: refused too.
        Files.writeString(dir.resolve("qos.properties"), CLASSES + "class.basic.max-wait = 19s\n");
        QosHandler close = new QosHandler();
        close.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty closeJetty = new EmbeddedJetty(close, MAX_THREADS);
        closeJetty.connector.setIdleTimeout(20_000);
        PolicyException c = assertThrows(PolicyException.class, closeJetty::startServer);
        assertTrue(c.getMessage().contains("class.basic.max-wait = 19s"), c.getMessage());
        assertNull(closeJetty.server.getAttribute(QosHandler.ENGINE_ATTRIBUTE));

        // 18.5 s + 1.1 s is below 20 s.
        Files.writeString(dir.resolve("qos.properties"), CLASSES + "class.basic.max-wait = 18500ms\n");
        QosHandler fits = new QosHandler();
        fits.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty fitsJetty = new EmbeddedJetty(fits, MAX_THREADS);
        fitsJetty.connector.setIdleTimeout(20_000);
        try {
            fitsJetty.startServer();
            assertNotNull(fits.getEngine());
        } finally {
            fitsJetty.close();
        }

        // HTTP/2 streams may have an idle timeout of their own, shorter than the connector's.
        Files.writeString(dir.resolve("qos.properties"), CLASSES + "class.basic.max-wait = 12s\n");
        QosHandler h2 = new QosHandler();
        h2.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty h2Jetty = new EmbeddedJetty(h2, MAX_THREADS);
        h2Jetty.connector.getConnectionFactory(HTTP2CServerConnectionFactory.class).setStreamIdleTimeout(5_000);
        PolicyException s = assertThrows(PolicyException.class, h2Jetty::startServer);
        assertTrue(s.getMessage().contains("class.basic.max-wait = 12s"), s.getMessage());
        assertTrue(s.getMessage().contains("h2c streamIdleTimeout = 5000 ms"), s.getMessage());
    }

    @Test
    void startFailsOnABadPolicyNamingTheKeyAndValue() throws Exception {
        Files.writeString(dir.resolve("qos.properties"), CLASSES + "max-executing = 0\n");
        QosHandler qos = new QosHandler();
        qos.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty jetty = new EmbeddedJetty(qos, MAX_THREADS);
        PolicyException e = assertThrows(PolicyException.class, jetty::startServer);
        assertTrue(e.getMessage().contains("max-executing = 0"), e.getMessage());
        assertTrue(e.getMessage().contains("qos.properties"), e.getMessage());

        QosHandler missing = new QosHandler();
        missing.setPolicy(dir.resolve("nope.properties").toString());
        PolicyException m = assertThrows(PolicyException.class, new EmbeddedJetty(missing, MAX_THREADS)::startServer);
        assertTrue(m.getMessage().contains("nope.properties") && m.getMessage().contains("no such file"),
                m.getMessage());
    }

    /** Issue 11, finding 10: a session table that could not fit half of the heap. */
    @Test
    void startFailsOnASessionTableTooLargeForTheHeap() throws Exception {
        Files.writeString(dir.resolve("qos.properties"), CLASSES + "session-table.max-entries = 100000000\n");
        QosHandler qos = new QosHandler();
        qos.setPolicy(dir.resolve("qos.properties").toString());
        PolicyException e = assertThrows(PolicyException.class, new EmbeddedJetty(qos, MAX_THREADS)::startServer);
        assertTrue(e.getMessage().contains("session-table.max-entries = 100000000: "), e.getMessage());
    }
}

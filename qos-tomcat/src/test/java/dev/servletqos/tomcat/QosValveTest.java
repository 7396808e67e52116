package dev.servletqos.tomcat;

import static dev.servletqos.tomcat.EmbeddedTomcat.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The valve on a real embedded Tomcat, over real HTTP on 127.0.0.1. */
class QosValveTest {

    private static final String CLASSES = """
            classes = premium, basic
            default-class = basic
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            """;

    @TempDir
    Path dir;

    private EmbeddedTomcat server;
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private void start(String policy, int maxThreads) throws Exception {
        server = new EmbeddedTomcat(dir, CLASSES + policy, maxThreads);
    }

    @AfterEach
    void nothingLeaks() throws Exception {
        if (server != null) {
            try {
                server.awaitIdle();
                for (ClassStats c : server.snapshot().classes()) {
                    assertTrue(c.reconciles(), c.toString());
                }
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

    @Test
    void premiumIsServedBeforeWaitingBasicAndParkedRequestsHoldNoThread() throws Exception {
        start("max-executing = 2\nclass.basic.max-queue = 100\nclass.basic.max-wait = 60s\n", 10);
        List<CompletableFuture<HttpResponse<String>>> basic = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            basic.add(send(request("/work?ms=200").build()));
        }
        await("40 basic requests entered", Duration.ofSeconds(20),
                () -> server.snapshot().get("basic").entered() == 40);

        // 40 requests wait or run on a connector of 10 threads: waiting ones must hold none.
        AtomicInteger maxBusy = new AtomicInteger();
        int samples = 0;
        while (server.snapshot().get("basic").queued() >= 30) {
            maxBusy.accumulateAndGet(server.busyThreads(), Math::max);
            samples++;
            Thread.sleep(10);
        }
        assertTrue(samples >= 5, "sampled the busy threads while 30 or more were parked: " + samples);
        assertTrue(maxBusy.get() <= 2 + 2, "busy worker threads while 30+ parked: " + maxBusy.get());

        List<CompletableFuture<HttpResponse<String>>> premium = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            premium.add(send(request("/work?ms=200").header("X-Tier", "premium").build()));
        }
        await("3 premium requests entered", Duration.ofSeconds(20),
                () -> server.snapshot().get("premium").entered() == 3);
        long basicStartedBefore = server.started.stream().filter("basic"::equals).count();

        for (CompletableFuture<HttpResponse<String>> f : premium) {
            assertEquals(200, f.get().statusCode());
            assertEquals("ok premium", f.get().body());
        }
        for (CompletableFuture<HttpResponse<String>> f : basic) {
            assertEquals(200, f.get().statusCode());
        }
        int lastPremium = server.started.lastIndexOf("premium");
        long basicBeforeLastPremium = server.started.subList(0, lastPremium).stream().filter("basic"::equals).count();
        // At most the two permits already handed to basic when premium arrived may start in between.
        assertTrue(basicBeforeLastPremium <= basicStartedBefore + 2,
                "premium overtook the waiting basic requests: " + basicStartedBefore + " basic had started, "
                        + basicBeforeLastPremium + " before the last premium; order " + server.started);
        assertTrue(basicBeforeLastPremium < 30, "premium did not wait behind the basic queue: " + server.started);
    }

    @Test
    void aFullQueueAndTheMaximumWaitAnswer503WithRetryAfter() throws Exception {
        start("max-executing = 1\nclass.basic.max-queue = 2\nclass.basic.max-wait = 1s\n"
                + "admission.retry-after = 7s\n", 10);
        CompletableFuture<HttpResponse<String>> running = send(request("/work?ms=3000").build());
        await("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> w1 = send(request("/work").build());
        CompletableFuture<HttpResponse<String>> w2 = send(request("/work").build());
        await("two waiting", Duration.ofSeconds(10), () -> server.snapshot().queued() == 2);

        HttpResponse<String> full = client.send(request("/work").header("Accept", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(503, full.statusCode());
        assertEquals("7", full.headers().firstValue("Retry-After").orElse(null));
        assertTrue(full.body().contains("\"reason\":\"queue-full\""), full.body());

        for (CompletableFuture<HttpResponse<String>> w : List.of(w1, w2)) {
            HttpResponse<String> r = w.get();
            assertEquals(503, r.statusCode(), "expired after its maximum wait");
            assertEquals("7", r.headers().firstValue("Retry-After").orElse(null));
            assertTrue(r.body().contains("Server busy"), r.body());
        }
        assertEquals(200, running.get().statusCode());
        ClassStats basic = server.snapshot().get("basic");
        assertEquals(2, basic.expired());
        assertEquals(1, basic.queueFull());
    }

    @Test
    void anApplicationExceptionReleasesItsPermit() throws Exception {
        start("max-executing = 1\n", 10);
        for (int i = 0; i < 3; i++) {
            assertEquals(500, client.send(request("/fail").build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        }
        server.awaitIdle();
        assertEquals(200, client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        assertEquals(4, server.snapshot().get("basic").completed());
    }

    @Test
    void anAsyncApplicationHoldsItsPermitUntilItCompletes() throws Exception {
        start("max-executing = 1\n", 10);
        CompletableFuture<HttpResponse<String>> first = send(request("/async?ms=500").build());
        await("the async request runs", Duration.ofSeconds(10), () -> server.started.size() == 1);
        CompletableFuture<HttpResponse<String>> second = send(request("/async?ms=10").build());
        await("the second waits", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);
        assertEquals(1, server.snapshot().executing(), "the permit is held while the application is async");
        assertEquals("async done", first.get().body());
        assertEquals("async done", second.get().body());
        server.awaitIdle();
        assertEquals(2, server.snapshot().get("basic").completed());
    }

    @Test
    void aClientThatDisconnectsReleasesItsPermitAndItsPlaceInTheQueue() throws Exception {
        start("max-executing = 1\nclass.basic.max-wait = 1s\n", 10);
        Socket running = rawGet("/work?ms=2500");
        server.awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        Socket parked = rawGet("/work");
        server.awaitState("one parked", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);
        // Both clients hang up, one while its request runs and one while it waits.
        running.close();
        parked.close();
        server.awaitIdle();
        ClassStats basic = server.snapshot().get("basic");
        assertEquals(2, basic.entered());
        assertEquals(0, basic.executing() + basic.queued());
        // Tomcat does not notice an HTTP/1.1 client leaving: the parked one ends at its maximum wait (1 s),
        // the running one when the application finishes (2.5 s).
        assertEquals(1, basic.expired());
        assertEquals(1, basic.completed());
        assertEquals(200, client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).statusCode());
    }

    private Socket rawGet(String path) throws IOException {
        Socket s = new Socket("127.0.0.1", server.port());
        OutputStream out = s.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    @Test
    void whenPremiumQueuesUpNewBasicSessionsGet503ButAdmittedOnesAreServed() throws Exception {
        start("max-executing = 1\nadmission.higher-queued = 1\nadmission.retry-after = 30s\n", 10);
        HttpResponse<String> login = client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, login.statusCode());
        String setCookie = login.headers().firstValue("Set-Cookie").orElse(null);
        assertNotNull(setCookie, "a new session gets its admission cookie");
        String session = setCookie.substring(0, setCookie.indexOf(';'));

        CompletableFuture<HttpResponse<String>> p1 = send(request("/work?ms=1500").header("X-Tier", "premium").build());
        await("premium runs", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> p2 = send(request("/work").header("X-Tier", "premium").build());
        await("premium waits", Duration.ofSeconds(10), () -> server.snapshot().get("premium").queued() == 1);

        HttpResponse<String> newBasic = client.send(request("/work").header("Accept", "text/html").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(503, newBasic.statusCode());
        assertEquals("30", newBasic.headers().firstValue("Retry-After").orElse(null));
        assertTrue(newBasic.body().contains("cannot start a new visit"), newBasic.body());
        assertTrue(newBasic.headers().firstValue("Set-Cookie").isEmpty(), "a refused session is not admitted");

        HttpResponse<String> admitted = client.send(request("/work").header("Cookie", session).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, admitted.statusCode(), "an admitted session is not cut off halfway");
        assertEquals("ok basic", admitted.body());
        assertEquals(200, p1.get().statusCode());
        assertEquals(200, p2.get().statusCode());
        assertEquals(1, server.snapshot().get("basic").sessionsRefusedQueued());
    }

    @Test
    void aParkedRequestsBodyIsStillReadableWhenItResumes() throws Exception {
        start("max-executing = 1\n", 10);
        CompletableFuture<HttpResponse<String>> blocker = send(request("/work?ms=500").build());
        await("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        String body = "item=42&qty=3&note=" + "x".repeat(20_000);
        CompletableFuture<HttpResponse<String>> post = send(request("/echo")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        await("the POST waits", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);
        assertEquals(200, blocker.get().statusCode());
        assertEquals(body, post.get().body());
    }
}

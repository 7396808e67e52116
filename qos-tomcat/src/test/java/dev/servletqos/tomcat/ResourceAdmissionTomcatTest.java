package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.EngineSnapshot;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Token-bucket rules and virtual servers on a real Tomcat, over real HTTP (raw HTTP/1.1, so that each request can
 * name its Host): a request over its bucket gets the usual 503 with Retry-After; a virtual server keeps its
 * guarantee while another Host on the same server is overloaded (paper 000 figure 12).
 */
class ResourceAdmissionTomcatTest {

    /**
     * One permit and a queue of one for the one class: b.example overloads it at once. a.example has a guarantee
     * of 5 requests/s. A cookie bucket BULK=1 admits one request (depth 1) at 0.01/s; its law's gain is so small
     * that it cannot add a token during the test.
     */
    static final String POLICY = """
            classes = basic
            max-executing = 1
            class.basic.max-queue = 1
            vhost.a.hosts = a.example
            vhost.a.rmax = 5
            vhost.a.wmax = 10000000
            vhosts.request-cost = 0.01
            vhosts.byte-cost = 0
            bucket.bulk.cookie = BULK=1
            bucket.bulk.rate = 0.01
            bucket.bulk.min-rate = 0.01
            bucket.bulk.depth = 1
            buckets.cpu-gain = 0.001
            """;

    @TempDir
    Path dir;

    private EmbeddedTomcat tomcat;
    private final ExecutorService clients = Executors.newFixedThreadPool(32);

    @AfterEach
    void stop() throws Exception {
        clients.shutdownNow();
        if (tomcat != null) {
            tomcat.close();
        }
    }

    @Test
    void aRequestOverItsBucketGets503WithRetryAfter() throws Exception {
        tomcat = EmbeddedTomcat.withValve(dir, POLICY, 16);
        Response first = get("localhost", "/work", "BULK=1");
        Response second = get("localhost", "/work", "BULK=1");
        Response other = get("localhost", "/work", "BULK=2");
        assertEquals(200, first.status, first.text);
        assertEquals(503, second.status, second.text);
        long retryAfter = Long.parseLong(second.header("Retry-After"));
        assertTrue(retryAfter >= 8 && retryAfter <= 13, "the policy's 10 s, jittered: " + retryAfter);
        assertTrue(second.text.contains("\"reason\":\"bucket\""), second.text);
        assertEquals(200, other.status, "another cookie value is not the bucket's");
        EngineSnapshot.BucketStats s = tomcat.snapshot().bucket("bulk");
        assertEquals(2, s.hits());
        assertEquals(1, s.refused());
    }

    @Test
    void aVirtualServerKeepsItsGuaranteeWhileAnotherHostIsOverloaded() throws Exception {
        tomcat = EmbeddedTomcat.withValve(dir, POLICY, 16);
        // b.example: one request holds the only permit for 1.5 s, and twenty more arrive
        CompletableFuture<Response> holder = async("b.example", "/work?ms=1500");
        waitUntil(() -> tomcat.snapshot().executing() == 1);
        List<CompletableFuture<Response>> flood = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            flood.add(async("b.example", "/work?ms=300"));
        }
        waitUntil(() -> tomcat.snapshot().get("basic").rejected() >= 19);
        // a.example: four requests within its guarantee while b.example's queue is full
        List<CompletableFuture<Response>> guaranteed = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            guaranteed.add(async("a.example", "/work?ms=50"));
        }
        for (CompletableFuture<Response> a : guaranteed) {
            Response r = a.get(30, TimeUnit.SECONDS);
            assertEquals(200, r.status, "a.example is never refused for b.example's load: " + r.text);
        }
        int bServed = 0;
        int bRefused = 0;
        CompletableFuture<Response> queuedB = null;
        for (CompletableFuture<Response> b : flood) {
            Response r = b.get(30, TimeUnit.SECONDS);
            if (r.status == 200) {
                bServed++;
                queuedB = b;
            } else {
                assertEquals(503, r.status);
                bRefused++;
            }
        }
        assertEquals(200, holder.get(30, TimeUnit.SECONDS).status);
        assertEquals(1, bServed, "one of b.example's requests waited in the queue of one");
        assertEquals(19, bRefused, "the others found it full");
        assertTrue(queuedB.isDone());
        EngineSnapshot s = tomcat.snapshot();
        assertEquals(new EngineSnapshot.HostStats("a", 4, 4, s.host("a").guaranteedBytes()), s.host("a"));
        assertTrue(s.host("a").guaranteedBytes() > 0, "the guaranteed responses' bytes are counted");
        waitUntil(() -> tomcat.snapshot().executing() == 0 && tomcat.snapshot().queued() == 0);
    }

    @Test
    void theGuaranteedRequestIsServedBeforeTheOtherHostsWaitingOne() throws Exception {
        tomcat = EmbeddedTomcat.withValve(dir, POLICY, 16);
        CompletableFuture<Response> holder = async("b.example", "/work?ms=800");
        waitUntil(() -> tomcat.snapshot().executing() == 1);
        CompletableFuture<Response> waitingB = async("b.example", "/work?ms=400");
        waitUntil(() -> tomcat.snapshot().queued() == 1);
        CompletableFuture<Response> a = async("a.example", "/work?ms=10");
        waitUntil(() -> tomcat.snapshot().queued() == 2);
        Response ra = a.get(30, TimeUnit.SECONDS);
        assertEquals(200, ra.status);
        assertTrue(!waitingB.isDone(), "b.example's waiting request starts only after a.example's finished");
        assertEquals(200, waitingB.get(30, TimeUnit.SECONDS).status);
        assertEquals(200, holder.get(30, TimeUnit.SECONDS).status);
    }

    // ---- HTTP with a Host of our choosing

    record Response(int status, String head, String text) {
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    private CompletableFuture<Response> async(String host, String path) {
        return CompletableFuture.supplyAsync(() -> get(host, path, null), clients);
    }

    private Response get(String host, String path, String cookie) {
        try (Socket s = new Socket("127.0.0.1", tomcat.port())) {
            s.setSoTimeout(30_000);
            String request = "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nAccept: application/json\r\n"
                    + (cookie != null ? "Cookie: " + cookie + "\r\n" : "") + "Connection: close\r\n\r\n";
            OutputStream out = s.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            in.transferTo(all);
            String text = all.toString(StandardCharsets.UTF_8);
            int end = text.indexOf("\r\n\r\n");
            String head = end < 0 ? text : text.substring(0, end);
            int status = Integer.parseInt(head.substring(9, 12));
            return new Response(status, head, end < 0 ? "" : text.substring(end + 4));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("condition not reached in 20 s");
            }
            Thread.sleep(5);
        }
    }
}

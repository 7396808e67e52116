package dev.servletqos.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.Invariants;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.jetty.client.DuplexConnectionPool;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.client.Response;
import org.eclipse.jetty.client.Result;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.client.transport.HttpClientTransportOverHTTP2;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault-injection soak every servlet-qos adapter must survive (issue 11): over real HTTP/1.1 and over h2c on
 * 127.0.0.1, a seeded random mix of ordinary requests, application exceptions, asynchronous applications,
 * asynchronous timeouts, {@code sendError}, forward and include, long streamed responses, clients that close
 * while their request waits and while its response is being written (over HTTP/1.1 the connection is closed, over
 * HTTP/2 the stream is reset), while another thread changes max-executing and the budgets through the engine's
 * settings seam; under overload (far more requests in flight than permits), so that requests wait, expire and are
 * refused. It asserts that every client that did not close got an answer with a status its request allows, that
 * the engine's invariants ({@code dev.servletqos.Invariants}: counters reconcile, executing within the limits in
 * force, no reserve lent, nothing waits while it could start) hold at sampled snapshots and afterwards, and that
 * afterwards nothing executes or waits and no worker thread is busy.
 *
 * <h2>How to run it against an adapter</h2>
 * Subclass it like {@link AdapterBehaviourSuite} and implement {@link #start}: the same contract, plus
 * <ul>
 *   <li>the connector also speaks h2c, upgraded from HTTP/1.1 ({@code Upgrade: h2c}, as the JDK's
 *       {@code HttpClient} asks for it): Tomcat's {@code Http2Protocol} as the connector's upgrade protocol, Jetty's
 *       {@code HTTP2CServerConnectionFactory} beside its {@code HttpConnectionFactory};</li>
 *   <li>the application has the {@link SoakServlets} mounted beside the {@link TestServlets} (a Jetty core handler
 *       adapter wraps a servlet context that has both).</li>
 * </ul>
 *
 * <h2>Length</h2>
 * {@value #DEFAULT_REQUESTS} requests per protocol by default (CI), a few seconds each; {@code -Dsoak.requests=N}
 * for another count (the long run: 10^6), {@code -Dsoak.seed=S} to replay a mix (each run prints its seed),
 * {@code -Dsoak.inFlight=N} for the clients' concurrency (default 48), {@code -Dsoak.kinds=WORK,ASYNC_TIMEOUT} to send
 * only the kinds named (see {@link Kind}).
 */
public abstract class FaultInjectionSoakSuite {

    public static final int DEFAULT_REQUESTS = 2000;
    static final int REQUESTS = Integer.getInteger("soak.requests", DEFAULT_REQUESTS);
    static final int IN_FLIGHT = Integer.getInteger("soak.inFlight", 48);
    /** Request threads of the container: more than the highest max-executing the soak sets, fewer than in flight. */
    protected static final int MAX_THREADS = 16;
    /** The longest any request may take to be answered: max-wait, the work, the async timeouts, a loaded machine. */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(60);

    /** Two classes by header (see {@link AdapterBehaviourSuite#CLASSES}), short waits, small queues. */
    static final String POLICY = AdapterBehaviourSuite.CLASSES + """
            max-executing = 4
            class.premium.max-queue = 30
            class.premium.max-wait = 2s
            class.basic.max-queue = 30
            class.basic.max-wait = 1s
            admission.retry-after = 1s
            """;

    @TempDir
    protected Path dir;

    protected QosServer server;

    private SoakClient client;

    /**
     * Starts the adapter under test: {@link AdapterBehaviourSuite#start}'s contract, with h2c on the connector and
     * the {@link SoakServlets} mounted (see the class documentation).
     */
    protected abstract QosServer start(Path dir, String policyText, int maxThreads) throws Exception;

    /** What one request of the mix does. */
    enum Kind {
        WORK, STREAM, FAIL, ASYNC, ASYNC_TIMEOUT, SEND_ERROR, FORWARD, INCLUDE, CLOSE_EARLY, CLOSE_MID_RESPONSE
    }

    private static final Kind[] KINDS = Kind.values();
    /** Relative weights of {@link #KINDS}, in order. */
    private static final int[] WEIGHTS = {30, 6, 8, 10, 4, 7, 7, 7, 12, 6};

    /**
     * Whether the h2c soak's clients reset streams (closing while parked and mid-response). True unless the container
     * under test cannot take it; a subclass that says false must say why.
     */
    protected boolean resetStreamsOverH2c() {
        return true;
    }

    @Test
    protected void soakOverHttp11() throws Exception {
        soak(HttpClient.Version.HTTP_1_1);
    }

    @Test
    protected void soakOverH2c() throws Exception {
        soak(HttpClient.Version.HTTP_2);
    }

    /**
     * Issue 11, finding 3: an HTTP/2 client that resets the stream of a request while it waits frees its place in the
     * queue at once (the ticket is CANCELLED within half a second, long before its 2 s maximum wait), so it stops
     * counting toward the queue triggers and the queue bound. Every container tells the adapter of a reset: Jetty's
     * failure listener and the servlet {@code AsyncListener.onError} of Tomcat and Jetty. Over HTTP/1.1 neither
     * container notices a client that closes while its request waits (no read is pending on the connection then):
     * see {@link AdapterBehaviourSuite}'s disconnect scenario, where the request ends at its maximum wait.
     */
    @Test
    protected void aStreamResetWhileWaitingFreesItsPlaceAtOnce() throws Exception {
        server = start(dir, AdapterBehaviourSuite.CLASSES + "max-executing = 1\nclass.premium.max-wait = 2s\n"
                + "class.basic.max-wait = 2s\n",
                MAX_THREADS);
        client = new JettyH2cClient();
        URI base = URI.create("http://127.0.0.1:" + server.port());
        CompletableFuture<Outcome> running = client.send(base.resolve(TestApp.WORK + "?ms=1500"), true, -1, -1);
        AdapterBehaviourSuite.await("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        CompletableFuture<Outcome> waiting = client.send(base.resolve(TestApp.WORK), true, 10_000, -1);
        AdapterBehaviourSuite.await("one waiting", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);
        // Suspended: only the running request holds a thread (the waiting one's has gone back to the pool).
        AdapterBehaviourSuite.await("the waiting request suspended", Duration.ofSeconds(10),
                () -> server.busyWorkerThreads() == 1);
        long resetAt = System.nanoTime();
        ((JettyH2cClient) client).closeAll();
        assertEquals(Outcome.CLOSED, waiting.get(10, TimeUnit.SECONDS).status());
        AdapterBehaviourSuite.await("the reset request left the queue", Duration.ofSeconds(1),
                () -> server.snapshot().queued() == 0);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - resetAt);
        ClassStats premium = server.snapshot().get("premium");
        assertEquals(1, premium.cancelled(), premium.toString());
        assertEquals(0, premium.expired(), premium.toString());
        assertTrue(millis < 500, "cancelled " + millis + " ms after the reset");
        assertEquals(200, running.get(10, TimeUnit.SECONDS).status());
        AdapterBehaviourSuite.await("idle", Duration.ofSeconds(10), () -> server.snapshot().executing() == 0);
        assertTrue(server.snapshot().get("premium").reconciles());
    }

    /**
     * Issue 11, finding 5: the refusal of a request that waited is written on a container thread of its own, never on
     * the thread that expired it. An HTTP/2 client that grants no flow-control window (initial window 0) takes its
     * 503's headers but never its body, and holds the thread writing it until the container's write timeout; were
     * that the engine's expiry sweep (or another arriving request's thread), no other waiting request would be
     * answered at its maximum wait. Here another request that waits meanwhile is still refused at its 1 s maximum
     * wait, not served when the permit comes free after 6 s.
     */
    @Test
    protected void aClientThatReadsNothingHoldsUpNoOtherRequestsRefusal() throws Exception {
        server = start(dir, AdapterBehaviourSuite.CLASSES + "max-executing = 1\nclass.premium.max-wait = 2s\n"
                + "class.basic.max-wait = 1s\n",
                MAX_THREADS);
        URI base = URI.create("http://127.0.0.1:" + server.port());
        HttpClient http11 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        CompletableFuture<HttpResponse<String>> running = http11.sendAsync(HttpRequest.newBuilder(
                base.resolve(TestApp.ASYNC + "?ms=6000")).build(), HttpResponse.BodyHandlers.ofString());
        AdapterBehaviourSuite.await("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        HTTP2Client h2 = new HTTP2Client();
        h2.start();
        try {
            Session session = h2.connect(new InetSocketAddress("127.0.0.1", server.port()), new Session.Listener() {
                @Override
                public Map<Integer, Integer> onPreface(Session s) {
                    return Map.of(SettingsFrame.INITIAL_WINDOW_SIZE, 0);
                }
            }).get(10, TimeUnit.SECONDS);
            CompletableFuture<Integer> stalledStatus = new CompletableFuture<>();
            MetaData.Request get = new MetaData.Request("GET", HttpURI.from(base.resolve(TestApp.WORK).toString()),
                    HttpVersion.HTTP_2, HttpFields.EMPTY);
            session.newStream(new HeadersFrame(get, null, true), new Stream.Listener() {
                @Override
                public void onHeaders(Stream stream, HeadersFrame frame) {
                    stalledStatus.complete(((MetaData.Response) frame.getMetaData()).getStatus());
                }
            }).get(10, TimeUnit.SECONDS);
            assertEquals(503, stalledStatus.get(10, TimeUnit.SECONDS), "the stalled stream expired");

            long sentAt = System.nanoTime();
            HttpResponse<String> next = http11.send(HttpRequest.newBuilder(base.resolve(TestApp.WORK))
                    .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.ofString());
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
            assertEquals(503, next.statusCode(), "answered at its 1 s maximum wait, not when the permit came free "
                    + "after " + millis + " ms");
            assertTrue(millis < 3000, "answered " + millis + " ms after it was sent, max-wait 1 s");
            assertEquals(2, server.snapshot().get("basic").expired());
        } finally {
            h2.stop();
        }
        assertEquals(200, running.get(20, TimeUnit.SECONDS).statusCode());
        AdapterBehaviourSuite.await("idle", Duration.ofSeconds(10), () -> server.snapshot().executing() == 0);
        assertTrue(server.snapshot().get("basic").reconciles());
    }

    @AfterEach
    void closeServer() throws Exception {
        try {
            if (client != null) {
                client.close();
            }
        } finally {
            if (server != null) {
                server.close();
            }
        }
    }

    private void soak(HttpClient.Version version) throws Exception {
        long seed = Long.getLong("soak.seed", new Random().nextLong());
        String run = getClass().getSimpleName() + " " + version + " seed " + seed + " (-Dsoak.seed=" + seed + ")";
        System.out.println("soak: " + run + ", " + REQUESTS + " requests, " + IN_FLIGHT + " in flight");
        server = start(dir, POLICY, MAX_THREADS);
        QosEngine engine = server.engine();
        Invariants invariants = new Invariants(engine.policy(), engine.snapshot());
        client = version == HttpClient.Version.HTTP_1_1 ? new JdkClient() : new JettyH2cClient();
        SplittableRandom random = new SplittableRandom(seed);
        Semaphore inFlight = new Semaphore(IN_FLIGHT);
        Map<Kind, Map<Integer, AtomicInteger>> statuses = new EnumMap<>(Kind.class);
        for (Kind k : KINDS) {
            statuses.put(k, new ConcurrentHashMap<>());
        }
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicInteger closedByClient = new AtomicInteger();
        AtomicInteger lost = new AtomicInteger();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong settingsChanges = new AtomicLong();
        AtomicLong checks = new AtomicLong();
        Thread operator = new Thread(() -> changeSettings(engine, invariants, new SplittableRandom(seed ^ 0x5eed),
                stop, settingsChanges, checks, failures), "soak-operator");
        operator.setDaemon(true);
        long started = System.nanoTime();
        operator.start();
        try {
            for (int i = 0; i < REQUESTS; i++) {
                if (!inFlight.tryAcquire(ANSWER_WITHIN.toSeconds(), TimeUnit.SECONDS)) {
                    throw new AssertionError(run + ": no answer for " + ANSWER_WITHIN + " to any of " + IN_FLIGHT
                            + " requests in flight; engine: " + server.snapshot());
                }
                CompletableFuture<?> f = fire(client, pick(random), random.nextInt(100) < 30, random, statuses,
                        failures, closedByClient, lost);
                f.whenComplete((r, x) -> inFlight.release());
                if ((i & 1023) == 0) {
                    pending.removeIf(CompletableFuture::isDone);
                }
                if (i > 0 && i % 100_000 == 0) {
                    System.out.println("soak: " + run + ": " + i + " requests sent in "
                            + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - started) + " s");
                }
                pending.add(f);
                if (!failures.isEmpty() && failures.size() > 20) {
                    break;
                }
            }
            CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
                    .get(ANSWER_WITHIN.toSeconds(), TimeUnit.SECONDS);
        } finally {
            stop.set(true);
            operator.join(10_000);
        }
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);
        assertTrue(failures.isEmpty(), run + ": " + failures.size() + " failures, the first: "
                + failures.stream().limit(10).toList());

        try {
            AdapterBehaviourSuite.await("executing and queued back to zero", Duration.ofSeconds(30), () -> {
                EngineSnapshot s = server.snapshot();
                return s.executing() == 0 && s.queued() == 0;
            });
        } catch (AssertionError e) {
            throw new AssertionError(run + ": " + e.getMessage() + "; engine: " + server.snapshot()
                    + "; busy worker threads " + server.busyWorkerThreads() + "; statuses by kind " + statuses
                    + "; threads in the application: " + applicationThreads(), e);
        }
        EngineSnapshot end = server.snapshot();
        invariants.check(end, run + " after the load");
        for (ClassStats c : end.classes()) {
            assertTrue(c.reconciles(), run + ": counters reconcile: " + c);
        }
        AdapterBehaviourSuite.await("no worker thread stays busy", Duration.ofSeconds(20),
                () -> server.busyWorkerThreads() == 0);

        long entered = end.classes().stream().mapToLong(ClassStats::entered).sum();
        long expired = end.classes().stream().mapToLong(ClassStats::expired).sum();
        long cancelled = end.classes().stream().mapToLong(ClassStats::cancelled).sum();
        long rejected = end.classes().stream().mapToLong(ClassStats::rejected).sum();
        long granted = end.classes().stream().mapToLong(ClassStats::grants).sum();
        long waitedNanos = end.classes().stream().mapToLong(ClassStats::waitNanos).sum();
        String summary = run + ": " + REQUESTS + " requests in " + millis + " ms; engine: entered " + entered
                + ", completed " + end.classes().stream().mapToLong(ClassStats::completed).sum() + ", declined "
                + end.classes().stream().mapToLong(ClassStats::declined).sum() + ", rejected " + rejected
                + ", expired " + expired + ", cancelled " + cancelled + ", granted " + granted + " (waited "
                + TimeUnit.NANOSECONDS.toSeconds(waitedNanos) + " s in all)"
                + "; clients closed " + closedByClient + ", lost with their connection " + lost
                + "; settings changes " + settingsChanges + ", invariant checks "
                + checks + "; statuses by kind " + statuses;
        System.out.println("soak: " + summary);
        // The mix must really have overloaded the adapter: requests waited and were granted, and some were refused.
        assertTrue(waitedNanos > 0 && rejected + expired > 0, "no overload: " + summary);
        long answered = statuses.values().stream().flatMap(m -> m.values().stream()).mapToLong(AtomicInteger::get)
                .sum();
        assertEquals(REQUESTS, answered + closedByClient.get() + lost.get(), "every request answered or closed: "
                + summary);
        // Every answer came through the engine. (It may count a few more than were sent: the JDK's client sends a GET
        // again when a kept-alive connection turns out to have been closed by the server.)
        assertTrue(entered >= answered, "the engine counted " + entered + ": " + summary);
    }

    /** The weights in force: {@link #WEIGHTS}, or only the kinds {@code -Dsoak.kinds=WORK,FAIL,..} names. */
    private static final int[] IN_FORCE = weightsInForce(System.getProperty("soak.kinds"));

    private static int[] weightsInForce(String kinds) {
        int[] w = WEIGHTS.clone();
        if (kinds != null && !kinds.isBlank()) {
            List<String> named = List.of(kinds.split(","));
            for (int i = 0; i < KINDS.length; i++) {
                w[i] = named.contains(KINDS[i].name()) ? w[i] : 0;
            }
        }
        return w;
    }

    private static Kind pick(SplittableRandom random) {
        int total = 0;
        for (int w : IN_FORCE) {
            total += w;
        }
        int r = random.nextInt(total);
        for (int i = 0; i < KINDS.length; i++) {
            r -= IN_FORCE[i];
            if (r < 0) {
                return KINDS[i];
            }
        }
        throw new AssertionError();
    }

    /** The statuses a request of this kind may be answered with: its own, or a refusal. */
    private static boolean allowed(Kind kind, int status) {
        if (status == 503 || status == 429) {
            return true; // refused: full queue, maximum wait, admission
        }
        return switch (kind) {
            case WORK, STREAM, ASYNC, FORWARD, INCLUDE, CLOSE_EARLY, CLOSE_MID_RESPONSE -> status == 200;
            case FAIL, ASYNC_TIMEOUT -> status == 500;
            case SEND_ERROR -> status == SoakServlets.SEND_ERROR_STATUS;
        };
    }

    private CompletableFuture<?> fire(SoakClient client, Kind kind, boolean premium, SplittableRandom random,
                                      Map<Kind, Map<Integer, AtomicInteger>> statuses,
                                      ConcurrentLinkedQueue<String> failures, AtomicInteger closedByClient,
                                      AtomicInteger lost) {
        int ms = random.nextInt(20);
        long streamed = 1 + random.nextInt(200_000);
        String path = switch (kind) {
            case WORK -> TestApp.WORK + "?ms=" + ms;
            case STREAM -> SoakServlets.STREAM + "?bytes=" + streamed;
            case FAIL -> TestApp.FAIL;
            case ASYNC -> TestApp.ASYNC + "?ms=" + ms;
            case ASYNC_TIMEOUT -> SoakServlets.ASYNC_TIMEOUT + "?ms=" + (20 + random.nextInt(200));
            case SEND_ERROR -> SoakServlets.SEND_ERROR;
            case FORWARD -> SoakServlets.FORWARD + "?ms=" + ms;
            case INCLUDE -> SoakServlets.INCLUDE + "?ms=" + ms;
            case CLOSE_EARLY -> TestApp.WORK + "?ms=" + (5 + random.nextInt(100));
            case CLOSE_MID_RESPONSE -> SoakServlets.STREAM + "?bytes=" + (300_000 + random.nextInt(700_000));
        };
        // CLOSE_EARLY: the client gives up after a while, its request waiting, running, or answered by then.
        long cancelAfter = kind == Kind.CLOSE_EARLY ? random.nextInt(150) : -1;
        // CLOSE_MID_RESPONSE: the client reads the start of the body and closes.
        int readThenClose = kind == Kind.CLOSE_MID_RESPONSE ? 1 + random.nextInt(20_000) : -1;
        if (client instanceof JettyH2cClient && !resetStreamsOverH2c()) {
            cancelAfter = -1;
            readThenClose = -1;
        }
        String what = kind + " " + path + (premium ? " premium" : "");
        URI uri = URI.create("http://127.0.0.1:" + server.port() + path);
        return client.send(uri, premium, cancelAfter, readThenClose).thenAccept(o -> {
            if (o.failure() != null) {
                failures.add(what + ": " + o.failure());
            } else if (o.status() == Outcome.CLOSED) {
                closedByClient.incrementAndGet();
            } else if (o.status() == Outcome.LOST) {
                lost.incrementAndGet();
            } else {
                record(kind, o.status(), what + (o.errorBody() == null ? "" : " " + o.errorBody()), statuses,
                        failures);
                if (o.status() == 200 && kind == Kind.STREAM && o.bytes() != streamed) {
                    failures.add(what + ": " + o.bytes() + " bytes");
                }
            }
        });
    }

    /** What a client saw of one exchange. */
    record Outcome(int status, long bytes, Throwable failure, String errorBody) {
        Outcome(int status, long bytes, Throwable failure) {
            this(status, bytes, failure, null);
        }

        /** The client closed the exchange before it was answered. */
        static final int CLOSED = -1;
        /** The client was about to close it, and the container ended its connection first ({@link JettyH2cClient}). */
        static final int LOST = -2;
    }

    /**
     * One protocol's client: sends a GET and plays the client's part. The returned future never fails: a failure
     * is in the {@link Outcome}.
     */
    interface SoakClient {
        /**
         * @param cancelAfter   if not negative, the client closes the exchange after so many milliseconds (HTTP/1.1:
         *                      the connection; HTTP/2: the stream, reset) unless it was answered by then
         * @param readThenClose if not negative, the client reads so many bytes of a 200's body, then closes
         */
        CompletableFuture<Outcome> send(URI uri, boolean premium, long cancelAfter, int readThenClose);

        /** Stops the client's threads. */
        void close() throws Exception;
    }

    /**
     * HTTP/1.1 with the JDK's client. (Its HTTP/2, upgraded from HTTP/1.1, is not used: with JDK 17's client, after a
     * few hundred streams reset by the client every stream on the connection stalled, on Tomcat and Jetty alike, as if
     * the connection's flow-control window was used up; a client problem, not the adapters'.)
     */
    static final class JdkClient implements SoakClient {
        private final ExecutorService threads = Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "soak-http11-client");
            t.setDaemon(true);
            return t;
        });
        private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(threads).connectTimeout(Duration.ofSeconds(20)).build();

        @Override
        public CompletableFuture<Outcome> send(URI uri, boolean premium, long cancelAfter, int readThenClose) {
            HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(ANSWER_WITHIN).setHeader("Accept", "text/html");
            if (premium) {
                b.header("X-Tier", "premium");
            }
            HttpRequest request = b.build();
            if (cancelAfter >= 0) {
                CompletableFuture<HttpResponse<Void>> f = client.sendAsync(request,
                        HttpResponse.BodyHandlers.discarding());
                CompletableFuture.delayedExecutor(cancelAfter, TimeUnit.MILLISECONDS).execute(() -> f.cancel(true));
                return f.handle((r, x) -> x == null ? new Outcome(r.statusCode(), 0, null)
                        : cancelled(x) ? new Outcome(Outcome.CLOSED, 0, null) : new Outcome(0, 0, x));
            }
            if (readThenClose >= 0) {
                return client.sendAsync(request, HttpResponse.BodyHandlers.ofInputStream()).handle((r, x) -> {
                    if (x != null) {
                        return new Outcome(0, 0, x);
                    }
                    try (InputStream in = r.body()) {
                        long n = r.statusCode() == 200 ? in.readNBytes(readThenClose).length : in.readAllBytes().length;
                        return new Outcome(r.statusCode(), n, null);
                    } catch (IOException e) {
                        return new Outcome(0, 0, e);
                    }
                });
            }
            return client.sendAsync(request, HttpResponse.BodyHandlers.ofByteArray())
                    .handle((r, x) -> x == null ? new Outcome(r.statusCode(), r.body().length, null,
                            new String(r.body(), 0, Math.min(2000, r.body().length), StandardCharsets.ISO_8859_1))
                            : new Outcome(0, 0, x));
        }

        @Override
        public void close() {
            threads.shutdownNow();
        }
    }

    /**
     * h2c with prior knowledge, with Jetty's HTTP/2 client; closing resets the stream. The requests whose client
     * closes go on connections of their own, one stream at a time: Tomcat ends a connection with a connection error
     * when a reset arrives for a stream it finished and forgot a moment before (with many streams on a connection, the
     * reset and the end of the stream crossed), which fails every other stream on that connection. Should it happen
     * all the same, a request whose client meant to close it anyway and whose connection ended counts as
     * {@link Outcome#LOST}.
     */
    static final class JettyH2cClient implements SoakClient {
        private final org.eclipse.jetty.client.HttpClient plain = client(false);
        private final org.eclipse.jetty.client.HttpClient resetting = client(true);
        private final AtomicLong ids = new AtomicLong();
        /** The closes planned for later ({@code cancelAfter}), to run now with {@link #closeAll()}. */
        private final ConcurrentLinkedQueue<Runnable> toClose = new ConcurrentLinkedQueue<>();

        /** Closes now every exchange that was to be closed later (resets its stream). */
        void closeAll() {
            for (Runnable r; (r = toClose.poll()) != null; ) {
                r.run();
            }
        }

        JettyH2cClient() throws Exception {
            plain.start();
            resetting.start();
        }

        /** @param oneAtATime one stream at a time per connection (a connection is reused after its stream ended) */
        private static org.eclipse.jetty.client.HttpClient client(boolean oneAtATime) {
            HttpClientTransportOverHTTP2 transport = new HttpClientTransportOverHTTP2(new HTTP2Client());
            if (oneAtATime) {
                transport.setConnectionPoolFactory(destination -> new DuplexConnectionPool(destination, IN_FLIGHT));
            }
            org.eclipse.jetty.client.HttpClient c = new org.eclipse.jetty.client.HttpClient(transport);
            c.setConnectTimeout(20_000);
            // no cookie store: every request is its own client, as over HTTP/1.1 (the JDK's client keeps no cookies);
            // with Jetty's default store every request carried the first admission cookie, and the per-session limit
            // (admission.max-per-session) refused most of the soak with 429
            c.setHttpCookieStore(new org.eclipse.jetty.http.HttpCookieStore.Empty());
            return c;
        }

        @Override
        public CompletableFuture<Outcome> send(URI uri, boolean premium, long cancelAfter, int readThenClose) {
            boolean closes = cancelAfter >= 0 || readThenClose >= 0;
            Request request = (closes ? resetting : plain).newRequest(uri)
                    .timeout(ANSWER_WITHIN.toMillis(), TimeUnit.MILLISECONDS);
            request.headers(h -> h.put("X-Soak-Id", uri.toString() + "#" + ids.incrementAndGet()));
            if (premium) {
                request.headers(h -> h.put("X-Tier", "premium"));
            }
            CompletableFuture<Outcome> outcome = new CompletableFuture<>();
            AtomicBoolean closedByUs = new AtomicBoolean();
            AtomicLong bytes = new AtomicLong();
            StringBuffer errorBody = new StringBuffer();
            request.send(new Response.Listener() {
                @Override
                public void onContent(Response response, ByteBuffer content) {
                    if (response.getStatus() >= 500 && errorBody.length() < 2000) {
                        errorBody.append(StandardCharsets.ISO_8859_1.decode(content.duplicate()));
                    }
                    long n = bytes.addAndGet(content.remaining());
                    if (readThenClose >= 0 && response.getStatus() == 200 && n >= readThenClose
                            && closedByUs.compareAndSet(false, true)) {
                        response.abort(new CancellationException("the client closes mid-response"));
                    }
                }

                @Override
                public void onComplete(Result result) {
                    Response r = result.getResponse();
                    if (!result.isFailed()) {
                        outcome.complete(new Outcome(r.getStatus(), bytes.get(), null,
                                request.getHeaders().get("X-Soak-Id") + " " + errorBody));
                    } else if (closedByUs.get()) {
                        outcome.complete(readThenClose >= 0 ? new Outcome(200, bytes.get(), null)
                                : new Outcome(Outcome.CLOSED, 0, null));
                    } else if (closes) {
                        outcome.complete(new Outcome(Outcome.LOST, 0, null));
                    } else {
                        outcome.complete(new Outcome(0, 0, result.getFailure()));
                    }
                }
            });
            if (cancelAfter >= 0) {
                Runnable close = () -> {
                    if (!outcome.isDone() && closedByUs.compareAndSet(false, true)) {
                        request.abort(new CancellationException("the client closes"));
                    }
                };
                toClose.add(close);
                CompletableFuture.delayedExecutor(cancelAfter, TimeUnit.MILLISECONDS).execute(close);
            }
            return outcome;
        }

        @Override
        public void close() throws Exception {
            try {
                plain.stop();
            } finally {
                resetting.stop();
            }
        }
    }

    /** The stacks of the threads that are in the test application's or the adapter's code now, for a failure. */
    private static String applicationThreads() {
        StringBuilder b = new StringBuilder();
        Thread.getAllStackTraces().forEach((t, stack) -> {
            for (StackTraceElement e : stack) {
                if (e.getClassName().startsWith("dev.servletqos")) {
                    b.append("\n").append(t.getName()).append(" ").append(t.getState());
                    for (int i = 0; i < Math.min(stack.length, 25); i++) {
                        b.append("\n    at ").append(stack[i]);
                    }
                    break;
                }
            }
        });
        return b.toString();
    }

    /** Whether the client's own cancellation ended the exchange (the JDK wraps it in a CompletionException). */
    private static boolean cancelled(Throwable x) {
        for (Throwable t = x; t != null; t = t.getCause()) {
            if (t instanceof CancellationException) {
                return true;
            }
        }
        return false;
    }

    private static void record(Kind kind, int status, String what, Map<Kind, Map<Integer, AtomicInteger>> statuses,
                               ConcurrentLinkedQueue<String> failures) {
        statuses.get(kind).computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
        if (!allowed(kind, status)) {
            failures.add(what + ": status " + status);
        }
    }

    /**
     * The operator: every few milliseconds a new max-executing (1..6) and new budgets through the engine's
     * settings seam, and now and then a check of the invariants on a snapshot. The limits about to be put in force
     * are reported to the checker before they are applied (a grant under a new limit may come before the apply
     * returns), the clamped ones after.
     */
    private static void changeSettings(QosEngine engine, Invariants invariants, SplittableRandom random,
                                       AtomicBoolean stop, AtomicLong changes, AtomicLong checks,
                                       ConcurrentLinkedQueue<String> failures) {
        Settings initial = engine.settings();
        try {
            while (!stop.get()) {
                Thread.sleep(5 + random.nextInt(20));
                if (random.nextInt(3) == 0) {
                    invariants.check(engine.snapshot(), "sampled under load");
                    checks.incrementAndGet();
                    continue;
                }
                int max = 1 + random.nextInt(6);
                Settings now = engine.settings();
                int[] budgets = new int[now.classes().size()];
                for (int k = 0; k < budgets.length; k++) {
                    budgets[k] = random.nextInt(max + 1);
                }
                Settings proposed = now.withMaxExecuting(max).withBudgets(budgets);
                invariants.applied(proposed);
                invariants.applied(engine.apply(proposed, Settings.Source.OPERATOR));
                changes.incrementAndGet();
            }
            // End with the policy's limits, so that what waits drains at the usual pace.
            invariants.applied(initial);
            invariants.applied(engine.apply(initial, Settings.Source.OPERATOR));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (AssertionError | RuntimeException e) {
            failures.add("operator: " + e);
        }
    }
}

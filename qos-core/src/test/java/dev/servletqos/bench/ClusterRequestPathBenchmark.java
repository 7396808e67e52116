package dev.servletqos.bench;

import dev.servletqos.ClusterLink;
import dev.servletqos.Periodic;
import dev.servletqos.QosEngine;
import dev.servletqos.RequestView;
import dev.servletqos.Ticket;
import dev.servletqos.cluster.InMemoryClusterState;
import dev.servletqos.cluster.NodeReport;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The request path with the cluster on and off (issue 26): the same policy and requests, once with the engine alone
 * and once joined to a cluster whose exchange runs every 100 ms on a background thread, with another node reporting
 * 64 hot addresses (those the benchmark's new sessions come from), a cap on the class and 100 revoked subjects. The
 * request path reads only local fields; this measures that it costs nothing. Run on demand:
 * {@code qos-core/bench.sh ClusterRequestPath}.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1)
@State(Scope.Benchmark)
public class ClusterRequestPathBenchmark {

    /** {@code off}: the engine alone; {@code on}: in a cluster, exchanging every 100 ms. */
    @Param({"off", "on"})
    public String cluster;

    private static final int ADDRESSES = 1024;
    private final RequestView[] newcomers = new RequestView[ADDRESSES];
    private int next;
    private QosEngine engine;
    private RequestView admitted;
    private RequestView subscriber;
    private ScheduledExecutorService exchange;

    @Setup
    public void setUp() {
        // a session rate far above what one thread asks, the same in both: the cap, when on, is at it too
        String secret = "bench-secret-0123456789abcdef";
        QosPolicy policy = QosPolicy.builder().maxExecuting(64).secret(secret)
                .addClass(ClassPolicy.named("premium"))
                .addClass(ClassPolicy.named("basic").withSessionRate(1e6).withClusterSessionRate(
                        "on".equals(cluster) ? 2e6 : 0))
                .addRule(Rule.tierCookie()).build();
        engine = QosEngine.create(policy);
        // both run the engine's periodic work (sweep, control loop) on a thread of their own
        exchange = Executors.newSingleThreadScheduledExecutor();
        if ("on".equals(cluster)) {
            InMemoryClusterState store = new InMemoryClusterState();
            for (int i = 0; i < 100; i++) {
                store.revoke("revoked-" + i, Duration.ofDays(1));
            }
            ClusterLink.join(engine, store, "bench-1", Duration.ofMillis(100));
            List<NodeReport.Address> hot = new ArrayList<>();
            for (int i = 0; i < NodeReport.MAX_ADDRESSES; i++) {
                hot.add(new NodeReport.Address(address(i * 7), 2, 1, false));
            }
            String other = new NodeReport("bench-2", Map.of("basic", 5.0), Map.of(), hot, Map.of()).encode();
            exchange.scheduleWithFixedDelay(() -> store.exchange("bench-2", other, Duration.ofSeconds(1)), 0, 100,
                    TimeUnit.MILLISECONDS);
        }
        engine.start(Periodic.on(exchange));
        if ("on".equals(cluster)) {
            engine.cluster().exchangeNow().join();
        }
        Ticket first = engine.enter(new FixedRequest(null, null, "10.1.2.3", "text/html"));
        String setCookie = first.setCookieHeader();
        first.complete();
        admitted = new FixedRequest(setCookie.substring(setCookie.indexOf('=') + 1, setCookie.indexOf(';')), null,
                "10.1.2.3", "text/html");
        subscriber = new FixedRequest(null, engine.tierCookies().issue("premium", "subscriber"), "10.1.2.4",
                "text/html");
        for (int i = 0; i < ADDRESSES; i++) {
            newcomers[i] = new FixedRequest(null, null, address(i), "text/html");
        }
    }

    private static String address(int i) {
        return "10.9." + (i >> 8) + "." + (i & 255);
    }

    @TearDown
    public void tearDown() {
        engine.stop();
        exchange.shutdownNow();
    }

    /** A request of an admitted session (its admission cookie). */
    @Benchmark
    @Threads(1)
    public Ticket admittedSession() {
        Ticket t = engine.enter(admitted);
        t.complete();
        return t;
    }

    /** The first request of a new session, from one of 1024 addresses in turn (the cluster knows 64 of them). */
    @Benchmark
    @Threads(1)
    public Ticket newSession() {
        Ticket t = engine.enter(newcomers[next++ & (ADDRESSES - 1)]);
        t.complete();
        return t;
    }

    /** A request with a valid tier cookie and no session cookie (the revocation list is read). */
    @Benchmark
    @Threads(1)
    public Ticket tierCookie() {
        Ticket t = engine.enter(subscriber);
        t.complete();
        return t;
    }
}

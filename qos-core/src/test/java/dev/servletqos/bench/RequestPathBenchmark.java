package dev.servletqos.bench;

import dev.servletqos.QosEngine;
import dev.servletqos.RequestView;
import dev.servletqos.Ticket;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The request path of an admitted session when a permit is free: {@code enter} (session lookup by its
 * admission cookie, scheduling) and {@code complete} (release). Run on demand, not in CI:
 * {@code qos-core/bench.sh} (see its header), with {@code -prof gc} for allocation per operation.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1)
@State(Scope.Benchmark)
public class RequestPathBenchmark {

    private QosEngine engine;
    private RequestView admitted;

    /**
     * {@code fixed}: max-executing 64 given, no control law; {@code auto}: the minimal policy's self-tuning
     * capacity (the ceiling 64), whose request path also numbers the request's route.
     */
    @Param({"fixed", "auto"})
    public String capacity;

    /**
     * {@code full}: the session's class (two content levels) at its full level, where the level costs one read of
     * the settings; {@code degraded}: the class at m = 1.5, where the session's id is hashed on every request.
     */
    @Param({"full", "degraded"})
    public String level;

    /**
     * {@code on}: {@code admission.max-new-sessions-per-address} at its default, so that every new session counts in
     * the table of addresses (none is refused: no class rations here); {@code off}: 0, no table, the cost of the
     * switch itself.
     */
    @Param({"on", "off"})
    public String addressLimit;

    /** Cookie-less requests from {@value #ADDRESSES} client addresses, in turn: each the first of a new session. */
    private static final int ADDRESSES = 1024;
    private final RequestView[] newcomers = new RequestView[ADDRESSES];
    private int next;
    /** An API caller's request: no cookie, no Accept (a stateless request). */
    private final RequestView stateless = new FixedRequest(null, "10.7.7.7", null);

    @Setup
    public void setUp() {
        QosPolicy policy = QosPolicy.builder().maxExecuting(64).secret("bench-secret-0123456789abcdef")
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic").withLevels(2))
                .addRule(Rule.path("premium", "/premium/"))
                .admission(a -> "on".equals(addressLimit) ? a : a.withMaxNewSessionsPerAddress(0))
                .control(ControlPolicy.DEFAULTS.withCapacity("auto".equals(capacity) ? ControlPolicy.Capacity.AUTO
                        : ControlPolicy.Capacity.FIXED)).build();
        engine = QosEngine.create(policy);
        if ("degraded".equals(level)) {
            engine.update(s -> s.withClass(1, s.get(1).withLevel(1.5)));
        }
        admitted = admitOne();
        for (int i = 0; i < ADDRESSES; i++) {
            newcomers[i] = new FixedRequest(null, "10.9." + (i >> 8) + "." + (i & 255));
        }
    }

    /** The engine, after {@link #setUp}. */
    QosEngine engine() {
        return engine;
    }

    /** A new session's first request, completed: the request view of the session's later requests. */
    RequestView admitOne() {
        Ticket first = engine.enter(new FixedRequest(null));
        String setCookie = first.setCookieHeader();
        first.complete();
        return new FixedRequest(setCookie.substring(setCookie.indexOf('=') + 1, setCookie.indexOf(';')));
    }

    /** Each benchmark thread's own admitted session: the users of a server's two container threads. */
    @State(Scope.Thread)
    public static class OwnSession {
        RequestView admitted;

        @Setup
        public void setUp(RequestPathBenchmark bench) {
            admitted = bench.admitOne();
        }
    }

    @Benchmark
    @Threads(1)
    public Ticket admittedSessionOneThread() {
        Ticket t = engine.enter(admitted);
        t.complete();
        return t;
    }

    /**
     * The first request of a new session (no cookie; classified, admitted, its admission cookie signed and put in
     * the session table), from one of {@value #ADDRESSES} addresses in turn, and its completion.
     */
    @Benchmark
    @Threads(1)
    public Ticket newSessionOneThread() {
        RequestView r = newcomers[next++ & (ADDRESSES - 1)];
        Ticket t = engine.enter(r);
        t.complete();
        return t;
    }

    /** A stateless request (no cookie, not asking for HTML): admitted by request, no session, no cookie. */
    @Benchmark
    @Threads(1)
    public Ticket statelessOneThread() {
        Ticket t = engine.enter(stateless);
        t.complete();
        return t;
    }

    /**
     * Two threads, each its own admitted session, on one engine: with a permit free and nobody waiting neither takes
     * the scheduler's lock (issue 24), so on two cores the throughput ({@code -bm thrpt}) is about twice one
     * thread's.
     */
    @Benchmark
    @Threads(2)
    public Ticket admittedSessionTwoThreads(OwnSession own) {
        Ticket t = engine.enter(own.admitted);
        t.complete();
        return t;
    }

    /**
     * The machine's own ceiling for {@link #admittedSessionTwoThreads}: {@value #WORK} tokens of
     * {@link Blackhole#consumeCPU} (about as long as a request), which shares no memory, on one thread and on two. On
     * cores shared with other work two threads give less than twice one; the request path's ratio is read against
     * this one, measured in the same run ({@code qos-core/bench-ab.sh}).
     */
    @Benchmark
    @Threads(1)
    public void ceilingOneThread() {
        Blackhole.consumeCPU(WORK);
    }

    /** {@link #ceilingOneThread} on two threads. */
    @Benchmark
    @Threads(2)
    public void ceilingTwoThreads() {
        Blackhole.consumeCPU(WORK);
    }

    private static final int WORK = 120;

    @Benchmark
    @Threads(4)
    public Ticket admittedSessionFourThreads() {
        Ticket t = engine.enter(admitted);
        t.complete();
        return t;
    }
}

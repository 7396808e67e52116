package dev.servletqos.loadtests;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts user sessions and their requests while a simulation runs, per service class, and turns them into a
 * {@link RunSummary}. Only sessions that start inside the measurement window (after the ramp, while the load
 * holds) count, with all their requests; the whole run's session count is kept for reference.
 *
 * <p>Thread-safe: Gatling calls it from its event-loop threads.
 */
public final class SessionTally {

    private final LoadProfile profile;
    private final Map<String, ClassTally> classes = new LinkedHashMap<>();
    private volatile long t0 = System.nanoTime();

    public SessionTally(LoadProfile profile, List<String> classNames) {
        this.profile = profile;
        for (String c : classNames) {
            classes.put(c, new ClassTally());
        }
    }

    /** Marks the start of the injection (call it when it happens): the measurement window begins one ramp later. */
    public void start() {
        start(System.nanoTime());
    }

    /** {@link #start()} at a given {@code System.nanoTime()}. */
    void start(long nowNanos) {
        t0 = nowNanos;
    }

    /** Whether something that happened at {@code nanos} falls inside the measurement window. */
    boolean inWindow(long nanos) {
        long since = nanos - t0;
        long from = profile.ramp().toNanos();
        return since >= from && since < from + profile.hold().toNanos();
    }

    /**
     * A request of a session that started at {@code sessionStart} answered 2xx after {@code millis}. The
     * percentiles are over these and the {@link #timedOut timed-out} requests only.
     */
    public void served(String serviceClass, long sessionStart, long millis) {
        if (inWindow(sessionStart)) {
            tally(serviceClass).latencies.add(millis);
        }
    }

    /**
     * A request of a session that started at {@code sessionStart} got no answer within the client timeout: it
     * counts as the timeout in the percentiles. Refused (503) and otherwise failed requests are not response times
     * of the service (a refusal at the door takes a few ms and would pull p95 down); their sessions are counted by
     * {@link #session} under their outcome.
     */
    public void timedOut(String serviceClass, long sessionStart) {
        if (inWindow(sessionStart)) {
            tally(serviceClass).latencies.add(profile.timeout().toMillis());
        }
    }

    /** A session ended; {@code servedRequests} of its requests had answered 2xx. */
    public void session(String serviceClass, long sessionStart, Outcome outcome, int servedRequests) {
        ClassTally c = tally(serviceClass);
        c.allStarted.increment();
        if (outcome == Outcome.COMPLETED) {
            c.allCompleted.increment();
        }
        if (inWindow(sessionStart)) {
            c.outcomes.get(outcome).increment();
            c.servedRequests.add(servedRequests);
            if (outcome == Outcome.COMPLETED) {
                c.usefulRequests.add(servedRequests);
            }
        }
    }

    private ClassTally tally(String serviceClass) {
        ClassTally c = classes.get(serviceClass);
        if (c == null) {
            throw new IllegalArgumentException("unknown class " + serviceClass + "; classes are " + classes.keySet());
        }
        return c;
    }

    /** The counts so far. */
    public RunSummary summary(boolean tierCookie) {
        Map<String, RunSummary.ClassStats> stats = new LinkedHashMap<>();
        classes.forEach((name, c) -> stats.put(name, c.stats()));
        return new RunSummary(profile.label(), profile.capacity(), profile.load(), profile.premiumShare(),
                profile.ramp().toMillis() / 1000.0, profile.hold().toMillis() / 1000.0, profile.timeout().toMillis(),
                tierCookie, stats);
    }

    private static final class ClassTally {
        final EnumMap<Outcome, LongAdder> outcomes = new EnumMap<>(Outcome.class);
        final LongAdder allStarted = new LongAdder();
        final LongAdder allCompleted = new LongAdder();
        final LongAdder servedRequests = new LongAdder();
        final LongAdder usefulRequests = new LongAdder();
        final Latencies latencies = new Latencies();

        ClassTally() {
            for (Outcome o : Outcome.values()) {
                outcomes.put(o, new LongAdder());
            }
        }

        RunSummary.ClassStats stats() {
            Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);
            outcomes.forEach((o, n) -> counts.put(o, n.sum()));
            long[] ms = latencies.sorted();
            return new RunSummary.ClassStats(counts, allStarted.sum(), allCompleted.sum(), servedRequests.sum(),
                    usefulRequests.sum(), ms.length, percentile(ms, 50), percentile(ms, 95), percentile(ms, 99),
                    ms.length == 0 ? 0 : ms[ms.length - 1]);
        }
    }

    /** Nearest-rank percentile of sorted values; 0 when there are none. */
    static long percentile(long[] sorted, double p) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** Response times in milliseconds; a growing array under a lock (a few hundred adds a second). */
    private static final class Latencies {
        private long[] values = new long[1024];
        private int size;

        synchronized void add(long millis) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = millis;
        }

        synchronized long[] sorted() {
            long[] copy = Arrays.copyOf(values, size);
            Arrays.sort(copy);
            return copy;
        }
    }
}

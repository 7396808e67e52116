package dev.servletqos.sample.demo;

import dev.servletqos.ClassStats;
import dev.servletqos.ControlStatus;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.control.Sample;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * What one demo run measured, per second and per user type (premium, basic), as the clients saw it, plus
 * one engine sample per second. Seconds count from the start of the profile; a second's bucket holds the
 * events that happened in it (a session's arrival, a response, a session's end). Thread-safe: the load
 * generator's threads record, the demo's ticker reads.
 */
final class Recorder {

    /** The user types of the demo, the workload's classes, in this order everywhere (index 0 = premium). */
    static final List<String> TYPES = LoadGenerator.WORKLOAD.classNames();

    /** Per-second counters. */
    enum Counter {
        /** New sessions that arrived. */
        OFFERED,
        /** Sessions whose first request was answered 2xx. */
        ADMITTED,
        /** Sessions whose first request was refused (503 or 429): refused at the door, cheaply. */
        REFUSED,
        /** Sessions that completed: every request 2xx within the client timeout (by end time). */
        COMPLETED,
        /** Requests of the sessions that completed (useful work), counted when the session completed. */
        COMPLETED_REQUESTS,
        /** Admitted sessions that failed later: a 503, a timeout or an error mid-session (by end time). */
        FAILED,
        /** Sessions the generator gave up on itself (its concurrency cap, or the end of the run). */
        ABANDONED,
        /** Requests answered 2xx. */
        REQ_OK,
        /** Requests answered 503 or 429. */
        REQ_REFUSED,
        /** Requests without an answer within the client timeout. */
        REQ_TIMEOUT,
        /** Requests that failed otherwise (another status, a connection error). */
        REQ_ERROR,
        /** 2xx answers served from the degraded content tree. */
        REQ_DEGRADED
    }

    /** How a session ended. */
    enum Outcome {
        COMPLETED, REFUSED, REJECTED_MIDWAY, TIMEOUT, ERROR, ABANDONED_LIMIT, ABANDONED_END
    }

    /**
     * One session: its user type, when it started and ended (seconds from t0), whether its first request was
     * answered 2xx (admitted), how it ended, and how many requests it sent.
     */
    record SessionResult(int type, double start, double end, boolean admitted, Outcome outcome, int requests) {
    }

    /**
     * The server at the end of one second, sampled in-process: the pages the shop served, the back end's factor
     * and, with QoS on, the engine's snapshot, the period since the previous sample (per class queue delays
     * from the engine's wait histograms, {@link Sample#between}) and the control loop's status.
     *
     * @param pagesServed   the shop's page counter (since the server started)
     * @param backendFactor the back end's speed factor at the time
     * @param engine        the engine's snapshot; null with QoS off
     * @param period        the engine's counters since the previous sample; null with QoS off and for the first
     * @param control       the control loop's status; null with QoS off
     */
    record ServerSample(long pagesServed, double backendFactor, EngineSnapshot engine, Sample period,
                        ControlStatus control) {

        /** A sample of the page counter alone (QoS off, or a test). */
        static ServerSample pages(long pagesServed) {
            return new ServerSample(pagesServed, 1, null, null, null);
        }

        /** The engine's index of user type {@code type}'s class, or -1 (QoS off, or no such class). */
        int classIndex(int type) {
            if (engine != null) {
                for (int i = 0; i < engine.classes().size(); i++) {
                    if (engine.classes().get(i).name().equals(TYPES.get(type))) {
                        return i;
                    }
                }
            }
            return -1;
        }

        /** The engine's stats of user type {@code type}'s class, or null (QoS off, or no such class). */
        ClassStats stats(int type) {
            return engine == null ? null : engine.get(TYPES.get(type));
        }

        /** The budget of user type {@code type}'s class, or -1 when there is none. */
        int budget(int type) {
            ClassStats c = stats(type);
            return c == null ? -1 : c.budget();
        }
    }

    final long t0;
    final int seconds;
    private final AtomicLongArray counts;
    private final DelayBuckets[] delays;
    private final ServerSample[] samples;
    private volatile ServerSample baseline;
    final ConcurrentLinkedQueue<SessionResult> sessions = new ConcurrentLinkedQueue<>();

    /**
     * @param t0      {@link System#nanoTime()} at the start of the profile
     * @param seconds seconds to keep (events later than that go to the last second)
     */
    Recorder(long t0, int seconds) {
        this.t0 = t0;
        this.seconds = seconds;
        this.counts = new AtomicLongArray(seconds * TYPES.size() * Counter.values().length);
        this.delays = new DelayBuckets[seconds * TYPES.size()];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = new DelayBuckets();
        }
        this.samples = new ServerSample[seconds];
    }

    /** Seconds since t0 at {@code nanos}. */
    double at(long nanos) {
        return (nanos - t0) / 1e9;
    }

    int second(long nanos) {
        long s = (nanos - t0) / 1_000_000_000L;
        return (int) Math.max(0, Math.min(seconds - 1, s));
    }

    void add(Counter c, int type, long nanos) {
        counts.incrementAndGet(index(second(nanos), type, c));
    }

    void add(Counter c, int type, long nanos, long amount) {
        counts.addAndGet(index(second(nanos), type, c), amount);
    }

    /** The sum of a counter over seconds [from, to) for one type, or both when type is -1. */
    long sum(Counter c, int type, int from, int to) {
        long n = 0;
        for (int s = Math.max(0, from); s < Math.min(seconds, to); s++) {
            for (int t = 0; t < TYPES.size(); t++) {
                if (type < 0 || t == type) {
                    n += get(c, t, s);
                }
            }
        }
        return n;
    }

    long get(Counter c, int type, int second) {
        return counts.get(index(second, type, c));
    }

    private int index(int second, int type, Counter c) {
        return (second * TYPES.size() + type) * Counter.values().length + c.ordinal();
    }

    /** Records a request's delay (response time minus service time), in ms, in the second it ended. */
    void delay(int type, long nanos, double millis) {
        delays[second(nanos) * TYPES.size() + type].add(millis);
    }

    /** The delays recorded in one second, sorted. */
    double[] delays(int type, int second) {
        return delays[second * TYPES.size() + type].sorted();
    }

    /** The delays recorded in seconds [from, to), sorted. */
    double[] delays(int type, int from, int to) {
        List<double[]> parts = new ArrayList<>();
        int n = 0;
        for (int s = Math.max(0, from); s < Math.min(seconds, to); s++) {
            double[] d = delays(type, s);
            parts.add(d);
            n += d.length;
        }
        double[] all = new double[n];
        int i = 0;
        for (double[] d : parts) {
            System.arraycopy(d, 0, all, i, d.length);
            i += d.length;
        }
        Arrays.sort(all);
        return all;
    }

    void sample(int second, ServerSample s) {
        if (second >= 0 && second < seconds) {
            samples[second] = s;
        }
    }

    ServerSample sample(int second) {
        return second >= 0 && second < seconds ? samples[second] : null;
    }

    /** Sets the engine's state at t0 (the end of "second -1"): the counters' baseline for the first phase. */
    void baseline(ServerSample s) {
        baseline = s;
    }

    /** A sample and the second it ends ({@code -1}: the baseline at t0). */
    record SampleAt(int second, ServerSample sample) {
    }

    /**
     * The sample at the end of {@code second}, or else the nearest earlier one (a tick may be missed), or else
     * the baseline taken at t0; null when there is none of these.
     */
    SampleAt sampleAtOrBefore(int second) {
        for (int s = Math.min(second, seconds - 1); s >= 0; s--) {
            ServerSample x = samples[s];
            if (x != null) {
                return new SampleAt(s, x);
            }
        }
        ServerSample b = baseline;
        return b == null ? null : new SampleAt(-1, b);
    }

    /** The p-th percentile (0..100) of sorted values, NaN when there are none (nearest rank). */
    static double percentile(double[] sorted, double p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int rank = (int) Math.ceil(p / 100 * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    /** A growable, synchronized list of doubles. */
    private static final class DelayBuckets {
        private double[] values = new double[16];
        private int size;

        synchronized void add(double v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        synchronized double[] sorted() {
            double[] d = Arrays.copyOf(values, size);
            Arrays.sort(d);
            return d;
        }
    }
}

package dev.servletqos.status;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.control.UtilizationStatus;
import java.util.ArrayList;
import java.util.List;

/**
 * The last minutes of an engine as a status page charts them: a ring buffer of points, fed by the page's own
 * reads of {@link dev.servletqos.QosEngine#snapshot()} (no thread of its own: while nobody reads the page, no
 * point is added). A read adds a point when at least {@code step} has passed on the engine's clock since the
 * last one, so several viewers polling at once add no more points than one; the buffer keeps the newest
 * {@code capacity} points and drops the oldest. Rates and the delay are over the time between a point and the
 * one before it. Thread-safe.
 */
public final class StatusHistory {

    /** Points kept by default: ten minutes at one point a second. */
    public static final int DEFAULT_CAPACITY = 600;
    /** The least time between two points by default, in milliseconds. */
    public static final long DEFAULT_STEP_MILLIS = 1000;

    private final Point[] ring;
    private final long stepNanos;
    /** Guarded by {@code this}: the next slot, and how many slots hold a point. */
    private int next;
    private int size;
    /** Guarded by {@code this}: the snapshot the newest point was made of, for the next point's differences. */
    private EngineSnapshot last;

    /** A history of {@value #DEFAULT_CAPACITY} points at least {@value #DEFAULT_STEP_MILLIS} ms apart. */
    public StatusHistory() {
        this(DEFAULT_CAPACITY, DEFAULT_STEP_MILLIS);
    }

    /**
     * @param capacity   points kept, 2..100000
     * @param stepMillis the least time between two points, 1..3600000 ms
     */
    public StatusHistory(int capacity, long stepMillis) {
        if (capacity < 2 || capacity > 100_000) {
            throw new IllegalArgumentException("capacity = " + capacity + ": must be 2..100000");
        }
        if (stepMillis < 1 || stepMillis > 3_600_000) {
            throw new IllegalArgumentException("stepMillis = " + stepMillis + ": must be 1..3600000");
        }
        this.ring = new Point[capacity];
        this.stepNanos = stepMillis * 1_000_000;
    }

    /**
     * One moment of the engine. The rates and the delay are over the time since the point before, and NaN for
     * the first point (or when a class granted no permit in between, for the delay).
     *
     * @param epochMillis  when, on the wall clock
     * @param maxExecuting the limit over all classes
     * @param ceiling      the capacity law's ceiling of {@code maxExecuting}
     * @param executing    requests holding a permit, all classes
     * @param queued       requests waiting, all classes
     * @param utilization  the utilization the degradation law measured in its last period, 0..1 (NaN without a
     *                     degradation law or before its first period)
     * @param estimated    the law's model of it, {@code a R + b W + c D} (NaN as above)
     * @param classes      per class, highest priority first
     */
    public record Point(long epochMillis, int maxExecuting, int ceiling, int executing, int queued,
                        double utilization, double estimated, List<ClassPoint> classes) {
        public Point {
            classes = List.copyOf(classes);
        }
    }

    /**
     * One class at one moment.
     *
     * @param queued            requests waiting
     * @param executing         requests holding a permit
     * @param budget            its budget
     * @param delayTargetMillis its delay target, ms
     * @param waitMillis        the mean wait of the requests granted a permit since the point before, ms
     * @param admittedPerSecond new sessions admitted a second
     * @param rejectedPerSecond requests refused at entry a second (refused new sessions and full queues)
     * @param expiredPerSecond  requests that waited past their maximum wait a second
     * @param completedPerSecond requests completed a second
     * @param level             the content level m in force, 0..{@code levels}
     * @param levels            the class's content levels M (full content)
     * @param degradedPerSecond requests completed below full content a second
     */
    public record ClassPoint(int queued, int executing, int budget, double delayTargetMillis, double waitMillis,
                             double admittedPerSecond, double rejectedPerSecond, double expiredPerSecond,
                             double completedPerSecond, double level, int levels, double degradedPerSecond) {
    }

    /** The least time between two points, in milliseconds. */
    public long stepMillis() {
        return stepNanos / 1_000_000;
    }

    /** The most points kept. */
    public int capacity() {
        return ring.length;
    }

    /**
     * Adds a point for this snapshot if {@code step} has passed since the last point (on the snapshot's clock),
     * else nothing. A snapshot whose counters went back or whose classes differ (another engine) starts the
     * history again.
     *
     * @param s           a snapshot just taken
     * @param epochMillis the wall clock now
     * @return whether a point was added
     */
    public boolean record(EngineSnapshot s, long epochMillis) {
        return record(s, null, epochMillis);
    }

    /**
     * As {@link #record(EngineSnapshot, long)}, with the degradation law's last period ({@code null}: none runs).
     *
     * @param s           a snapshot just taken
     * @param utilization the control status's {@code utilization()}, read with it, or null
     * @param epochMillis the wall clock now
     * @return whether a point was added
     */
    public synchronized boolean record(EngineSnapshot s, UtilizationStatus utilization, long epochMillis) {
        if (last != null && !sameEngine(last, s)) {
            clear();
        }
        if (last != null && s.nanos() - last.nanos() < stepNanos) {
            return false;
        }
        double seconds = last == null ? Double.NaN : (s.nanos() - last.nanos()) / 1e9;
        List<ClassPoint> classes = new ArrayList<>(s.classes().size());
        for (int i = 0; i < s.classes().size(); i++) {
            ClassStats c = s.classes().get(i);
            ClassStats p = last == null ? null : last.classes().get(i);
            double target = s.settings().get(i).delayTarget().toNanos() / 1e6;
            double wait = Double.NaN;
            double admitted = Double.NaN;
            double rejected = Double.NaN;
            double expired = Double.NaN;
            double completed = Double.NaN;
            double degraded = Double.NaN;
            if (p != null && seconds > 0) {
                long grants = c.grants() - p.grants();
                wait = grants == 0 ? Double.NaN : (c.waitNanos() - p.waitNanos()) / 1e6 / grants;
                admitted = (c.sessionsAdmitted() - p.sessionsAdmitted()) / seconds;
                rejected = (c.rejected() - p.rejected()) / seconds;
                expired = (c.expired() - p.expired()) / seconds;
                completed = (c.completed() - p.completed()) / seconds;
                // a reload that changed the class's levels moved completions between levels: not known then
                degraded = c.levels() == p.levels() ? (belowFull(c) - belowFull(p)) / seconds : Double.NaN;
            }
            classes.add(new ClassPoint(c.queued(), c.executing(), c.budget(), target, wait, admitted, rejected,
                    expired, completed, c.level(), c.levels(), degraded));
        }
        ring[next] = new Point(epochMillis, s.maxExecuting(), s.settings().ceiling(), s.executing(), s.queued(),
                utilization == null ? Double.NaN : utilization.measured(),
                utilization == null ? Double.NaN : utilization.estimated(), classes);
        next = (next + 1) % ring.length;
        size = Math.min(size + 1, ring.length);
        last = s;
        return true;
    }

    /** The points kept taken after {@code epochMillis} (all with 0), oldest first. */
    public synchronized List<Point> since(long epochMillis) {
        List<Point> out = new ArrayList<>(size);
        for (int k = 0; k < size; k++) {
            Point p = ring[(next - size + k + ring.length) % ring.length];
            if (p.epochMillis() > epochMillis) {
                out.add(p);
            }
        }
        return out;
    }

    /** How many points are kept now. */
    public synchronized int size() {
        return size;
    }

    /** Forgets every point (the page shows another engine). */
    synchronized void clear() {
        java.util.Arrays.fill(ring, null);
        next = 0;
        size = 0;
        last = null;
    }

    /** The requests a class completed below full content since the engine started. */
    static long belowFull(ClassStats c) {
        long n = 0;
        for (int level = 1; level < c.levels(); level++) {
            n += c.completedAtLevel(level);
        }
        return n;
    }

    private static boolean sameEngine(EngineSnapshot a, EngineSnapshot b) {
        if (a.classes().size() != b.classes().size() || b.nanos() < a.nanos()) {
            return false;
        }
        for (int i = 0; i < a.classes().size(); i++) {
            ClassStats x = a.classes().get(i);
            ClassStats y = b.classes().get(i);
            if (!x.name().equals(y.name()) || y.entered() < x.entered()) {
                return false;
            }
        }
        return true;
    }
}

package dev.servletqos.control;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import java.util.ArrayList;
import java.util.List;

/**
 * What one sampling period measured: the difference of two engine snapshots, as plain numbers, so that a
 * control law runs unchanged on the engine, in the simulator and in a test that types the numbers in.
 * Immutable.
 *
 * @param seconds      the period's length, in seconds
 * @param maxExecuting the total concurrency in force at the end of the period
 * @param cpu          the process's CPU load over the period, 0..1 of all cores; NaN when unknown
 * @param classes      per class, highest priority first
 * @param routes       per kind of request that completed in the period (all classes), its timed completions
 *                     and their mean service time; empty when not known
 * @param buckets      per token-bucket rule, its hits and refusals in the period and its rate; empty when the
 *                     policy has none or the source does not know them
 */
public record Sample(double seconds, int maxExecuting, double cpu, List<ClassSample> classes,
                     List<RouteSample> routes, List<BucketSample> buckets) {

    public Sample {
        classes = List.copyOf(classes);
        routes = List.copyOf(routes);
        buckets = buckets == null ? List.of() : List.copyOf(buckets);
    }

    /** A sample without token-bucket rules. */
    public Sample(double seconds, int maxExecuting, double cpu, List<ClassSample> classes,
                  List<RouteSample> routes) {
        this(seconds, maxExecuting, cpu, classes, routes, List.of());
    }

    /**
     * One token-bucket rule in a period.
     *
     * @param name    the bucket
     * @param hits    requests that matched it in the period (admitted or refused)
     * @param refused requests it refused in the period
     * @param rate    its rate at the end of the period, requests per second
     */
    public record BucketSample(String name, long hits, long refused, double rate) {
    }

    /** Requests waiting at the end of the period, all classes. */
    public int queued() {
        int q = 0;
        for (ClassSample c : classes) {
            q += c.queued();
        }
        return q;
    }

    /** A sample without service times by route. */
    public Sample(double seconds, int maxExecuting, double cpu, List<ClassSample> classes) {
        this(seconds, maxExecuting, cpu, classes, List.of());
    }

    /**
     * One kind of request in a period (see {@code EngineSnapshot.Routes}).
     *
     * @param route       its number, 0 for the routes beyond the engine's table
     * @param timed       its timed completions in the period
     * @param meanService their mean service time, in seconds
     */
    public record RouteSample(int route, long timed, double meanService) {
    }

    /** The class at {@code index} (0 = highest priority). */
    public ClassSample get(int index) {
        return classes.get(index);
    }

    /** The class of this name, or null. */
    public ClassSample get(String name) {
        for (ClassSample c : classes) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** The token-bucket rule of this name, or null. */
    BucketSample bucket(String name) {
        for (BucketSample b : buckets) {
            if (b.name().equals(name)) {
                return b;
            }
        }
        return null;
    }

    /**
     * The class's counters in the earlier snapshot: by position, or by name when a reloaded policy changed the
     * classes between the two; a class that was not there yet counts from {@code later} (nothing happened).
     */
    private static ClassStats earlierOf(EngineSnapshot earlier, int i, ClassStats later) {
        if (i < earlier.classes().size() && earlier.classes().get(i).name().equals(later.name())) {
            return earlier.classes().get(i);
        }
        ClassStats byName = earlier.get(later.name());
        return byName != null ? byName : later;
    }

    /**
     * The period between two snapshots of one engine: counters become rates over the time between them,
     * waits and service times become means over the requests granted or completed in between.
     *
     * @param earlier the snapshot at the start of the period
     * @param later   the snapshot at its end
     * @param cpu     the process's CPU load over the period (0..1), or NaN
     */
    public static Sample between(EngineSnapshot earlier, EngineSnapshot later, double cpu) {
        double seconds = Math.max(1e-9, (later.nanos() - earlier.nanos()) / 1e9);
        List<ClassSample> classes = new ArrayList<>(later.classes().size());
        for (int i = 0; i < later.classes().size(); i++) {
            ClassStats b = later.classes().get(i);
            ClassStats a = earlierOf(earlier, i, b);
            long grants = b.grants() - a.grants();
            long completed = b.completed() - a.completed();
            long refused = b.rejected() + b.expired() + b.cancelled() - a.rejected() - a.expired() - a.cancelled();
            long timed = b.serviceTimed() - a.serviceTimed();
            double service = timed > 0 ? (b.serviceNanos() - a.serviceNanos()) / 1e9 / timed : Double.NaN;
            // Little's law over the completed requests: permits held = completion rate x mean service time
            double busy = completed == 0 ? 0 : completed / seconds * service;
            classes.add(new ClassSample(b.name(), b.budget(), (b.entered() - a.entered()) / seconds,
                    grants / seconds, completed / seconds, refused / seconds,
                    grants > 0 ? (b.waitNanos() - a.waitNanos()) / 1e9 / grants : Double.NaN,
                    WaitHistogram.difference(b.waitBuckets(), a.waitBuckets()),
                    service,
                    (b.bytes() - a.bytes()) / seconds, busy, busy / later.maxExecuting(), b.queued(),
                    b.executing(), (b.sessionsAdmitted() - a.sessionsAdmitted()) / seconds,
                    (b.sessionsRefusedQueued() + b.sessionsRefusedRate() - a.sessionsRefusedQueued()
                            - a.sessionsRefusedRate()) / seconds,
                    (b.sessionsRefused() - b.sessionsRefusedQueued() - b.sessionsRefusedRate()
                            - a.sessionsRefused() + a.sessionsRefusedQueued() + a.sessionsRefusedRate()) / seconds,
                    (b.statelessAdmitted() - a.statelessAdmitted()) / seconds));
        }
        List<RouteSample> routes = new ArrayList<>();
        EngineSnapshot.Routes a = earlier.routes();
        EngineSnapshot.Routes b = later.routes();
        if (a.size() == b.size()) {
            for (int r = 0; r < b.size(); r++) {
                long timed = b.timed()[r] - a.timed()[r];
                if (timed > 0) {
                    routes.add(new RouteSample(r, timed, (b.nanos()[r] - a.nanos()[r]) / 1e9 / timed));
                }
            }
        }
        List<BucketSample> buckets = new ArrayList<>(later.buckets().size());
        if (earlier.buckets().size() == later.buckets().size()) {
            for (int i = 0; i < later.buckets().size(); i++) {
                EngineSnapshot.BucketStats l = later.buckets().get(i);
                EngineSnapshot.BucketStats f = earlier.buckets().get(i);
                buckets.add(new BucketSample(l.name(), l.hits() - f.hits(), l.refused() - f.refused(), l.rate()));
            }
        }
        return new Sample(seconds, later.maxExecuting(), cpu, classes, routes, buckets);
    }

    /** The number of classes. */
    public int size() {
        return classes.size();
    }
}

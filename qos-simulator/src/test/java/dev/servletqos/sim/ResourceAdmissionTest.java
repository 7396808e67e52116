package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.control.EngineSampleSource;
import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.VirtualServerPlan;
import dev.servletqos.policy.VirtualServerPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleSupplier;
import org.junit.jupiter.api.Test;

/**
 * Paper 002's feedback-tuned token buckets and paper 000's virtual servers on the simulated server: the bucket
 * law's rates converge to what the CPU target allows and never go below their minimums, and a virtual server
 * keeps its guarantee while another Host on the same server is overloaded (paper 000 figure 12).
 *
 * <p>The CPU the bucket law reads is the simulated one: on a server with processor sharing on {@code C} cores,
 * the work the requests completed in a period did, over the period and {@code C}, at most 1.
 */
class ResourceAdmissionTest {

    /** Work of one request: 10 ms of the one core. */
    static final Duration WORK = Duration.ofMillis(10);

    /** One request per session, on {@code path}. */
    static SessionProfile request(String path, Duration work) {
        return SessionProfile.steps(new SessionProfile.Step(path, work, Duration.ZERO));
    }

    /** Processor sharing on one core, a permit for every request (the CPU, not the engine, is the limit). */
    static ServerModel oneCore() {
        return ServerModel.defaults().processorSharing(1);
    }

    static QosPolicy bucketPolicy(double rate, double minRate) {
        return SimEngine.policy(QosPolicy.Scheduling.STRICT_PRIORITY, 200, ClassPolicy.named("basic"))
                .addBucket(BucketPolicy.onPaths("search", rate, minRate, 5, "/search/*")).build();
    }

    /** Runs the simulation, the engine's CPU read from the simulated server, the bucket's rate each second. */
    static SimResult run(QosPolicy policy, Workload w, List<Double> rates) {
        return Simulation.of(policy, w).seed(7).onStart((engine, periodic) -> {
            QosEngine e = engine.engine();
            e.useSampleSource(new EngineSampleSource(e, new SimulatedCpu(e, 1)));
            periodic.schedule(() -> rates.add(e.settings().buckets().get(0).rate()), Duration.ofSeconds(1));
        }).run();
    }

    @Test
    void underOverloadTheRateConvergesToWhatTheCpuTargetAllows() {
        // 200 searches/s of 10 ms each on one core: twice the CPU; at the 0.9 target the bucket admits 90/s. The
        // rate starts at 50/s, below what the server can do (see control.md for a start above it)
        Workload w = Workload.builder().duration(Duration.ofSeconds(120))
                .add(ClassLoad.open("search", 200).header("basic").session(request("/search/q", WORK)))
                .server(oneCore()).build();
        List<Double> rates = new ArrayList<>();
        SimResult r = run(bucketPolicy(50, 10), w, rates);
        double late = mean(rates, 60, 120);
        double served = r.series("search").sum(Metric.COMPLETIONS, 60, 120) / 60;
        System.out.printf(Locale.ROOT, "bucket law on CPU: rate at 10 s %.1f, 30 s %.1f, mean 60..120 s %.1f "
                + "(min %.1f, max %.1f); served %.1f/s%n", rates.get(9), rates.get(29), late,
                min(rates, 60, 120), max(rates, 60, 120), served);
        assertEquals(90, late, 9, "the rate settles where the CPU is at its target: " + rates);
        assertTrue(min(rates, 60, 120) >= 80 && max(rates, 60, 120) <= 100, "and stays there: " + rates);
        assertEquals(late, served, 0.1 * late, "the bucket admits its rate");
    }

    @Test
    void whenOtherLoadHoldsTheCpuTheRateFallsToItsMinimumAndStaysThere() {
        // the background alone needs 1.2 cores: the CPU stays above the target whatever the bucket admits
        Workload w = Workload.builder().duration(Duration.ofSeconds(120))
                .add(ClassLoad.open("search", 200).header("basic").session(request("/search/q", WORK)))
                .add(ClassLoad.open("background", 120).header("basic").session(request("/", WORK)))
                .server(oneCore()).build();
        List<Double> rates = new ArrayList<>();
        EngineSnapshot.BucketStats[] at = new EngineSnapshot.BucketStats[2];
        QosPolicy policy = bucketPolicy(50, 10);
        Simulation.of(policy, w).seed(7).onStart((engine, periodic) -> {
            QosEngine e = engine.engine();
            e.useSampleSource(new EngineSampleSource(e, new SimulatedCpu(e, 1)));
            periodic.schedule(() -> rates.add(e.settings().buckets().get(0).rate()), Duration.ofSeconds(1));
        }).at(Duration.ofSeconds(60), e -> at[0] = e.snapshot().bucket("search"))
                .at(Duration.ofSeconds(120), e -> at[1] = e.snapshot().bucket("search")).run();
        double admitted = ((at[1].hits() - at[1].refused()) - (at[0].hits() - at[0].refused())) / 60.0;
        System.out.printf(Locale.ROOT, "bucket law at its minimum: rate at 5 s %.1f, 10 s %.1f, 30 s %.1f, lowest "
                + "%.1f, mean 60..120 s %.2f, highest 60..120 s %.1f; the bucket admitted %.2f/s of 200/s in 60..120 s%n",
                rates.get(4), rates.get(9), rates.get(29), min(rates, 0, 120), mean(rates, 60, 120),
                max(rates, 60, 120), admitted);
        assertEquals(10, min(rates, 0, 120), 1e-9, "never below the minimum: " + rates);
        // the simulated CPU is read from a period's completions, which sometimes dip below the target
        assertEquals(10, mean(rates, 60, 120), 1, "held at it: " + rates);
        assertEquals(mean(rates, 60, 120), admitted, 1, "the bucket admits its rate");
    }

    @Test
    void fromAboveWhatTheServerCanDoTheCpuLawComesDownSlowlyAndUndershoots() {
        // the same searches, the rate starting at 150/s: above the 100/s the core completes. While it is above,
        // a backlog builds in the server, which keeps the CPU at 1 (a step of -2/s a period) until it drains
        Workload w = Workload.builder().duration(Duration.ofSeconds(120))
                .add(ClassLoad.open("search", 200).header("basic").session(request("/search/q", WORK)))
                .server(oneCore()).build();
        List<Double> rates = new ArrayList<>();
        run(bucketPolicy(150, 10), w, rates);
        int below = 0;
        while (rates.get(below) >= 100) {
            below++;
        }
        System.out.printf(Locale.ROOT, "bucket law on CPU from 150/s: below 100/s after %d periods, lowest %.1f, "
                + "mean 60..120 s %.1f, last 20 s %.1f%n", below + 1, min(rates, 0, 120), mean(rates, 60, 120),
                mean(rates, 100, 120));
        assertTrue(below + 1 <= 40, "-2/s a period at most: " + rates);
        assertTrue(min(rates, 0, 120) >= 10, "never below the minimum");
        assertEquals(90, mean(rates, 100, 120), 9, "converged by the end: " + rates);
    }

    @Test
    void onTheQueueTheRateConvergesToWhatTheServerCompletes() {
        // four permits in front of the one core: what the bucket admits beyond 100/s queues in the engine
        QosPolicy policy = SimEngine.policy(QosPolicy.Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("basic"))
                .addBucket(BucketPolicy.onPaths("search", 150, 10, 5, "/search/*"))
                .bucketControl(dev.servletqos.policy.BucketControl.DEFAULTS
                        .withLaw(dev.servletqos.policy.BucketControl.Law.QUEUE)).build();
        Workload w = Workload.builder().duration(Duration.ofSeconds(120))
                .add(ClassLoad.open("search", 200).header("basic").session(request("/search/q", WORK)))
                .server(oneCore()).build();
        List<Double> rates = new ArrayList<>();
        SimResult r = Simulation.of(policy, w).seed(7).onStart((engine, periodic) -> periodic.schedule(
                () -> rates.add(engine.engine().settings().buckets().get(0).rate()), Duration.ofSeconds(1))).run();
        double queued = r.series("search").mean(Metric.QUEUED_MEAN, 60, 120);
        double served = r.series("search").sum(Metric.COMPLETIONS, 60, 120) / 60;
        System.out.printf(Locale.ROOT, "bucket law on the queue from 150/s: rate at 10 s %.1f, 30 s %.1f, mean "
                + "60..120 s %.1f (min %.1f, max %.1f); queue %.1f, served %.1f/s%n", rates.get(9), rates.get(29),
                mean(rates, 60, 120), min(rates, 60, 120), max(rates, 60, 120), queued, served);
        assertTrue(min(rates, 0, 120) >= 10, "never below the minimum");
        assertEquals(100, mean(rates, 60, 120), 10, "the rate settles at what the core completes: " + rates);
        assertEquals(10, queued, 5, "with the queue near its target");
    }

    // ---- virtual servers

    static final Duration PAGE = Duration.ofMillis(100);

    /**
     * 8 permits of 100 ms pages: 80 pages/s. Host a.example sends 30/s (its guarantee: 40/s); b.example sends
     * 300/s, nearly four times the server.
     */
    static Workload twoSites() {
        return Workload.builder().duration(Duration.ofSeconds(120))
                .add(ClassLoad.open("a", 30).header("basic").host("a.example").session(request("/", PAGE)))
                .add(ClassLoad.open("b", 300).header("basic").host("b.example").session(request("/", PAGE)))
                .server(ServerModel.defaults()).build();
    }

    static QosPolicy.Builder twoSitesPolicy() {
        return SimEngine.policy(QosPolicy.Scheduling.STRICT_PRIORITY, 8, ClassPolicy.named("basic"));
    }

    @Test
    void aVirtualServerKeepsItsGuaranteeWhileAnotherHostIsOverloaded() {
        QosPolicy isolated = twoSitesPolicy()
                .addVirtualServer(VirtualServerPolicy.of("a", 40, 10_000_000, "a.example"))
                .virtualServerPlan(new VirtualServerPlan(0.0125, 0, 0.58)).build();
        SimResult with = Simulation.run(isolated, twoSites(), 3);
        SimResult without = Simulation.run(twoSitesPolicy().build(), twoSites(), 3);
        ClassTotals a = with.totals("a");
        ClassTotals aAlone = without.totals("a");
        ClassTotals b = with.totals("b");
        double aShare = (double) a.completions() / a.arrivals();
        double aShareWithout = (double) aAlone.completions() / aAlone.arrivals();
        double bServed = with.series("b").sum(Metric.COMPLETIONS, 20, 120) / 100;
        System.out.printf(Locale.ROOT, "virtual servers: a.example completes %.2f %% of %d requests (mean wait %.0f ms)"
                + " with its guarantee, %.1f %% without (mean wait %.0f ms); b.example %.1f/s served of 300/s%n",
                100 * aShare, a.arrivals(), 1000 * a.meanQueueDelay(), 100 * aShareWithout,
                1000 * aAlone.meanQueueDelay(), bServed);
        assertEquals(0, a.rejections() + a.expirations(), "no request of a.example within its guarantee is refused");
        assertEquals(a.arrivals(), a.completions());
        assertTrue(a.meanQueueDelay() < 0.1, "and none waits behind b.example's queue: " + a.meanQueueDelay());
        assertTrue(aShareWithout < 0.5, "without the virtual server, b.example's load takes a.example's share: "
                + aShareWithout);
        assertEquals(50, bServed, 5, "b.example gets what a.example leaves");
        EngineSnapshot.HostStats stats = hostStats(isolated);
        assertEquals(stats.requests(), stats.guaranteed(), "every request of a.example was within the guarantee");
    }

    /** A short run's host counters (the simulation's engine is not reachable afterwards). */
    private static EngineSnapshot.HostStats hostStats(QosPolicy policy) {
        EngineSnapshot.HostStats[] out = new EngineSnapshot.HostStats[1];
        Simulation.of(policy, twoSites()).seed(3)
                .at(Duration.ofSeconds(119), e -> out[0] = e.snapshot().host("a")).run();
        return out[0];
    }

    // ---- helpers

    /**
     * The simulated CPU: the work the completed requests did in the period ({@link #WORK} each, the mean of
     * their exponential work) over the period and the cores, at most 1.
     */
    static final class SimulatedCpu implements DoubleSupplier {
        private final QosEngine engine;
        private final int cores;
        private EngineSnapshot last;

        SimulatedCpu(QosEngine engine, int cores) {
            this.engine = engine;
            this.cores = cores;
        }

        @Override
        public double getAsDouble() {
            EngineSnapshot now = engine.snapshot();
            EngineSnapshot before = last;
            last = now;
            if (before == null) {
                return Double.NaN;
            }
            long completed = 0;
            for (int i = 0; i < now.classes().size(); i++) {
                completed += now.classes().get(i).completed() - before.classes().get(i).completed();
            }
            double seconds = (now.nanos() - before.nanos()) / 1e9;
            return Math.min(1, completed * (WORK.toNanos() / 1e9) / seconds / cores);
        }
    }

    static double mean(List<Double> v, int from, int to) {
        double s = 0;
        for (int i = from; i < to && i < v.size(); i++) {
            s += v.get(i);
        }
        return s / (Math.min(to, v.size()) - from);
    }

    static double min(List<Double> v, int from, int to) {
        double m = Double.POSITIVE_INFINITY;
        for (int i = from; i < to && i < v.size(); i++) {
            m = Math.min(m, v.get(i));
        }
        return m;
    }

    static double max(List<Double> v, int from, int to) {
        double m = Double.NEGATIVE_INFINITY;
        for (int i = from; i < to && i < v.size(); i++) {
            m = Math.max(m, v.get(i));
        }
        return m;
    }
}

package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ControlStatus;
import dev.servletqos.Settings;
import dev.servletqos.control.UtilizationStatus;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.ControlPolicy.Degradation;
import dev.servletqos.policy.ControlPolicy.DegradationLaw;
import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Issue 9's test group 1 in the simulator: a CPU-bound server (4 cores, processor sharing) whose requests cost
 * 10 ms of CPU and 40 kB at full content and an eighth of both degraded, in front of which the engine's
 * degradation laws set the content level from the simulated CPU load (the control loop samples the simulated
 * CPU, never the JVM's).
 */
class DegradationTest {

    static final int CORES = 4;
    static final Duration CPU = Duration.ofMillis(10);
    static final long BYTES = 40_000;
    static final int REQUESTS = 5;
    static final Duration THINK = Duration.ofSeconds(1);
    /** Sessions per second the cores serve at full content: 4 / (5 x 10 ms). */
    static final double FULL_CAPACITY = CORES / (REQUESTS * 0.010);

    static ServerModel cpuBound() {
        return ServerModel.defaults().processorSharing(CORES).responseBytes(BYTES)
                .refusalCpu(REFUSAL_CPU);
    }

    static QosPolicy policy(int levels, Degradation d, String... classes) {
        ClassPolicy[] c = new ClassPolicy[classes.length];
        for (int i = 0; i < c.length; i++) {
            c[i] = ClassPolicy.named(classes[i]).withLevels(levels).withMaxQueue(1000)
                    .withMaxWait(Duration.ofSeconds(30));
        }
        return SimEngine.policy(Scheduling.STRICT_PRIORITY, 32, c)
                .control(ControlPolicy.DEFAULTS.withDegradation(d)).build();
    }

    /** The CPU a refused request costs in the model: 0.2 ms. */
    static final Duration REFUSAL_CPU = Duration.ofNanos(200_000);

    /** The PI law on the CPU load, the rejection cost given as paper 000 measured it: 0.2 ms over 4 cores. */
    static Degradation pi(double target) {
        return Degradation.DEFAULTS.withLaw(DegradationLaw.PI).withSource(UtilizationSource.CPU).withTarget(target)
                .withRejectionCost(REFUSAL_CPU.toNanos() / 1e9 / CORES);
    }

    /** What the control loop saw each period: its status after the period's tick. */
    static final class Probe {
        final List<Double> cpu = new ArrayList<>();
        final List<Double> estimated = new ArrayList<>();
        final List<Double> measured = new ArrayList<>();
        final List<double[]> levels = new ArrayList<>();
        final List<UtilizationStatus> status = new ArrayList<>();

        Simulation attach(Simulation s) {
            return s.onStart((engine, periodic) -> periodic.schedule(() -> {
                ControlStatus st = engine.engine().controlStatus();
                UtilizationStatus u = st.utilization();
                cpu.add(st.lastSample() == null ? Double.NaN : st.lastSample().cpu());
                estimated.add(u == null ? Double.NaN : u.estimated());
                measured.add(u == null ? Double.NaN : u.measured());
                status.add(u);
                Settings set = engine.engine().settings();
                double[] l = new double[set.classes().size()];
                for (int k = 0; k < l.length; k++) {
                    l[k] = set.get(k).level();
                }
                levels.add(l);
            }, Duration.ofSeconds(1)));
        }

        double meanMeasured(int from, int to) {
            double s = 0;
            for (int i = from; i < to; i++) {
                s += measured.get(i);
            }
            return s / (to - from);
        }

        double meanCpu(int from, int to) {
            double s = 0;
            for (int i = from; i < to; i++) {
                s += cpu.get(i);
            }
            return s / (to - from);
        }
    }

    static Workload oneClass(Rate sessions, Duration duration) {
        return Workload.builder().duration(duration).server(cpuBound())
                .add(ClassLoad.open("basic", sessions).session(SessionProfile.of(REQUESTS, CPU, THINK)))
                .build();
    }

    /** The CPU load the completions of {@code from..to} s brought, at their content levels: what was offered. */
    static double offered(SimResult r, String cls, double from, double to) {
        return r.series(cls).sum(Metric.COMPLETIONS, from, to) * 0.010 / (CORES * (to - from));
    }

    /** The largest deviation from {@code target} of the 5-period moving average of the CPU load, from..to. */
    static double worstMovingAverage(Probe p, int from, int to, double target) {
        double worst = 0;
        for (int i = from; i + 5 <= to; i++) {
            worst = Math.max(worst, Math.abs(p.meanCpu(i, i + 5) - target));
        }
        return worst;
    }

    @Test
    void utilizationIsHeldAtItsSetPointAfterALoadStep() {
        // 32 sessions/s (0.4 of the cores at full content), then 160 (2.0 at full content) from 60 s
        Probe probe = new Probe();
        SimResult r = probe.attach(Simulation.of(policy(2, pi(0.58), "basic"),
                oneClass(Rate.constant(32).step(Duration.ofSeconds(60), 160), Duration.ofSeconds(600)))).run();
        StringBuilder trace = new StringBuilder();
        for (int i = 58; i < 75; i++) {
            trace.append(String.format(Locale.ROOT, "%d s: cpu %.3f est %.3f m %.3f%n", i + 1, probe.cpu.get(i),
                    probe.estimated.get(i), probe.levels.get(i)[0]));
        }
        System.out.print(trace);
        double before = probe.meanCpu(20, 60);
        double after = probe.meanCpu(70, 600);
        double worst = worstMovingAverage(probe, 70, 600, 0.58);
        UtilizationStatus last = probe.status.get(599);
        System.out.printf(Locale.ROOT, "before the step %.3f (offered %.3f); from 10 periods after it %.4f, 5-period "
                + "means within %.3f of 0.58; refused %d sessions; fitted a %.2e b %.2e c %.2e%n", before,
                offered(r, "basic", 20, 60), after, worst, r.totals("basic").sessionsRefused(), last.a(), last.b(),
                last.c());
        assertEquals(offered(r, "basic", 20, 60), before, 0.01, "full content, below the target");
        assertEquals(2.0, probe.levels.get(59)[0], "full content before the step");
        assertEquals(0.58, after, 0.005, "zero steady-state error:\n" + trace);
        assertEquals(0, r.totals("basic").sessionsRefused(), "degraded content, nobody refused");
    }

    @Test
    void afterALoadStepUtilizationSettlesWithinTenPeriods() {
        // the expected response: the per-period CPU load averaged over 8 seeds (one run's periods vary by about
        // 0.06: sessions at full content arrive at random), then over 5 periods
        int seeds = 8;
        double[] mean = new double[120];
        for (int seed = 1; seed <= seeds; seed++) {
            Probe probe = new Probe();
            probe.attach(Simulation.of(policy(2, pi(0.58), "basic"),
                    oneClass(Rate.constant(32).step(Duration.ofSeconds(60), 160), Duration.ofSeconds(120))))
                    .seed(seed).run();
            for (int i = 0; i < mean.length; i++) {
                mean[i] += probe.cpu.get(i) / seeds;
            }
        }
        StringBuilder trace = new StringBuilder();
        for (int i = 58; i < 80; i++) {
            trace.append(String.format(Locale.ROOT, "%d s: %.3f%n", i + 1, mean[i]));
        }
        System.out.print(trace);
        // the step is at 60 s; the period ending at 61 s is the first that sees it (index 60)
        for (int i = 70; i + 5 <= 120; i++) {
            double m = 0;
            for (int j = i; j < i + 5; j++) {
                m += mean[j] / 5;
            }
            assertEquals(0.58, m, 0.03, "periods " + (i + 1) + ".." + (i + 5) + "\n" + trace);
        }
    }

    /** Whether a run at {@code rate} sessions/s refused nothing: no session, no request, nothing expired. */
    static boolean servedWithoutRefusals(int levels, double rate) {
        SimResult r = Simulation.of(policy(levels, pi(0.58), "basic"),
                oneClass(Rate.constant(rate), Duration.ofSeconds(120))).run();
        ClassTotals t = r.totals("basic");
        return t.sessionsRefused() == 0 && t.rejections() == 0 && t.expirations() == 0;
    }

    /** The highest session rate served without refusals, by bisection to within 3 %. */
    static double highestRateWithoutRefusals(int levels) {
        double lo = 4;
        double hi = 2000;
        assertTrue(servedWithoutRefusals(levels, lo));
        while (hi / lo > 1.03) {
            double mid = Math.sqrt(lo * hi);
            if (servedWithoutRefusals(levels, mid)) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Test
    void degradedContentServesAtLeastTwoAndAHalfTimesTheRateBeforeAnyoneIsRefused() {
        double without = highestRateWithoutRefusals(1);
        double with = highestRateWithoutRefusals(2);
        System.out.printf(Locale.ROOT, "highest session rate without refusals: %.1f/s without degradation (%.2f of the "
                + "full-content capacity), %.1f/s with one degraded level at 1/8 (%.2f of it): %.2f times%n", without,
                without / FULL_CAPACITY, with, with / FULL_CAPACITY, with / without);
        assertTrue(with >= 2.5 * without, with + " vs " + without);
    }

    static Workload twoClasses(Rate premium, Rate basic, Duration duration) {
        SessionProfile session = SessionProfile.of(REQUESTS, CPU, THINK);
        return Workload.builder().duration(duration).server(cpuBound())
                .add(ClassLoad.open("premium", premium).session(session))
                .add(ClassLoad.open("basic", basic).session(session))
                .build();
    }

    @Test
    void higherClassesAreDegradedLastAndNoOneIsRefusedWhileLighterContentIsLeft() {
        // premium 32 sessions/s (0.4 at full content, 0.05 at the lightest), basic 240/s (3.0 at full content, 0.375
        // at the lightest): both at their lightest content fit in 0.58, so basic is served whole at level 1 and
        // premium gives up the content that makes room for it; from 120 s premium doubles (0.8 alone): premium
        // gives up more; from 260 s basic is 600/s (0.94 at the lightest alone): premium at level 1, and only then
        // are basic's new sessions refused
        Probe probe = new Probe();
        SimResult r = probe.attach(Simulation.of(policy(2, pi(0.58), "premium", "basic"),
                twoClasses(Rate.constant(32).step(Duration.ofSeconds(120), 64),
                        Rate.constant(240).step(Duration.ofSeconds(260), 600), Duration.ofSeconds(400)))).run();
        for (int i = 0; i < 400; i++) {
            double[] m = probe.levels.get(i);
            assertTrue(m[1] >= 1 || m[0] <= 1, "basic refusing at " + (i + 1) + " s while premium is at " + m[0]);
        }
        double premiumA = meanLevel(probe, 0, 20, 120);
        double basicA = meanLevel(probe, 1, 20, 120);
        double premiumB = meanLevel(probe, 0, 140, 260);
        double basicB = meanLevel(probe, 1, 140, 260);
        double premiumC = meanLevel(probe, 0, 280, 400);
        double basicC = meanLevel(probe, 1, 280, 400);
        double refusedA = refusedShare(r, "basic", 20, 120);
        double refusedB = refusedShare(r, "basic", 140, 260);
        double refusedC = refusedShare(r, "basic", 280, 400);
        System.out.printf(Locale.ROOT, "mean levels premium / basic, basic's new sessions refused, cpu: %.3f / %.3f,"
                        + " %.1f %%, %.3f; premium doubled: %.3f / %.3f, %.1f %%, %.3f; basic 600/s: %.3f / %.3f,"
                        + " %.1f %%, %.3f; premium sessions refused %d%n", premiumA, basicA, 100 * refusedA,
                probe.meanCpu(20, 120), premiumB, basicB, 100 * refusedB, probe.meanCpu(140, 260), premiumC, basicC,
                100 * refusedC, probe.meanCpu(280, 400), r.totals("premium").sessionsRefused());
        assertTrue(premiumA > 1 && premiumA < 2, "premium degraded to make room for basic: " + premiumA);
        assertEquals(1, basicA, 0.02, "basic at its lightest content");
        assertTrue(refusedA < 0.02, "basic's sessions admitted: " + refusedA);
        assertEquals(0.58, probe.meanCpu(20, 120), 0.03);
        assertTrue(premiumB > 1 && premiumB < premiumA, "premium gives up more: " + premiumB);
        assertEquals(1, basicB, 0.02);
        assertTrue(refusedB < 0.02, "basic's sessions admitted: " + refusedB);
        assertEquals(0.58, probe.meanCpu(140, 260), 0.03);
        assertEquals(1, premiumC, 0.01, "premium at its lightest content");
        assertTrue(basicC < 1 && refusedC > 0.2, "basic refuses part of its new sessions: " + basicC + ", " + refusedC);
        assertEquals(0.58, probe.meanCpu(280, 400), 0.03);
        assertEquals(0, r.totals("premium").sessionsRefused());
    }

    /** A class's mean level over periods {@code from..to}. */
    static double meanLevel(Probe p, int cls, int from, int to) {
        double sum = 0;
        for (int i = from; i < to; i++) {
            sum += p.levels.get(i)[cls];
        }
        return sum / (to - from);
    }

    /** The share of a class's new sessions refused in {@code from..to} s. */
    static double refusedShare(SimResult r, String cls, double from, double to) {
        return r.series(cls).sum(Metric.SESSIONS_REFUSED, from, to)
                / r.series(cls).sum(Metric.SESSIONS_STARTED, from, to);
    }

    static Degradation threshold() {
        return Degradation.DEFAULTS.withLaw(DegradationLaw.THRESHOLD).withSource(UtilizationSource.CPU);
    }

    /** Periods in which some class's level changed. */
    static int switches(Probe p) {
        int n = 0;
        for (int i = 1; i < p.levels.size(); i++) {
            if (!java.util.Arrays.equals(p.levels.get(i), p.levels.get(i - 1))) {
                n++;
            }
        }
        return n;
    }

    @Test
    void thresholdModeDoesNotFlapBetweenItsThresholds() {
        // paper 003's defaults: 40 s intervals, weight 0.4, CPU thresholds 0.75 / 0.60. 54 sessions/s at full
        // content: 0.675, between the thresholds
        Probe between = new Probe();
        between.attach(Simulation.of(policy(2, threshold(), "premium", "basic"),
                twoClasses(Rate.constant(40), Rate.constant(14), Duration.ofSeconds(1200)))).run();
        System.out.printf(Locale.ROOT, "between the thresholds: cpu %.3f, %d switches%n", between.meanCpu(5, 1200),
                switches(between));
        assertEquals(0, switches(between), "full content all along");
        // premium 50/s (0.625) and basic 16/s (0.2): 0.825 at full content, above 0.75; basic degraded, 0.65: between
        Probe over = new Probe();
        over.attach(Simulation.of(policy(2, threshold(), "premium", "basic"),
                twoClasses(Rate.constant(50), Rate.constant(16), Duration.ofSeconds(1200)))).run();
        int first = 0;
        while (over.levels.get(first)[1] == 2.0) {
            first++;
        }
        System.out.printf(Locale.ROOT, "above, then between: basic degraded at %d s, cpu %.3f after, %d switches, "
                + "levels at the end %s%n", first + 1, over.meanCpu(first + 1, 1200), switches(over),
                java.util.Arrays.toString(over.levels.get(1199)));
        assertEquals(1, switches(over), "basic degraded once, and it stays so");
        assertEquals(2.0, over.levels.get(1199)[0], "premium at full content");
        assertEquals(1.0, over.levels.get(1199)[1], "basic degraded");
    }

    @Test
    void aServerWaitingOnItsBackEndIsHeldAtItsOccupancy() {
        // no CPU model: a back end of 16 connections, 50 ms a request at full content (a lighter page makes an
        // eighth of the calls), max-executing 16; auto finds no CPU load and holds the occupancy (permits busy over
        // 16) at 0.8. 32 sessions/s (0.5 at full content), then 128 (2.0) from 60 s
        ServerModel backEnd = ServerModel.defaults().workers(16).responseBytes(BYTES);
        ClassPolicy basic = ClassPolicy.named("basic").withLevels(2).withMaxQueue(1000)
                .withMaxWait(Duration.ofSeconds(30));
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 16, basic)
                .control(ControlPolicy.DEFAULTS.withDegradation(Degradation.DEFAULTS.withLaw(DegradationLaw.PI)
                        .withTarget(0.8))).build();
        Workload w = Workload.builder().duration(Duration.ofSeconds(600)).server(backEnd)
                .add(ClassLoad.open("basic", Rate.constant(32).step(Duration.ofSeconds(60), 128))
                        .session(SessionProfile.of(REQUESTS, Duration.ofMillis(50), THINK)))
                .build();
        Probe probe = new Probe();
        SimResult r = probe.attach(Simulation.of(policy, w)).run();
        double before = probe.meanMeasured(20, 60);
        double after = probe.meanMeasured(70, 600);
        UtilizationStatus last = probe.status.get(599);
        System.out.printf(Locale.ROOT, "occupancy: source %s, before the step %.3f, from 10 periods after it %.4f, "
                + "level %.3f, refused %d sessions%n", last.source(), before, after, probe.levels.get(599)[0],
                r.totals("basic").sessionsRefused());
        assertEquals("occupancy", last.source());
        assertEquals(0.5, before, 0.05, "full content, below the target");
        assertEquals(0.8, after, 0.01, "held at the target");
        assertTrue(probe.levels.get(599)[0] > 1 && probe.levels.get(599)[0] < 2, "degraded");
        assertEquals(0, r.totals("basic").sessionsRefused());
    }
}

package dev.servletqos.sample.demo;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.control.ClassSample;
import dev.servletqos.control.Sample;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.demo.Recorder.Counter;
import dev.servletqos.sample.demo.Recorder.Outcome;
import dev.servletqos.sample.demo.Recorder.SessionResult;
import dev.servletqos.sample.run.ShopConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Function;

/**
 * One run of the demo (QoS on or off) and what it adds up to per phase. Throughput (completed sessions per
 * second, useful requests per second) counts what completed within the phase's window; the fate of sessions
 * (admitted, refused, completed, failed, in %) counts the sessions that arrived in the phase, wherever they
 * ended. Responses and delays belong to the second in which they ended. Built once the run is over; immutable.
 *
 * @param label     the run's name: on, off, or the compared policy's
 * @param config    the shop it ran (QoS on or off, its policy)
 * @param server    the server's description
 * @param profile   the load profile
 * @param capacity  sessions/s the multiples refer to
 * @param recorder  the measurements
 * @param seconds   seconds of the run that hold data (the profile and the drain after it)
 */
final class RunResult {

    private final String label;
    private final ShopConfig config;
    private final String server;
    private final Profile profile;
    private final double capacity;
    private final Recorder recorder;
    private final int seconds;
    /** Worked out once, from the finished recorder: the console, the report and the summary all read them. */
    private final List<PhaseStats> phases;

    RunResult(String label, ShopConfig config, String server, Profile profile, double capacity, Recorder recorder,
              int seconds) {
        this.label = label;
        this.config = config;
        this.server = server;
        this.profile = profile;
        this.capacity = capacity;
        this.recorder = recorder;
        this.seconds = seconds;
        this.phases = List.copyOf(computePhases());
    }

    boolean qos() {
        return config.qos();
    }

    /** The policy the run's shop had (with QoS off, the one that set its tier cookies and thread count). */
    QosPolicy policy() {
        return config.policy();
    }

    /** The run's name on the console, in the report and the summary: on, off, or the compared policy's. */
    String label() {
        return label;
    }

    String server() {
        return server;
    }

    double capacity() {
        return capacity;
    }

    Recorder recorder() {
        return recorder;
    }

    int seconds() {
        return seconds;
    }

    /** Per user type numbers of one phase. */
    record TypeStats(long offered, long admitted, long refused, long completed, long rejectedMidway, long timedOut,
                     long errors, long unfinished, long capped, long completedInWindow, long completedRequestsInWindow,
                     long degraded, double seconds, double p95DelayMillis, double p50DelayMillis) {

        /** Sessions that completed within the phase's window, per second. */
        double completedPerSecond() {
            return completedInWindow / seconds;
        }

        /** Completed sessions of the offered ones, in %. */
        double completedPercent() {
            return offered == 0 ? Double.NaN : 100.0 * completed / offered;
        }

        /** Completed sessions of the admitted ones, in %. */
        double completedOfAdmittedPercent() {
            return admitted == 0 ? Double.NaN : 100.0 * completed / admitted;
        }
    }

    /**
     * What the engine measured for one class over one phase (QoS on): its queue delay, from the engine's wait
     * histogram of the requests granted in the phase (the time they waited for a permit; refused requests are
     * not in it), against the delay target in force at the phase's end, and the budgets it had.
     */
    record EngineStats(String name, double meanQueueDelayMillis, double p95QueueDelayMillis, long delayTargetMillis,
                       int budgetMin, int budgetMax) {

        /** "premium queue delay 50 / 148 ms mean / p95 (target 250), budget 4..6": the console and the report. */
        String describe() {
            return String.format(Locale.ROOT, "%s queue delay %s / %s ms mean / p95 (target %d), budget %s", name,
                    millis(meanQueueDelayMillis), millis(p95QueueDelayMillis), delayTargetMillis,
                    budgetMin == budgetMax ? Integer.toString(budgetMin) : budgetMin + ".." + budgetMax);
        }
    }

    /** Whole milliseconds, or "-" for NaN (nothing measured). */
    static String millis(double ms) {
        return Double.isNaN(ms) ? "-" : String.format(Locale.ROOT, "%.0f", ms);
    }

    /**
     * One phase: per type (premium, basic), their sum, the server's work, the capacity at the phase's back-end
     * speed, and (QoS on) per engine class what the engine measured, who set the settings and the control modes
     * seen during the phase (comma-separated; empty with QoS off).
     */
    record PhaseStats(Profile.Phase phase, double start, double end, List<TypeStats> types, TypeStats total,
                      double pagesServedPerSecond, double usefulRequestsPerSecond, double capacity,
                      List<EngineStats> engine, String settingsSources, String controlModes) {

        /** User type {@code t}'s figures, in {@link Recorder#TYPES} order; past the last, the total. */
        TypeStats type(int t) {
            return t < types.size() ? types.get(t) : total;
        }

        /** "settings set by controller, control mode absolute". */
        String describeControl() {
            return "settings set by " + settingsSources + ", control mode " + controlModes;
        }
    }

    /** The phases' figures, in profile order. */
    List<PhaseStats> phases() {
        return phases;
    }

    private List<PhaseStats> computePhases() {
        List<PhaseStats> out = new ArrayList<>();
        List<SessionResult> all = new ArrayList<>(recorder.sessions);
        for (int i = 0; i < profile.phases().size(); i++) {
            Profile.Phase p = profile.phases().get(i);
            double start = profile.start(i);
            double end = start + p.seconds();
            int fromSecond = (int) Math.round(start);
            int toSecond = (int) Math.round(end);
            List<TypeStats> types = new ArrayList<>();
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                types.add(stats(all, t, start, end, fromSecond, toSecond, p.seconds()));
            }
            TypeStats total = stats(all, -1, start, end, fromSecond, toSecond, p.seconds());
            double window = Math.max(1, Math.min(seconds, toSecond) - fromSecond);
            out.add(new PhaseStats(p, start, end, types, total, pagesPerSecond(fromSecond, toSecond),
                    total.completedRequestsInWindow() / window, Demo.capacityAt(capacity, p.backendFactor()),
                    engine(fromSecond, toSecond), distinct(fromSecond, toSecond, x -> Demo.source(
                            x.engine().settings().source())), distinct(fromSecond, toSecond,
                            x -> x.engine().settings().control().mode().key())));
        }
        return out;
    }

    /**
     * Pages the server served per second in seconds [from, to): the difference of its counter between the
     * sample at the end of second {@code to - 1} and the one at the end of second {@code from - 1} (the
     * baseline taken at t0 for the first phase: the counter runs from the server's start, warm-up included),
     * over the seconds between them. A missing sample is replaced by the nearest earlier one, and the window
     * follows the samples actually used, so a missed tick neither drops nor piles up a phase's pages. NaN when
     * there are no samples to subtract.
     */
    double pagesPerSecond(int from, int to) {
        Recorder.SampleAt before = recorder.sampleAtOrBefore(from - 1);
        Recorder.SampleAt after = recorder.sampleAtOrBefore(Math.min(seconds, to) - 1);
        if (before == null || after == null || after.second() <= before.second()) {
            return Double.NaN;
        }
        return (after.sample().pagesServed() - before.sample().pagesServed())
                / (double) (after.second() - before.second());
    }

    /**
     * Per engine class, what the engine measured in seconds [from, to): the period between the samples at the
     * ends of seconds {@code from - 1} and {@code to - 1} (nearest earlier ones when a tick was missed), and the
     * budgets sampled in between. Empty with QoS off.
     */
    List<EngineStats> engine(int from, int to) {
        Recorder.SampleAt before = recorder.sampleAtOrBefore(from - 1);
        Recorder.SampleAt after = recorder.sampleAtOrBefore(Math.min(seconds, to) - 1);
        if (before == null || after == null || before.sample().engine() == null || after.sample().engine() == null
                || after.second() <= before.second()) {
            return List.of();
        }
        EngineSnapshot end = after.sample().engine();
        Sample period = Sample.between(before.sample().engine(), end, Double.NaN);
        List<EngineStats> out = new ArrayList<>();
        for (int i = 0; i < period.size(); i++) {
            ClassSample c = period.get(i);
            int min = Integer.MAX_VALUE;
            int max = Integer.MIN_VALUE;
            for (int s = Math.max(0, from); s < Math.min(seconds, to); s++) {
                Recorder.ServerSample x = recorder.sample(s);
                if (x != null && x.engine() != null) {
                    min = Math.min(min, x.engine().classes().get(i).budget());
                    max = Math.max(max, x.engine().classes().get(i).budget());
                }
            }
            if (min > max) {
                min = c.budget();
                max = c.budget();
            }
            out.add(new EngineStats(c.name(), c.active() ? c.meanWait() * 1000 : Double.NaN,
                    c.active() ? c.delay(0.95) * 1000 : Double.NaN,
                    end.settings().get(i).delayTarget().toMillis(), min, max));
        }
        return out;
    }

    /** The distinct values of {@code f} over the engine samples of seconds [from, to), in order of appearance. */
    private String distinct(int from, int to, Function<Recorder.ServerSample, String> f) {
        Set<String> seen = new LinkedHashSet<>();
        for (int s = Math.max(0, from); s < Math.min(seconds, to); s++) {
            Recorder.ServerSample x = recorder.sample(s);
            if (x != null && x.engine() != null) {
                seen.add(f.apply(x));
            }
        }
        return String.join(", ", seen);
    }

    private TypeStats stats(List<SessionResult> all, int type, double start, double end, int fromSecond,
                            int toSecond, double seconds) {
        long offered = 0;
        long admitted = 0;
        long refused = 0;
        long completed = 0;
        long midway = 0;
        long timedOut = 0;
        long errors = 0;
        long unfinished = 0;
        long capped = 0;
        for (SessionResult s : all) {
            if ((type >= 0 && s.type() != type) || s.start() < start || s.start() >= end) {
                continue;
            }
            offered++;
            if (s.admitted()) {
                admitted++;
            }
            switch (s.outcome()) {
                case COMPLETED -> completed++;
                case REFUSED -> refused++;
                case REJECTED_MIDWAY -> midway++;
                case TIMEOUT -> timedOut++;
                case ERROR -> errors++;
                case ABANDONED_END -> unfinished++;
                case ABANDONED_LIMIT -> capped++;
                default -> throw new IllegalStateException(s.outcome().toString());
            }
        }
        long degraded = 0;
        double[] delays;
        if (type >= 0) {
            for (int sec = fromSecond; sec < Math.min(toSecond, recorder.seconds); sec++) {
                degraded += recorder.get(Counter.REQ_DEGRADED, type, sec);
            }
            delays = recorder.delays(type, fromSecond, toSecond);
        } else {
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                for (int sec = fromSecond; sec < Math.min(toSecond, recorder.seconds); sec++) {
                    degraded += recorder.get(Counter.REQ_DEGRADED, t, sec);
                }
            }
            double[] a = recorder.delays(0, fromSecond, toSecond);
            double[] b = recorder.delays(1, fromSecond, toSecond);
            delays = new double[a.length + b.length];
            System.arraycopy(a, 0, delays, 0, a.length);
            System.arraycopy(b, 0, delays, a.length, b.length);
            java.util.Arrays.sort(delays);
        }
        return new TypeStats(offered, admitted, refused, completed, midway, timedOut, errors, unfinished, capped,
                recorder.sum(Counter.COMPLETED, type, fromSecond, toSecond),
                recorder.sum(Counter.COMPLETED_REQUESTS, type, fromSecond, toSecond), degraded, seconds,
                Recorder.percentile(delays, 95), Recorder.percentile(delays, 50));
    }

    /** Sessions that completed after the profile ended (during the drain), per type (-1: all). */
    long completedAfterProfile(int type) {
        return recorder.sum(Counter.COMPLETED, type, (int) Math.round(profile.seconds()), seconds);
    }

    /** Sessions still running when the run ended (the drain was over), all phases. */
    long unfinished() {
        return recorder.sessions.stream().filter(s -> s.outcome() == Outcome.ABANDONED_END).count();
    }

    /** Arrivals the generator did not start because it had {@link LoadGenerator#MAX_SESSIONS} running. */
    long capped() {
        return recorder.sessions.stream().filter(s -> s.outcome() == Outcome.ABANDONED_LIMIT).count();
    }
}

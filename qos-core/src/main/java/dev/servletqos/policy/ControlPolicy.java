package dev.servletqos.policy;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The feedback controller's settings (keys {@code control.*}): which law runs, how often, which queue delay it
 * holds at each class's target, the gains of its two PI laws and whether it guards against wind-up. Each
 * class's {@code delay-target} ({@link ClassPolicy.Delay#target()}) is the controller's reference and its
 * {@code min-budget} ({@link ClassPolicy.Capacity#minBudget()}) the floor of the budget it sets.
 *
 * <p>Both laws are incremental PI controllers, {@code u(m) = u(m-1) + g (e(m) - r e(m-1))} (paper 001, eq. 8),
 * with gain {@code g} and zero {@code r} ({@code r = 1 - T/Ti} of a discretised PI with period {@code T} and
 * integral time {@code Ti}).
 *
 * <p>Immutable; {@link #DEFAULTS} and the {@code with} methods build one, {@link QosPolicy.Builder#build()}
 * checks it and names the key of a bad value.
 *
 * @param mode          {@code control.mode}: off (default), absolute or relative
 * @param period        {@code control.period}: the sampling period {@code T}; default 1 s; 100 ms..1 min
 * @param delayQuantile {@code control.delay}: the queue delay the controller measures and holds at the target,
 *                      0 for the mean (default), else a quantile in (0, 1): 0.95 for p95
 * @param absolute      {@code control.absolute.gain} and {@code .zero}: the absolute delay law, which holds each
 *                      class's delay at its target; default g = {@value #DEFAULT_ABSOLUTE_GAIN},
 *                      r = {@value #DEFAULT_ABSOLUTE_ZERO}
 * @param relative      {@code control.relative.gain} and {@code .zero}: the relative delay law, which holds the
 *                      ratio of adjacent classes' delays at the ratio of their targets; default
 *                      g = {@value #DEFAULT_RELATIVE_GAIN}, r = {@value #DEFAULT_RELATIVE_ZERO}
 * @param antiWindup    {@code control.anti-windup}: whether the laws stop integrating while a budget is held at
 *                      a limit (the class's {@code min-budget} or {@code max-executing}), so that an error they
 *                      cannot act on does not pile up; default true
 * @param capacity      {@code control.capacity}: whether the engine finds {@code max-executing} itself (auto, the
 *                      default when the policy gives no {@code max-executing}; a given one is then its ceiling)
 *                      or keeps it as configured (fixed, the default when it is given). Null in
 *                      {@link #DEFAULTS}: the policy's build decides.
 * @param admission     {@code control.admission}: whether new sessions of every class are admitted at the rate
 *                      that keeps the class's delay at its target (auto, the default when the policy sets no
 *                      max-executing, no WebQoS trigger and no session rate) or by the configured triggers and session rates
 *                      (triggers, the default when any is set). Null in {@link #DEFAULTS}: the policy's build
 *                      decides.
 * @param degradation   {@code control.degradation} and the keys {@code control.utilization.*},
 *                      {@code control.threshold.*}, {@code control.network.capacity}: whether and how the content
 *                      level of each class follows the server's utilization (papers 000 and 003); off by default
 */
public record ControlPolicy(Mode mode, Duration period, double delayQuantile, Gains absolute, Gains relative,
                            boolean antiWindup, Capacity capacity, Admission admission, Degradation degradation) {

    /**
     * The absolute law's default gain, in permits per second of delay error; negative, so that a delay above
     * the target (a negative error) raises the budget. Paper 001's -0.80 for 128 processes and a 10 s target,
     * scaled to 16 permits and a 1 s target (see {@code ControlLaws.DEFAULT_ABSOLUTE}).
     */
    public static final double DEFAULT_ABSOLUTE_GAIN = -1.0;
    /** The absolute law's default zero. */
    public static final double DEFAULT_ABSOLUTE_ZERO = 0.3;
    /** The relative law's default gain. */
    public static final double DEFAULT_RELATIVE_GAIN = 0.3;
    /** The relative law's default zero. */
    public static final double DEFAULT_RELATIVE_ZERO = 0.05;
    /** The default sampling period. */
    public static final Duration DEFAULT_PERIOD = Duration.ofSeconds(1);

    /** Every setting at its default: the controller off. */
    public static final ControlPolicy DEFAULTS = new ControlPolicy(Mode.OFF, DEFAULT_PERIOD, 0,
            new Gains(DEFAULT_ABSOLUTE_GAIN, DEFAULT_ABSOLUTE_ZERO), new Gains(DEFAULT_RELATIVE_GAIN,
            DEFAULT_RELATIVE_ZERO), true, null, null, Degradation.DEFAULTS);

    /** The names {@code control.delay} accepts and the quantile each stands for (0: the mean). */
    static final Map<String, Double> DELAYS = delays();

    private static final Duration MIN_PERIOD = Duration.ofMillis(100);
    private static final Duration MAX_PERIOD = Duration.ofMinutes(1);

    /** What the control loop does each period. */
    public enum Mode {
        /** No feedback: budgets stay as set. */
        OFF("off"),
        /** Absolute delay control: each class's delay is held at its delay target (paper 001, section III-A). */
        ABSOLUTE("absolute"),
        /** Relative delay control: the ratios of adjacent classes' delays are held at their targets' ratios. */
        RELATIVE("relative");

        private final String key;

        Mode(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }
    }

    /** Who sets the total concurrency, {@code max-executing}. */
    public enum Capacity {
        /** The capacity law finds it from measured service time, below the configured ceiling. */
        AUTO("auto"),
        /** It stays as configured (changed only by an operator). */
        FIXED("fixed");

        private final String key;

        Capacity(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }
    }

    /** How new sessions are admitted. */
    public enum Admission {
        /**
         * Each class's admission law sets the class's session rate from its measured delay and the capacity the
         * classes above it leave, and a new session is refused while its class's queue is already longer than
         * the class's delay target.
         */
        AUTO("auto"),
        /** The WebQoS triggers (j, k) and the configured session rates, as set (paper 004). */
        TRIGGERS("triggers");

        private final String key;

        Admission(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }
    }

    /**
     * The coefficients of one incremental PI law.
     *
     * @param gain the gain {@code g}: finite, not 0; its sign says which way the budget moves
     * @param zero the zero {@code r}: at least 0, less than 1
     */
    public record Gains(double gain, double zero) {
    }

    /** Which law sets the classes' content levels ({@code control.degradation}). */
    public enum DegradationLaw {
        /** None: the levels stay as set (full content unless an operator lowers them). */
        NONE("none"),
        /** The PI utilization controller of paper 000 (section 4.4) on each class's fractional level. */
        PI("pi"),
        /** Paper 003's rule: full or degraded content by high and low thresholds of averaged utilization. */
        THRESHOLD("threshold");

        private final String key;

        DegradationLaw(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }
    }

    /** Which measured utilization the degradation laws hold ({@code control.utilization.source}). */
    public enum UtilizationSource {
        /** The busier of the two below, decided each period (occupancy when the CPU load is unknown). */
        AUTO("auto"),
        /** The process's CPU load: a server whose requests compute. */
        CPU("cpu"),
        /** Worker occupancy, the permits busy over max-executing: a server whose requests wait on a back end. */
        OCCUPANCY("occupancy");

        private final String key;

        UtilizationSource(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }
    }

    /**
     * The degradation laws' settings: papers 000 (the PI utilization controller, sections 4.3 to 4.5) and 003
     * (threshold mode).
     *
     * @param law             {@code control.degradation}: none (default), pi or threshold
     * @param source          {@code control.utilization.source}: auto (default), cpu or occupancy
     * @param target          {@code control.utilization.target}: the utilization the PI law holds, 0.05..0.98;
     *                        default {@value #DEFAULT_TARGET}, paper 000's schedulable bound (deadlines met at or
     *                        below it); higher for throughput alone
     * @param gainMargin      {@code control.utilization.gain-margin}: the design gain margin G of the PI, 2.5..100;
     *                        default {@value #DEFAULT_GAIN_MARGIN} (paper 000 tried 4 and 10)
     * @param high            {@code control.threshold.high}: threshold mode degrades above this averaged
     *                        utilization; default {@value #DEFAULT_HIGH} (paper 003's CPU threshold)
     * @param low             {@code control.threshold.low}: and restores full content below this one; default
     *                        {@value #DEFAULT_LOW}
     * @param networkHigh     {@code control.threshold.network-high}: the same for the network; default
     *                        {@value #DEFAULT_NETWORK_HIGH}
     * @param networkLow      {@code control.threshold.network-low}: default {@value #DEFAULT_NETWORK_LOW}
     * @param weight          {@code control.threshold.weight}: the weight of the newest period in the
     *                        exponential average; default {@value #DEFAULT_WEIGHT} (paper 003)
     * @param networkCapacity {@code control.network.capacity}: the bytes per second the network carries at
     *                        most (network utilization = response bytes per second over it); 0 (default): the
     *                        network is not watched
     * @param rejectionCost   {@code control.utilization.rejection-cost}: paper 000's {@code c}, the utilization one
     *                        refused request per second costs, in seconds (the key is in milliseconds); measured as
     *                        the paper did, the utilization while every request is refused over the refusals per
     *                        second; default 0 (refusals cost nothing)
     * @param interval        {@code control.threshold.interval}: threshold mode's measurement interval, over which
     *                        the periods' utilization is averaged before it enters the exponential average;
     *                        default 40 s (paper 003)
     */
    public record Degradation(DegradationLaw law, UtilizationSource source, double target, double gainMargin,
                              double high, double low, double networkHigh, double networkLow, double weight,
                              long networkCapacity, double rejectionCost, Duration interval) {

        /** Paper 000's schedulable utilization bound (section 4.1): deadlines are met at or below it. */
        public static final double DEFAULT_TARGET = 0.58;
        /** Paper 000's gain margin (section 4.4, figure 4: G = 4 and 10). */
        public static final double DEFAULT_GAIN_MARGIN = 4;
        /** Paper 003's CPU thresholds. */
        public static final double DEFAULT_HIGH = 0.75;
        public static final double DEFAULT_LOW = 0.60;
        /** Paper 003's network thresholds. */
        public static final double DEFAULT_NETWORK_HIGH = 0.55;
        public static final double DEFAULT_NETWORK_LOW = 0.35;
        /** Paper 003's weight of exponential averaging. */
        public static final double DEFAULT_WEIGHT = 0.4;

        /** Paper 003's measurement interval. */
        public static final Duration DEFAULT_INTERVAL = Duration.ofSeconds(40);

        /** Every setting at its default: no degradation. */
        public static final Degradation DEFAULTS = new Degradation(DegradationLaw.NONE, UtilizationSource.AUTO,
                DEFAULT_TARGET, DEFAULT_GAIN_MARGIN, DEFAULT_HIGH, DEFAULT_LOW, DEFAULT_NETWORK_HIGH,
                DEFAULT_NETWORK_LOW, DEFAULT_WEIGHT, 0, 0, DEFAULT_INTERVAL);

        public Degradation {
            Objects.requireNonNull(law, "law");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(interval, "interval");
        }

        /** @param seconds the utilization one refused request per second costs, in seconds */
        public Degradation withRejectionCost(double seconds) {
            return new Degradation(law, source, target, gainMargin, high, low, networkHigh, networkLow, weight,
                    networkCapacity, seconds, interval);
        }

        public Degradation withInterval(Duration d) {
            return new Degradation(law, source, target, gainMargin, high, low, networkHigh, networkLow, weight,
                    networkCapacity, rejectionCost, d);
        }

        public Degradation withLaw(DegradationLaw l) {
            return new Degradation(l, source, target, gainMargin, high, low, networkHigh, networkLow, weight,
                    networkCapacity, rejectionCost, interval);
        }

        public Degradation withSource(UtilizationSource s) {
            return new Degradation(law, s, target, gainMargin, high, low, networkHigh, networkLow, weight,
                    networkCapacity, rejectionCost, interval);
        }

        public Degradation withTarget(double t) {
            return new Degradation(law, source, t, gainMargin, high, low, networkHigh, networkLow, weight,
                    networkCapacity, rejectionCost, interval);
        }

        public Degradation withGainMargin(double g) {
            return new Degradation(law, source, target, g, high, low, networkHigh, networkLow, weight,
                    networkCapacity, rejectionCost, interval);
        }

        public Degradation withThresholds(double h, double l) {
            return new Degradation(law, source, target, gainMargin, h, l, networkHigh, networkLow, weight,
                    networkCapacity, rejectionCost, interval);
        }

        public Degradation withNetworkThresholds(double h, double l) {
            return new Degradation(law, source, target, gainMargin, high, low, h, l, weight, networkCapacity,
                    rejectionCost, interval);
        }

        public Degradation withWeight(double w) {
            return new Degradation(law, source, target, gainMargin, high, low, networkHigh, networkLow, w,
                    networkCapacity, rejectionCost, interval);
        }

        public Degradation withNetworkCapacity(long bytesPerSecond) {
            return new Degradation(law, source, target, gainMargin, high, low, networkHigh, networkLow, weight,
                    bytesPerSecond, rejectionCost, interval);
        }

        /** Checks every setting; messages name the key. */
        void check() {
            ClassPolicy.check(target >= 0.05 && target <= 0.98, "control.utilization.target", target,
                    "must be 0.05..0.98");
            ClassPolicy.check(gainMargin >= 2.5 && gainMargin <= 100, "control.utilization.gain-margin", gainMargin,
                    "must be 2.5..100 (below about 2.2 the loop oscillates)");
            ClassPolicy.check(high > 0 && high <= 1, "control.threshold.high", high, "must be more than 0, at most 1");
            ClassPolicy.check(low >= 0 && low < high, "control.threshold.low", low,
                    "must be at least 0 and below control.threshold.high (" + high + ")");
            ClassPolicy.check(networkHigh > 0 && networkHigh <= 1, "control.threshold.network-high", networkHigh,
                    "must be more than 0, at most 1");
            ClassPolicy.check(networkLow >= 0 && networkLow < networkHigh, "control.threshold.network-low",
                    networkLow, "must be at least 0 and below control.threshold.network-high (" + networkHigh + ")");
            ClassPolicy.check(weight > 0 && weight <= 1, "control.threshold.weight", weight,
                    "must be more than 0, at most 1");
            ClassPolicy.check(networkCapacity >= 0, "control.network.capacity", networkCapacity,
                    "must be 0 (not watched) or more bytes per second");
            ClassPolicy.check(rejectionCost >= 0 && rejectionCost <= 1, "control.utilization.rejection-cost",
                    rejectionCost * 1000, "must be 0..1000 (milliseconds)");
            ClassPolicy.check(interval.compareTo(Duration.ofMillis(100)) >= 0
                    && interval.compareTo(Duration.ofMinutes(10)) <= 0, "control.threshold.interval", interval,
                    "must be 100ms..10m");
        }
    }

    /** @throws NullPointerException if the mode, period or a law's gains are null */
    public ControlPolicy {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(period, "period");
        Objects.requireNonNull(absolute, "absolute");
        Objects.requireNonNull(relative, "relative");
        Objects.requireNonNull(degradation, "degradation");
    }

    public ControlPolicy withMode(Mode m) {
        return new ControlPolicy(m, period, delayQuantile, absolute, relative, antiWindup, capacity, admission,
                degradation);
    }

    public ControlPolicy withPeriod(Duration p) {
        return new ControlPolicy(mode, p, delayQuantile, absolute, relative, antiWindup, capacity, admission,
                degradation);
    }

    /** @param q 0 for the mean delay, else a quantile in (0, 1) */
    public ControlPolicy withDelayQuantile(double q) {
        return new ControlPolicy(mode, period, q, absolute, relative, antiWindup, capacity, admission,
                degradation);
    }

    public ControlPolicy withAbsolute(Gains g) {
        return new ControlPolicy(mode, period, delayQuantile, g, relative, antiWindup, capacity, admission,
                degradation);
    }

    public ControlPolicy withRelative(Gains g) {
        return new ControlPolicy(mode, period, delayQuantile, absolute, g, antiWindup, capacity, admission,
                degradation);
    }

    public ControlPolicy withAntiWindup(boolean on) {
        return new ControlPolicy(mode, period, delayQuantile, absolute, relative, on, capacity, admission,
                degradation);
    }

    public ControlPolicy withCapacity(Capacity c) {
        return new ControlPolicy(mode, period, delayQuantile, absolute, relative, antiWindup, c, admission,
                degradation);
    }

    public ControlPolicy withAdmission(Admission a) {
        return new ControlPolicy(mode, period, delayQuantile, absolute, relative, antiWindup, capacity, a, degradation);
    }

    public ControlPolicy withDegradation(Degradation d) {
        return new ControlPolicy(mode, period, delayQuantile, absolute, relative, antiWindup, capacity, admission, d);
    }

    /**
     * Checks every setting; messages name the key. The policy's build calls it, and the engine before it puts
     * control settings changed at run time in force.
     *
     * @param classCount the number of classes
     * @throws PolicyException for the first bad setting
     */
    public void check(int classCount) {
        ClassPolicy.check(mode != Mode.RELATIVE || classCount >= 2, "control.mode", mode.key(),
                "relative control needs at least two classes");
        ClassPolicy.check(period.compareTo(MIN_PERIOD) >= 0 && period.compareTo(MAX_PERIOD) <= 0, "control.period",
                period, "must be 100ms..1m");
        ClassPolicy.check(delayQuantile == 0 || (delayQuantile > 0 && delayQuantile < 1), "control.delay",
                delayQuantile, "must be 0 (the mean) or a quantile between 0 and 1, such as 0.95 for p95");
        ClassPolicy.check(capacity != null, "control.capacity", "null", "must be auto or fixed");
        ClassPolicy.check(admission != null, "control.admission", "null", "must be auto or triggers");
        checkGains(absolute, "control.absolute.");
        checkGains(relative, "control.relative.");
        degradation.check();
    }

    private static void checkGains(Gains g, String prefix) {
        ClassPolicy.check(Double.isFinite(g.gain()) && g.gain() != 0, prefix + "gain", g.gain(),
                "must be a finite number other than 0");
        ClassPolicy.check(g.zero() >= 0 && g.zero() < 1, prefix + "zero", g.zero(),
                "must be at least 0 and less than 1");
    }

    private static Map<String, Double> delays() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("mean", 0.0);
        m.put("p50", 0.5);
        m.put("p90", 0.9);
        m.put("p95", 0.95);
        m.put("p99", 0.99);
        return Collections.unmodifiableMap(m);
    }
}

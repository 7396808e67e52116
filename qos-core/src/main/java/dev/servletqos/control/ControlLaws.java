package dev.servletqos.control;

import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy.Gains;
import dev.servletqos.policy.ControlPolicy;
import java.time.Duration;
import java.util.Map;

/**
 * The control laws, as {@link ControlLaw}s: the delay laws of paper 001 (section III.D), the capacity and
 * admission laws of the self-tuning engine, and their chain. Sample in, Settings out, no clock and no
 * thread. Each instance keeps its loops' state between periods, so one instance serves one
 * engine; build a new one when the classes change.
 *
 * <p>Units: delays in seconds, budgets in permits, one step per sampling period. A PI's gains depend on the
 * plant and the units; the defaults below are paper 001's designs carried over to this library's default
 * operating point, and {@link IdentificationLaw} with {@link GainDesigner} derives gains for a real one.
 */
public final class ControlLaws {

    /**
     * Default gains of the absolute delay PI: {@code g = -1.0} permits per second of delay error,
     * {@code r = 0.30}.
     *
     * <p>Why: paper 001 designed {@code g = -0.80, r = 0.30} (poles 0.53, -0.16 +- 0.51i) for a server of 128
     * processes whose class-0 delay target was 10 s. Its plant gain {@code b} (seconds of delay per process)
     * scales with the delays and inversely with the pool, so on a plant of the same shape the same poles need
     * {@code g' = g (W / W') (B' / B)}: for this library's defaults, a 1 s delay target and 16 permits,
     * {@code g' = -0.80 x (10 / 1) x (16 / 128) = -1.0}. The zero is dimensionless and stays 0.30. The
     * sign is negative because a delay above its target (a negative error) must raise the budget. For a
     * deployment far from the defaults, scale {@code g} the same way, or identify the plant.
     */
    public static final Gains DEFAULT_ABSOLUTE = ControlPolicy.DEFAULTS.absolute();

    /**
     * Default gains of the relative delay PI: {@code g = 0.30}, {@code r = 0.05}, paper 001's design
     * (section IV.C: poles 0.70, 0.38 +- 0.62i on its workload-A model). Both the input (a ratio of budgets)
     * and the output (a ratio of delays) are dimensionless, so the paper's gains carry over unchanged.
     */
    public static final Gains DEFAULT_RELATIVE = ControlPolicy.DEFAULTS.relative();

    /**
     * 1 ms: delays below it are not told apart (the {@link WaitHistogram}'s first bucket holds everything up to
     * 1 ms, requests run at once among them), so delay ratios are taken of delays no smaller than this.
     */
    public static final double DELAY_FLOOR_SECONDS = 0.001;

    private ControlLaws() {
    }

    /**
     * Absolute delay control, paper 001 section III.D: per class k, {@code B_k(m) = B_k(m-1) + g (E_k(m) -
     * r E_k(m-1))} (eq. 1) with {@code E_k = delayTarget_k - C_k}, the delay measured at the settings'
     * {@code delayQuantile}, in seconds; budgets kept as real numbers and granted as integers in priority order
     * from {@code maxExecuting}, each at least its {@code minBudget}, so that when permits are short the lowest
     * classes miss their targets first. A class with nothing granted and nothing waiting holds its budget; one
     * with requests waiting but none granted counts as late by one period. Readings: one per class, reference
     * and measured in seconds, output the budget granted.
     *
     * @param gains      the PI's gain and zero, e.g. {@link #DEFAULT_ABSOLUTE} or
     *                   {@code settings.control().absolute()}; fixed for the law's life
     * @param antiWindup whether a class whose budget was not granted as computed continues from the budget
     *                   granted (paper 001 section III.D); {@code true} in production, {@code false} only to
     *                   show what windup does
     * @throws IllegalArgumentException if a gain is not finite
     */
    public static ObservableLaw absolute(Gains gains, boolean antiWindup) {
        return new AbsoluteDelayLaw(check(gains), antiWindup);
    }

    /**
     * Relative delay control, paper 001 section III.D: per pair of adjacent classes (i, i+1), the PI of eq. 1
     * moves the budget ratio {@code U_i = B_i / B_{i+1}} by the error {@code W_{i+1}/W_i - C_{i+1}/C_i}
     * (reference minus measured delay ratio, {@code W} the delay targets); the ratios chain into shares of
     * {@code maxExecuting}, granted as integers that sum to it, each at least its {@code minBudget}. A pair in
     * which a class had nothing granted holds its ratio. Readings: one per pair, named after its lower class,
     * output the budget ratio.
     *
     * @param gains the PI's gain and zero, e.g. {@link #DEFAULT_RELATIVE} or
     *              {@code settings.control().relative()}; fixed for the law's life
     * @throws IllegalArgumentException if a gain is not finite
     */
    public static ObservableLaw relative(Gains gains) {
        return new RelativeDelayLaw(check(gains));
    }

    /**
     * The capacity law ({@link CapacityLaw}): {@code maxExecuting} from the measured service time against its
     * no-load baseline, cut when requests queue behind the engine, grown while there is demand and none does,
     * between the sum of the minimum budgets and {@link Settings#ceiling()}. Budgets that were the whole limit
     * follow it.
     */
    public static ControlLaw capacity() {
        return new CapacityLaw();
    }

    /**
     * The admission law ({@link AdmissionLaw}): per class, the session rate that the permits the classes above
     * leave can serve at the measured requests per session and service time, scaled by a factor that the
     * class's 95th-percentile queue delay against its target moves each period. Readings: one per class, output
     * the session rate (0 = open).
     */
    public static ObservableLaw admission() {
        return new AdmissionLaw(Map.of());
    }

    /**
     * The admission law with ceilings: a class named in {@code ceilings} with a rate above 0 is never admitted
     * faster than that many sessions a second (the {@code session-rate} an operator gave in the policy), also
     * before its own rate is measured.
     */
    public static ObservableLaw admission(Map<String, Double> ceilings) {
        return new AdmissionLaw(ceilings);
    }

    /**
     * The PI utilization controller of paper 000 ({@link UtilizationLaw}): each class's content level held so
     * that the classes' utilization, by the fitted model {@code U = a R + b W + c D}
     * ({@link UtilizationEstimator}), stays at the target, highest class first, gains from the gain-margin rule.
     */
    public static LevelLaw utilization(ControlPolicy.Degradation settings) {
        return new UtilizationLaw(settings);
    }

    /**
     * Threshold mode of paper 003 ({@link ThresholdLaw}): full or degraded content by high and low thresholds of
     * the exponentially averaged utilization and network utilization.
     */
    public static LevelLaw threshold(ControlPolicy.Degradation settings) {
        return new ThresholdLaw(settings);
    }

    /**
     * Laws run one after the other in one period, each on the settings the one before returned: capacity first
     * (the total), then the budget law (the split), then admission (the rates, from the total and split in
     * force), then the degradation law (the content levels). Its readings are the first observable law's, in the
     * order given.
     *
     * @param laws the laws; nulls are skipped
     */
    public static ObservableLaw chain(ControlLaw... laws) {
        java.util.List<ControlLaw> list = new java.util.ArrayList<>();
        for (ControlLaw l : laws) {
            if (l != null) {
                list.add(l);
            }
        }
        ControlLaw[] all = list.toArray(new ControlLaw[0]);
        return new ObservableLaw() {
            @Override
            public Settings next(Sample sample, Settings current) {
                Settings s = current;
                for (ControlLaw l : all) {
                    Settings n = l.next(sample, s);
                    if (n == null) {
                        throw new IllegalStateException(l.getClass().getSimpleName() + " returned no settings");
                    }
                    s = n;
                }
                return s;
            }

            @Override
            public java.util.List<LoopReading> readings() {
                for (ControlLaw l : all) {
                    if (l instanceof ObservableLaw o) {
                        return o.readings();
                    }
                }
                return java.util.List.of();
            }
        };
    }

    private static Gains check(Gains gains) {
        if (!Double.isFinite(gains.gain()) || !Double.isFinite(gains.zero())) {
            throw new IllegalArgumentException("gains must be finite: g=" + gains.gain() + ", r=" + gains.zero());
        }
        return gains;
    }

    /** The quantile the laws measure: the settings' {@code delayQuantile} if in (0, 1], else 0 (the mean). */
    static double quantile(Settings settings) {
        double q = settings.control().delayQuantile();
        return q > 0 && q <= 1 ? q : 0;
    }

    /**
     * One step of an exponentially weighted average: {@code weight * x + (1 - weight) * average}, or {@code x}
     * itself while the average is not finite (no value yet). A non-finite {@code x} is not skipped here; a caller
     * that must skip it checks first.
     */
    static double ewma(double average, double x, double weight) {
        return Double.isFinite(average) ? weight * x + (1 - weight) * average : x;
    }

    /** A duration in seconds. */
    static double seconds(Duration d) {
        return d.getSeconds() + d.getNano() / 1e9;
    }

    /** The sample of class {@code name} at {@code index}: by position if it matches, else by name; null if absent. */
    static ClassSample classSample(Sample sample, int index, String name) {
        if (index < sample.size() && sample.get(index).name().equals(name)) {
            return sample.get(index);
        }
        return sample.get(name);
    }

    /**
     * The delay a class measured, in seconds, or NaN when the period granted none of its requests (or the
     * sample holds a number that is not a delay).
     */
    static double delay(ClassSample c, double quantile) {
        if (c == null) {
            return Double.NaN;
        }
        double d = c.delay(quantile);
        return d >= 0 && Double.isFinite(d) ? d : Double.NaN;
    }

    /**
     * The delay ratio {@code lower / higher}, each delay no less than {@link #DELAY_FLOOR_SECONDS}; NaN if either
     * is NaN.
     */
    static double delayRatio(double higher, double lower) {
        return Math.max(lower, DELAY_FLOOR_SECONDS) / Math.max(higher, DELAY_FLOOR_SECONDS);
    }

    /** The names of the classes of {@code settings}, in order: what {@link #sameClasses} compares with. */
    static String[] names(Settings settings) {
        String[] names = new String[settings.classes().size()];
        for (int k = 0; k < names.length; k++) {
            names[k] = settings.get(k).name();
        }
        return names;
    }

    /** Each class's minimum budget, within {@code 0..total}. */
    static int[] minimums(Settings settings, int total) {
        int[] mins = new int[settings.classes().size()];
        for (int k = 0; k < mins.length; k++) {
            mins[k] = Math.max(0, Math.min(settings.get(k).minBudget(), total));
        }
        return mins;
    }

    /** {@code current} with the budgets {@code granted}, set by the controller; {@code current} if they are its own. */
    static Settings withBudgets(Settings current, int[] granted) {
        if (java.util.Arrays.equals(granted, current.budgets())) {
            return current;
        }
        return current.withBudgets(granted).withSource(Settings.Source.CONTROLLER);
    }

    /** Whether {@code names} are the classes of {@code settings}, in order (false for null). */
    static boolean sameClasses(String[] names, Settings settings) {
        if (names == null || names.length != settings.classes().size()) {
            return false;
        }
        for (int k = 0; k < names.length; k++) {
            if (!names[k].equals(settings.get(k).name())) {
                return false;
            }
        }
        return true;
    }
}

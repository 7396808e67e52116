package dev.servletqos.control;

import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy.Gains;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Relative delay control, paper 001 section III.D: for each pair of adjacent classes (i, i+1) one PI holds the
 * ratio of their delays at the ratio of their targets by setting the ratio of their budgets,
 *
 * <pre>
 *   U_i(m) = U_i(m-1) + g (E_i(m) - r E_i(m-1))                                   (paper 001, eq. 1)
 *   E_i(m) = W_{i+1} / W_i  -  C_{i+1}(m) / C_i(m)        reference minus measured delay ratio
 *   U_i(m) = B_i(m) / B_{i+1}(m)                           the budget ratio
 * </pre>
 *
 * with {@code W} the classes' {@code delayTarget}s (targets 1 s, 2 s, 4 s ask for delays in the ratio 1:2:4)
 * and {@code C} their measured delays ({@link ClassSample#delay} at the settings' {@code delayQuantile}). When
 * the lower class's delay is relatively too long the error is negative and the ratio falls, moving permits to
 * the lower class, so {@code g} is positive ({@link ControlLaws#DEFAULT_RELATIVE}).
 *
 * <p>Budgets: the ratios chain into shares relative to the last class, {@code NB_{N-1} = 1},
 * {@code NB_i = NB_{i+1} U_i}, and {@code maxExecuting} is shared in proportion to them (the paper's
 * {@code control_relative_delay}), as integers summing to exactly {@code maxExecuting}, each at least its
 * {@code minBudget} ({@link Budgets#proportional}).
 *
 * <p>Limits and anti-windup: each ratio stays within {@code [1/M, M]}, M = {@code maxExecuting} (no split of M
 * permits is more lopsided). When a pair's ratio was clamped there, or one of its classes was held at its
 * minimum budget, or the settings in force hold other budgets than the law last gave, the next step starts
 * from the ratio of the budgets in force instead of {@code U_i(m-1)} (the anti-windup of section III.D).
 *
 * <p>Measurement: delays under {@link ControlLaws#DELAY_FLOOR_SECONDS} count as that floor, and a pair whose
 * two delays are both under it holds (neither class queues: nothing to differentiate); the measured ratio is
 * clamped to within a factor of 2 of the reference so that one period with a near-zero delay cannot swing the
 * split to its bound. A pair in which a class had no request granted holds its ratio (the paper's footnote 2:
 * with one class idle the relative guarantee is met by default), unless that class has requests waiting while
 * the other was served: then its delay is taken to be twice what the reference asks, so that the ratio moves
 * its way (otherwise a class at budget 0 would starve for ever).
 *
 * <p>Not thread-safe: one control task calls {@link #next}; {@link #readings()} may be read from any thread.
 */
final class RelativeDelayLaw implements ObservableLaw {

    private static final double RATIO_CLAMP = 2;

    private final Gains gains;

    private String[] names;
    private double[] ratio;
    private double[] lastError;
    private boolean[] saturated;
    private int[] lastGranted;
    private volatile List<LoopReading> readings = List.of();

    RelativeDelayLaw(Gains gains) {
        this.gains = gains;
    }

    @Override
    public Settings next(Sample sample, Settings current) {
        int n = current.classes().size();
        if (n < 2) {
            readings = List.of();
            return current;
        }
        int total = Math.max(0, current.maxExecuting());
        double lowest = 1.0 / Math.max(1, total);
        double highest = Math.max(1, total);
        if (!ControlLaws.sameClasses(names, current)) {
            start(current, lowest, highest);
        }
        int[] inForce = current.budgets();
        boolean overridden = !Arrays.equals(inForce, lastGranted);
        double quantile = ControlLaws.quantile(current);
        double[] delays = new double[n];
        boolean[] waiting = new boolean[n];
        int[] mins = ControlLaws.minimums(current, total);
        for (int k = 0; k < n; k++) {
            ClassSample c = ControlLaws.classSample(sample, k, names[k]);
            delays[k] = ControlLaws.delay(c, quantile);
            waiting[k] = c != null && c.queued() > 0;
        }
        double[] references = new double[n - 1];
        double[] measured = new double[n - 1];
        double[] errors = new double[n - 1];
        for (int p = 0; p < n - 1; p++) {
            double base = ratio[p];
            if ((saturated[p] || overridden) && inForce[p] > 0 && inForce[p + 1] > 0) {
                base = (double) inForce[p] / inForce[p + 1];
            }
            double reference = ControlLaws.seconds(current.get(p + 1).delayTarget())
                    / ControlLaws.seconds(current.get(p).delayTarget());
            double v = measuredRatio(delays[p], delays[p + 1], waiting[p], waiting[p + 1], reference);
            double e = reference - v;
            references[p] = reference;
            measured[p] = v;
            errors[p] = e;
            double u = base;
            if (Double.isFinite(e)) {
                u = base + gains.gain() * (e - gains.zero() * lastError[p]);
                lastError[p] = e;
            }
            ratio[p] = Math.max(lowest, Math.min(highest, u));
            saturated[p] = ratio[p] != u;
        }
        double[] shares = new double[n];
        shares[n - 1] = 1;
        double sum = 1;
        for (int k = n - 2; k >= 0; k--) {
            shares[k] = shares[k + 1] * ratio[k];
            sum += shares[k];
        }
        int[] granted = Budgets.proportional(shares, mins, total);
        List<LoopReading> out = new ArrayList<>(n - 1);
        for (int p = 0; p < n - 1; p++) {
            boolean pinned = total * shares[p] / sum < mins[p] || total * shares[p + 1] / sum < mins[p + 1];
            saturated[p] |= pinned;
            out.add(new LoopReading(names[p + 1], references[p], measured[p], errors[p], ratio[p], saturated[p]));
        }
        lastGranted = granted;
        readings = List.copyOf(out);
        return ControlLaws.withBudgets(current, granted);
    }

    @Override
    public List<LoopReading> readings() {
        return readings;
    }

    /**
     * {@code C_{i+1} / C_i}, or NaN to hold: see the class comment.
     */
    private static double measuredRatio(double higher, double lower, boolean higherWaits, boolean lowerWaits,
                                        double reference) {
        if (!(reference > 0) || !Double.isFinite(reference)) {
            return Double.NaN;
        }
        boolean hasHigher = !Double.isNaN(higher);
        boolean hasLower = !Double.isNaN(lower);
        if (hasHigher && hasLower) {
            if (higher <= ControlLaws.DELAY_FLOOR_SECONDS && lower <= ControlLaws.DELAY_FLOOR_SECONDS) {
                return Double.NaN;
            }
            double v = ControlLaws.delayRatio(higher, lower);
            return Math.max(reference / RATIO_CLAMP, Math.min(reference * RATIO_CLAMP, v));
        }
        if (hasHigher && lowerWaits) {
            return 2 * reference;
        }
        if (hasLower && higherWaits) {
            return reference / 2;
        }
        return Double.NaN;
    }


    /** Bumpless start: each ratio from the budgets in force (1 where one is 0, as paper 001 starts), no error. */
    private void start(Settings current, double lowest, double highest) {
        int n = current.classes().size();
        names = ControlLaws.names(current);
        int[] b = current.budgets();
        ratio = new double[n - 1];
        lastError = new double[n - 1];
        saturated = new boolean[n - 1];
        for (int p = 0; p < n - 1; p++) {
            double u = b[p] > 0 && b[p + 1] > 0 ? (double) b[p] / b[p + 1] : 1;
            ratio[p] = Math.max(lowest, Math.min(highest, u));
        }
        lastGranted = b;
    }
}

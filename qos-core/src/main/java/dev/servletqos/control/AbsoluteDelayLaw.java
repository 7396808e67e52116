package dev.servletqos.control;

import dev.servletqos.Settings.ClassSettings;
import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy.Gains;
import java.util.ArrayList;
import java.util.List;

/**
 * Absolute delay control, paper 001 section III.D: one PI per class k holds its queue delay at its target,
 *
 * <pre>
 *   B_k(m) = B_k(m-1) + g (E_k(m) - r E_k(m-1)),   E_k(m) = W_k - C_k(m)          (paper 001, eq. 1)
 * </pre>
 *
 * with {@code W_k} the class's {@code delayTarget} in seconds, {@code C_k(m)} its measured delay in seconds
 * ({@link ClassSample#delay} at the settings' {@code delayQuantile}: the mean for 0), and {@code B_k} its
 * budget in permits, kept as a real number between periods and granted as an integer. A delay above its target
 * gives a negative error, which must raise the budget, so {@code g} is negative
 * ({@link ControlLaws#DEFAULT_ABSOLUTE}).
 *
 * <p>Granting: the budgets are granted in priority order from {@code maxExecuting} ({@link Budgets#byPriority}):
 * each class gets what it asks for, at least its {@code minBudget}, at most what the higher classes left minus
 * the minimums of the lower ones. When the total cannot meet every target, the lowest classes' targets are
 * the ones violated (paper 001 section II.B's absolute guarantee).
 *
 * <p>Anti-windup (paper 001 section III.D): when a class's budget was not granted as computed (the total was
 * short, or the result was clamped to {@code [minBudget, maxExecuting]}, or the settings in force hold another
 * budget than the law last gave), the next step starts from the budget in force instead of {@code B_k(m-1)}.
 * Without it, {@code B_k} keeps integrating the ungranted demand and takes as many periods to unwind.
 *
 * <p>Periods without a measurement: a class none of whose requests was granted and none waits holds its budget
 * and does not integrate (nothing to control). One with requests waiting but none granted in a whole period
 * (its permits all held by long requests, or a budget of 0) has no delay to measure, yet is clearly late: its
 * delay is taken as its target plus the period {@code T}, so {@code E = -T} and its budget rises (otherwise a
 * class at budget 0 would starve for ever). A {@code Sample} class missing from the sample counts as idle.
 *
 * <p>Not thread-safe: one control task calls {@link #next}; {@link #readings()} may be read from any thread.
 */
final class AbsoluteDelayLaw implements ObservableLaw {

    private final Gains gains;
    private final boolean antiWindup;

    private String[] names;
    private double[] demand;
    private double[] lastError;
    private int[] lastGranted;
    private boolean[] saturated;
    private volatile List<LoopReading> readings = List.of();

    AbsoluteDelayLaw(Gains gains, boolean antiWindup) {
        this.gains = gains;
        this.antiWindup = antiWindup;
    }

    @Override
    public Settings next(Sample sample, Settings current) {
        int n = current.classes().size();
        int total = Math.max(0, current.maxExecuting());
        if (!ControlLaws.sameClasses(names, current)) {
            start(current);
        }
        double quantile = ControlLaws.quantile(current);
        double period = sample.seconds();
        int[] mins = ControlLaws.minimums(current, total);
        double[] targets = new double[n];
        double[] measured = new double[n];
        double[] errors = new double[n];
        for (int k = 0; k < n; k++) {
            ClassSettings cs = current.get(k);
            targets[k] = ControlLaws.seconds(cs.delayTarget());
            int inForce = cs.budget();
            double base = demand[k];
            if (antiWindup && (saturated[k] || inForce != lastGranted[k])) {
                base = inForce;
            }
            ClassSample c = ControlLaws.classSample(sample, k, cs.name());
            measured[k] = ControlLaws.delay(c, quantile);
            double e;
            if (!Double.isNaN(measured[k])) {
                e = targets[k] - measured[k];
            } else if (c != null && c.queued() > 0 && period > 0 && Double.isFinite(period)) {
                measured[k] = targets[k] + period;
                e = -period;
            } else {
                e = Double.NaN;
            }
            errors[k] = e;
            if (Double.isNaN(e)) {
                demand[k] = base;
            } else {
                demand[k] = base + gains.gain() * (e - gains.zero() * lastError[k]);
                lastError[k] = e;
            }
            // a runaway demand (no anti-windup, a plant that never answers) stays a finite number
            demand[k] = Math.max(-1e9, Math.min(1e9, demand[k]));
        }
        int[] granted = Budgets.byPriority(demand, mins, total);
        List<LoopReading> out = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            saturated[k] = granted[k] != Math.round(demand[k]);
            lastGranted[k] = granted[k];
            out.add(new LoopReading(names[k], targets[k], measured[k], errors[k], granted[k], saturated[k]));
        }
        readings = List.copyOf(out);
        return ControlLaws.withBudgets(current, granted);
    }

    @Override
    public List<LoopReading> readings() {
        return readings;
    }


    /** Bumpless start: each PI continues from the budget in force, with no error remembered. */
    private void start(Settings current) {
        int n = current.classes().size();
        names = ControlLaws.names(current);
        demand = new double[n];
        lastError = new double[n];
        lastGranted = new int[n];
        saturated = new boolean[n];
        for (int k = 0; k < n; k++) {
            demand[k] = current.get(k).budget();
            lastGranted[k] = current.get(k).budget();
        }
    }
}

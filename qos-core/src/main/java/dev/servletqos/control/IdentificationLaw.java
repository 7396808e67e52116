package dev.servletqos.control;

import dev.servletqos.Settings;
import java.util.List;

/**
 * A system identification experiment run as a {@link ControlLaw} (paper 001 sections IV.B and VI.A): each
 * period it switches the plant's input between two levels by a {@link Prbs}, records the input that was in
 * force and the output the period measured, and fits the second-order model of eq. 6 by recursive least
 * squares (eqs. 3-5, {@link ArxIdentifier}). {@link #result()} reports the model, its {@code R^2} and the gains
 * {@link GainDesigner} proposes. It sees only Samples and Settings, so it runs unchanged on the live engine and
 * in a simulator; run it open loop (no other law) on a loaded server for a few dozen periods or more.
 *
 * <ul>
 *   <li>{@link #absolute}: the input is one class's budget, toggled between two budgets, the other classes
 *       sharing the rest of {@code maxExecuting} in proportion to the budgets they had when the experiment
 *       started; the output is that class's delay in seconds. A delay is not 0 at budget 0, so the model
 *       gets a constant term; paper 001 fitted differences of consecutive periods instead, which biases the
 *       fit under noise (see {@link ArxIdentifier}).
 *   <li>{@link #relative}: the input is the budget ratio {@code B_i / B_{i+1}} of two adjacent classes,
 *       toggled between two ratios (the paper used 1 and 3), all of {@code maxExecuting} shared with the
 *       pair's part split by that ratio; the output is their delay ratio {@code C_{i+1} / C_i} (each delay no
 *       less than {@link ControlLaws#DELAY_FLOOR_SECONDS}).
 * </ul>
 *
 * A period without a measurement (no request of the class granted) is a gap: the fit restarts its history.
 * Delays are measured at the settings' {@code delayQuantile}, as the laws measure them. The readings have the
 * output measured and the input set next, with no reference. Not thread-safe, except {@link #readings()}.
 */
public final class IdentificationLaw implements ObservableLaw {

    /** The fewest regression rows {@link #result()} accepts, about twice the model's parameters. */
    public static final int MIN_SAMPLES = 8;

    private final boolean absolute;
    private final int index;
    private final double low;
    private final double high;
    private final Prbs prbs;
    private final ArxIdentifier identifier;

    private String[] names;
    private int[] base;
    private volatile List<LoopReading> readings = List.of();

    private IdentificationLaw(boolean absolute, int index, double low, double high, long seed) {
        this.absolute = absolute;
        this.index = index;
        this.low = low;
        this.high = high;
        this.prbs = new Prbs(seed);
        this.identifier = new ArxIdentifier(absolute);
    }

    /**
     * Identifies the absolute-delay plant of one class: budget in, delay out.
     *
     * @param classIndex the class (0 = highest priority)
     * @param lowBudget  the lower budget, at least 0 (paper 001: 25 of 128)
     * @param highBudget the higher budget, more than {@code lowBudget} (paper 001: 100 of 128); both are
     *                   clamped to the class's minimum and to what the other classes' minimums leave
     * @param seed       the excitation's seed
     * @throws IllegalArgumentException if a value is out of range
     */
    public static IdentificationLaw absolute(int classIndex, int lowBudget, int highBudget, long seed) {
        if (classIndex < 0) {
            throw new IllegalArgumentException("classIndex must be at least 0: " + classIndex);
        }
        if (lowBudget < 0 || highBudget <= lowBudget) {
            throw new IllegalArgumentException("need 0 <= lowBudget < highBudget: " + lowBudget + ", " + highBudget);
        }
        return new IdentificationLaw(true, classIndex, lowBudget, highBudget, seed);
    }

    /**
     * Identifies the relative-delay plant of classes {@code higherClass} and {@code higherClass + 1}: budget
     * ratio in, delay ratio out.
     *
     * @param higherClass the higher class of the pair (0 = highest priority)
     * @param lowRatio    the lower budget ratio, more than 0 (paper 001: 1)
     * @param highRatio   the higher budget ratio, more than {@code lowRatio} (paper 001: 3)
     * @param seed        the excitation's seed
     * @throws IllegalArgumentException if a value is out of range
     */
    public static IdentificationLaw relative(int higherClass, double lowRatio, double highRatio, long seed) {
        if (higherClass < 0) {
            throw new IllegalArgumentException("higherClass must be at least 0: " + higherClass);
        }
        if (!(lowRatio > 0) || !(highRatio > lowRatio) || !Double.isFinite(highRatio)) {
            throw new IllegalArgumentException("need 0 < lowRatio < highRatio: " + lowRatio + ", " + highRatio);
        }
        return new IdentificationLaw(false, higherClass, lowRatio, highRatio, seed);
    }

    /**
     * Records the period that ended and sets the next input level.
     *
     * @throws IllegalArgumentException if the settings have too few classes for the experiment
     */
    @Override
    public Settings next(Sample sample, Settings current) {
        int n = current.classes().size();
        int needed = absolute ? index + 1 : index + 2;
        if (n < needed) {
            throw new IllegalArgumentException("the experiment needs " + needed + " classes, the settings have " + n);
        }
        if (!ControlLaws.sameClasses(names, current)) {
            names = ControlLaws.names(current);
            base = current.budgets();
            identifier.gap();
        }
        int[] inForce = current.budgets();
        double quantile = ControlLaws.quantile(current);
        double u;
        double y;
        if (absolute) {
            u = inForce[index];
            y = ControlLaws.delay(ControlLaws.classSample(sample, index, names[index]), quantile);
        } else {
            u = inForce[index + 1] > 0 ? (double) inForce[index] / inForce[index + 1] : Double.NaN;
            double higher = ControlLaws.delay(ControlLaws.classSample(sample, index, names[index]), quantile);
            double lower = ControlLaws.delay(ControlLaws.classSample(sample, index + 1, names[index + 1]), quantile);
            y = ControlLaws.delayRatio(higher, lower);
        }
        identifier.add(u, y);

        double level = prbs.next(low, high);
        int total = Math.max(0, current.maxExecuting());
        int[] mins = ControlLaws.minimums(current, total);
        int[] next = absolute ? splitAround(level, total, mins) : splitByRatio(level, total, mins);
        double applied = absolute ? next[index]
                : next[index + 1] > 0 ? (double) next[index] / next[index + 1] : level;
        String name = names[absolute ? index : index + 1];
        readings = List.of(new LoopReading(name, Double.NaN, y, Double.NaN, applied,
                absolute && applied != level));
        return ControlLaws.withBudgets(current, next);
    }

    /**
     * The model fitted so far, its fit and the proposed gains.
     *
     * @throws IllegalStateException with fewer than {@link #MIN_SAMPLES} regression rows
     */
    public IdentificationReport result() {
        int samples = identifier.samples();
        if (samples < MIN_SAMPLES) {
            throw new IllegalStateException(samples + " samples so far, at least " + MIN_SAMPLES + " needed");
        }
        SecondOrderModel model = identifier.model();
        return new IdentificationReport(model, identifier.rSquared(), samples, GainDesigner.design(model));
    }

    /** Regression rows so far (a period without a measurement is a gap, not a row). */
    public int samples() {
        return identifier.samples();
    }

    @Override
    public List<LoopReading> readings() {
        return readings;
    }

    /** The class gets {@code level}; the others share the rest in proportion to their starting budgets. */
    private int[] splitAround(double level, int total, int[] mins) {
        int n = mins.length;
        int othersMin = 0;
        for (int k = 0; k < n; k++) {
            othersMin += k == index ? 0 : mins[k];
        }
        int own = Budgets.round(level, mins[index], Math.max(mins[index], total - othersMin));
        double[] weights = new double[n - 1];
        int[] otherMins = new int[n - 1];
        for (int k = 0, j = 0; k < n; k++) {
            if (k != index) {
                weights[j] = base[k];
                otherMins[j++] = mins[k];
            }
        }
        int[] others = Budgets.proportional(weights, otherMins, total - own);
        int[] out = new int[n];
        for (int k = 0, j = 0; k < n; k++) {
            out[k] = k == index ? own : others[j++];
        }
        return out;
    }

    /** All of {@code total} shared by the starting budgets, the pair's part split by {@code ratio}. */
    private int[] splitByRatio(double ratio, int total, int[] mins) {
        double[] weights = new double[base.length];
        for (int k = 0; k < weights.length; k++) {
            weights[k] = Math.max(base[k], 0);
        }
        double pair = weights[index] + weights[index + 1];
        if (pair <= 0) {
            pair = 2;
        }
        weights[index] = pair * ratio / (1 + ratio);
        weights[index + 1] = pair / (1 + ratio);
        return Budgets.proportional(weights, mins, total);
    }
}

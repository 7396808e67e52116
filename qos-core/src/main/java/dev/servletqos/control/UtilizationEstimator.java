package dev.servletqos.control;

import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import java.util.List;

/**
 * The utilization estimate of paper 000 (section 4.3, eqs. 1 and 2): the bottleneck's utilization as a linear
 * function of what the server did in a period,
 *
 * <pre>
 *   U = a R + b W + c D
 * </pre>
 *
 * with {@code R} the requests completed per second, {@code W} their response bytes per second and {@code D}
 * the requests refused per second (the rejection cost {@code c} of eq. 2: refusing a request costs something
 * too). {@code a} and {@code b} are fitted each period by {@link RecursiveLeastSquares} (forgetting factor
 * {@value #FORGETTING}: a memory of about 50 periods, so the fit follows a server whose costs drift) against the
 * measured utilization less {@code c D}, and kept at 0 or more. {@code c} is given
 * ({@code control.utilization.rejection-cost}), measured as paper 000 did: the utilization while every request
 * is refused over the refusals per second. Fitting it with {@code a} and {@code b} was tried: in the simulator
 * (refusals costing 0.05 ms of utilization each) it came out ten times too high, the refusals rising and falling
 * with the load, and the rejection overhead of the classes below (000 section 5.2) took premium's whole target.
 * The fitted model then gives each class's share, {@code U_k = a R_k + b W_k + c D_k}, which no sensor measures,
 * and a utilization free of the measurement's noise (the paper's reason for using it as the feedback).
 *
 * <p>The measured utilization is the bottleneck's ({@link UtilizationSource}): the process's CPU load where
 * requests compute, or the worker occupancy (the permits busy, by Little's law, over {@code max-executing})
 * where they wait on a back end. {@code auto} averages both (weight {@value #SOURCE_WEIGHT} for the newest
 * period) and takes the busier, switching only when the other is busier by {@value #SWITCH_MARGIN} (the fit
 * starts over then, its coefficients being of the other resource); occupancy when the CPU load is unknown.
 *
 * <p>A plain object: one instance per engine, not thread-safe.
 */
public final class UtilizationEstimator {

    /** The forgetting factor of the fit. */
    public static final double FORGETTING = 0.98;
    /** The initial covariance of the fit (parameters start at 0): large, so the first periods decide. */
    public static final double INITIAL_COVARIANCE = 1e3;
    /** Byte rates are fitted in megabytes per second, so that the three regressors are of similar size. */
    static final double BYTES_SCALE = 1e6;
    /** How much busier the other resource must be before {@code auto} switches to it. */
    public static final double SWITCH_MARGIN = 0.1;
    /** The newest period's weight in the averages {@code auto} compares. */
    public static final double SOURCE_WEIGHT = 0.4;

    private final UtilizationSource configured;
    private final double rejectionCost;
    private RecursiveLeastSquares fit = newFit();
    private UtilizationSource used;
    private double cpuAverage = Double.NaN;
    private double occupancyAverage = Double.NaN;
    private double measured = Double.NaN;
    private double estimated = Double.NaN;
    private int switches;

    /**
     * @param source        which utilization to fit: cpu, occupancy or auto
     * @param rejectionCost {@code c}: the utilization one refused request per second costs, in seconds (0 or more)
     */
    public UtilizationEstimator(UtilizationSource source, double rejectionCost) {
        this.configured = java.util.Objects.requireNonNull(source, "source");
        this.rejectionCost = Math.max(0, rejectionCost);
        this.used = source == UtilizationSource.AUTO ? null : source;
    }

    private static RecursiveLeastSquares newFit() {
        return new RecursiveLeastSquares(2, FORGETTING, 0, INITIAL_COVARIANCE);
    }

    /**
     * Takes one period: picks the source, fits the model to the measured utilization (when the period served
     * or refused anything) and keeps the measured and estimated totals.
     *
     * @return the measured utilization of the source in use, NaN when it measured nothing
     */
    public double update(Sample sample) {
        double cpu = sample.cpu();
        cpu = cpu >= 0 && cpu <= 1 ? cpu : Double.NaN;
        double occupancy = occupancy(sample);
        choose(cpu, occupancy);
        double y = used == UtilizationSource.CPU ? cpu : occupancy;
        double[] q = regressors(sample);
        double refused = refusals(sample);
        if (Double.isFinite(y) && q[0] > 0) {
            fit.update(q, y - rejectionCost * refused);
            fit.clampBelow(0);
        }
        measured = y;
        estimated = fit.predict(q) + rejectionCost * refused;
        return y;
    }

    /** The worker occupancy of a period: the sum of the classes' shares of max-executing (NaN if none known). */
    static double occupancy(Sample sample) {
        double sum = 0;
        boolean any = false;
        for (ClassSample c : sample.classes()) {
            if (Double.isFinite(c.share())) { // NaN only when completions had no timed service time
                sum += c.share();
                any = true;
            }
        }
        return any ? Math.min(1, Math.max(0, sum)) : Double.NaN;
    }

    private void choose(double cpu, double occupancy) {
        if (configured != UtilizationSource.AUTO) {
            return;
        }
        cpuAverage = average(cpuAverage, cpu);
        occupancyAverage = average(occupancyAverage, occupancy);
        UtilizationSource next = used;
        if (!Double.isFinite(cpuAverage)) {
            next = UtilizationSource.OCCUPANCY;
        } else if (!Double.isFinite(occupancyAverage)) {
            next = UtilizationSource.CPU;
        } else if (used == null) {
            next = cpuAverage >= occupancyAverage ? UtilizationSource.CPU : UtilizationSource.OCCUPANCY;
        } else if (used == UtilizationSource.CPU && occupancyAverage > cpuAverage + SWITCH_MARGIN) {
            next = UtilizationSource.OCCUPANCY;
        } else if (used == UtilizationSource.OCCUPANCY && cpuAverage > occupancyAverage + SWITCH_MARGIN) {
            next = UtilizationSource.CPU;
        }
        if (used != null && next != used) {
            fit = newFit();
            switches++;
        }
        used = next;
    }

    private static double average(double average, double x) {
        if (!Double.isFinite(x)) {
            return average;
        }
        return ControlLaws.ewma(average, x, SOURCE_WEIGHT);
    }

    private static double[] regressors(Sample sample) {
        double r = 0;
        double w = 0;
        for (ClassSample c : sample.classes()) {
            r += finite(c.completions());
            w += finite(c.bytes());
        }
        return new double[] {r, w / BYTES_SCALE};
    }

    private static double refusals(Sample sample) {
        double d = 0;
        for (ClassSample c : sample.classes()) {
            d += finite(c.refusals());
        }
        return d;
    }

    private static double finite(double x) {
        return Double.isFinite(x) && x > 0 ? x : 0;
    }

    /** One class's utilization by the model: {@code a R_k + b W_k + c D_k}. */
    public double utilization(ClassSample c) {
        return a() * finite(c.completions()) + b() * finite(c.bytes()) + c() * finite(c.refusals());
    }

    /** The fitted cost of a completed request: utilization per request per second (seconds per request). */
    public double a() {
        return fit.parameters()[0];
    }

    /** The fitted cost of a response byte: utilization per byte per second (seconds per byte). */
    public double b() {
        return fit.parameters()[1] / BYTES_SCALE;
    }

    /** The cost of refusing a request (seconds per request), paper 000's {@code c}, as given. */
    public double c() {
        return rejectionCost;
    }

    /** The last period's measured utilization, 0..1, NaN if it measured none. */
    public double measured() {
        return measured;
    }

    /** The last period's utilization by the model, {@code a R + b W + c D} over all classes. */
    public double estimated() {
        return estimated;
    }

    /** The source in use: cpu or occupancy (null before the first period with {@code auto}). */
    public UtilizationSource source() {
        return used;
    }

    /** Periods fitted since the last switch of source. */
    public int updates() {
        return fit.updates();
    }

    /** How often {@code auto} switched source. */
    public int switches() {
        return switches;
    }

    /**
     * The status a law publishes: this estimator's source, measured and estimated utilization and fitted
     * coefficients, with the law's name, smoothed utilization and network utilization (NaN if it keeps none),
     * and its classes.
     */
    UtilizationStatus status(String law, double smoothed, double network, List<UtilizationStatus.ClassLevel> classes) {
        return new UtilizationStatus(law, source() == null ? null : source().key(), measured(), estimated(), smoothed,
                network, a(), b(), c(), classes);
    }

    /** The network utilization of a period: response bytes per second over {@code capacity} (NaN if 0). */
    static double network(Sample sample, long capacity) {
        if (capacity <= 0) {
            return Double.NaN;
        }
        double w = 0;
        for (ClassSample c : sample.classes()) {
            w += finite(c.bytes());
        }
        return w / capacity;
    }
}

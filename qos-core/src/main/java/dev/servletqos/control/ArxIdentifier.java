package dev.servletqos.control;

/**
 * Fits the second-order model of paper 001, eq. 6 ({@link SecondOrderModel}), to a series of (input, output)
 * pairs by recursive least squares (eqs. 3-5, {@link RecursiveLeastSquares}), and measures the fit by
 * {@code R^2}, the share of the output's variance the model's one-step predictions explain (the paper's
 * residual analysis, section VI.A: 0.80 for its second-order relative-delay model).
 *
 * <p>With {@code offset}, the model has a constant term, {@code y(m) = a1 y(m-1) + a2 y(m-2) + b1 u(m-1) +
 * b2 u(m-2) + c}, for a plant whose output is not 0 at input 0 (a delay at budget 0). Paper 001 (section IV.B)
 * instead fitted eq. 6 to the differences of consecutive periods; that removes the constant too, but turns
 * white noise on the output into correlated noise, which biases least squares' {@code a1, a2}; the constant
 * does not (SystemIdentificationTest: {@code a1 = 0.2} fitted as 0.11 from differences, 0.22 with the
 * constant, for output noise of 0.05 s against 0.75 s between the input levels). The constant does not enter
 * the transfer function, so it changes nothing in the gains designed.
 *
 * <p>Feed it period by period with {@link #add}: the input in force during a period and the output measured at
 * its end. A pair with a non-finite number is a gap: the history restarts, since the model needs the two
 * previous pairs. The rows used for {@code R^2} are kept in a ring of the latest {@link #MAX_ROWS}.
 * Not thread-safe.
 */
public final class ArxIdentifier {

    /** The most regression rows kept for {@link #rSquared()}. */
    public static final int MAX_ROWS = 10_000;

    private final RecursiveLeastSquares rls;
    private final boolean offset;
    // rows of the output and its regressor (y(m-1), y(m-2), u(m-1), u(m-2)[, 1]), a ring
    private final double[] outputs = new double[MAX_ROWS];
    private final double[][] regressors = new double[MAX_ROWS][];
    private int rowCount;
    private int nextRow;
    private int history;
    private double y1 = Double.NaN;
    private double y2 = Double.NaN;
    private double u1 = Double.NaN;

    /**
     * With paper 001's estimator: no forgetting, parameters from 1, {@code R = 10 I}.
     *
     * @param offset whether the model has a constant term
     */
    public ArxIdentifier(boolean offset) {
        this.rls = RecursiveLeastSquares.paper(offset ? 5 : 4);
        this.offset = offset;
    }

    /**
     * Takes one period.
     *
     * @param u the input in force during the period (the model's {@code u(m-1)} for this {@code y(m)})
     * @param y the output measured at its end
     */
    public void add(double u, double y) {
        if (!Double.isFinite(u) || !Double.isFinite(y)) {
            gap();
            return;
        }
        if (history >= 2) {
            double[] q = offset ? new double[] {y1, y2, u, u1, 1} : new double[] {y1, y2, u, u1};
            rls.update(q, y);
            outputs[nextRow] = y;
            regressors[nextRow] = q;
            nextRow = (nextRow + 1) % MAX_ROWS;
            rowCount = Math.min(MAX_ROWS, rowCount + 1);
        }
        y2 = y1;
        y1 = y;
        u1 = u;
        history = Math.min(2, history + 1);
    }

    /** A missing period: the next fit needs two new pairs before it can use a third. */
    public void gap() {
        history = 0;
        y1 = Double.NaN;
        y2 = Double.NaN;
        u1 = Double.NaN;
    }

    /** The current estimate of {@code (a1, a2, b1, b2)}. */
    public SecondOrderModel model() {
        double[] p = rls.parameters();
        return new SecondOrderModel(p[0], p[1], p[2], p[3]);
    }

    /** The current estimate of the constant {@code c}; 0 without {@code offset}. */
    public double offset() {
        return offset ? rls.parameters()[4] : 0;
    }

    /**
     * {@code R^2 = 1 - sum (y - y*)^2 / sum (y - mean y)^2} over the kept rows, {@code y*} the current model's
     * one-step prediction: 1 for a perfect fit, 0 for a model no better than the mean, negative for worse. NaN
     * with fewer than two rows or an output that never varied.
     */
    public double rSquared() {
        if (rowCount < 2) {
            return Double.NaN;
        }
        double mean = 0;
        for (int i = 0; i < rowCount; i++) {
            mean += outputs[i];
        }
        mean /= rowCount;
        double residual = 0;
        double total = 0;
        for (int i = 0; i < rowCount; i++) {
            double e = outputs[i] - rls.predict(regressors[i]);
            residual += e * e;
            total += (outputs[i] - mean) * (outputs[i] - mean);
        }
        return total > 0 ? 1 - residual / total : Double.NaN;
    }

    /** The number of regression rows taken (each needs the two periods before it). */
    public int samples() {
        return rls.updates();
    }
}

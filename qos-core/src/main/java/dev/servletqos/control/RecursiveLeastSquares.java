package dev.servletqos.control;

import java.util.Arrays;

/**
 * Recursive least squares for a linear-in-parameters model {@code y = q^T theta}, paper 001 section IV.B,
 * eqs. 3-5, with an optional forgetting factor {@code lambda} (Astrom and Wittenmark, Adaptive Control, 2.2):
 *
 * <pre>
 *   gamma(m) = 1 / (lambda + q(m)^T R(m-1) q(m))                                 (3)
 *   theta(m) = theta(m-1) + R(m-1) q(m) gamma(m) (y(m) - q(m)^T theta(m-1))       (4)
 *   R(m)     = R(m-1) (I - q(m) gamma(m) q(m)^T R(m-1)) / lambda                  (5)
 * </pre>
 *
 * With {@code lambda = 1} these are the paper's equations and the estimate minimises the sum of squared
 * prediction errors over all samples; with {@code lambda < 1} old samples weigh {@code lambda^age}, so the
 * estimate follows a plant that drifts (memory about {@code 1 / (1 - lambda)} samples). Without excitation a
 * forgetting estimator's covariance grows without bound; here forgetting is suspended while the trace of
 * {@code R} exceeds {@link #MAX_TRACE_PER_PARAMETER} per parameter. Samples with a non-finite number are
 * ignored. Not thread-safe.
 */
public final class RecursiveLeastSquares {

    /** Paper 001's initial parameter estimate (every parameter 1). */
    public static final double PAPER_INITIAL_PARAMETER = 1;
    /** Paper 001's initial covariance (10 times the identity). */
    public static final double PAPER_INITIAL_COVARIANCE = 10;
    /** The trace of {@code R}, per parameter, above which forgetting is suspended. */
    public static final double MAX_TRACE_PER_PARAMETER = 1e6;

    private final int n;
    private final double lambda;
    private final double[] theta;
    private final double[][] r;
    private int updates;

    /**
     * @param parameters        the number of parameters, at least 1
     * @param forgetting        the forgetting factor lambda, in (0, 1]; 1 = no forgetting
     * @param initialParameter  every parameter's initial estimate
     * @param initialCovariance the diagonal of the initial {@code R}, more than 0: larger trusts the initial
     *                          estimate less
     * @throws IllegalArgumentException if a value is out of range
     */
    public RecursiveLeastSquares(int parameters, double forgetting, double initialParameter,
                                 double initialCovariance) {
        if (parameters < 1) {
            throw new IllegalArgumentException("parameters must be at least 1: " + parameters);
        }
        if (!(forgetting > 0 && forgetting <= 1)) {
            throw new IllegalArgumentException("forgetting must be in (0, 1]: " + forgetting);
        }
        if (!Double.isFinite(initialParameter)) {
            throw new IllegalArgumentException("initialParameter must be finite: " + initialParameter);
        }
        if (!(initialCovariance > 0 && Double.isFinite(initialCovariance))) {
            throw new IllegalArgumentException("initialCovariance must be more than 0: " + initialCovariance);
        }
        this.n = parameters;
        this.lambda = forgetting;
        this.theta = new double[n];
        Arrays.fill(theta, initialParameter);
        this.r = new double[n][n];
        for (int i = 0; i < n; i++) {
            r[i][i] = initialCovariance;
        }
    }

    /** Paper 001's estimator: no forgetting, parameters starting at 1, {@code R = 10 I}. */
    public static RecursiveLeastSquares paper(int parameters) {
        return new RecursiveLeastSquares(parameters, 1, PAPER_INITIAL_PARAMETER, PAPER_INITIAL_COVARIANCE);
    }

    /**
     * Takes one sample: eqs. 3-5.
     *
     * @param q the regressor, {@link #size()} numbers (not kept)
     * @param y the measured output
     * @return the prediction error before the update, {@code y - q^T theta(m-1)}; NaN if the sample was
     *         ignored for a number that is not finite
     */
    public double update(double[] q, double y) {
        if (q.length != n) {
            throw new IllegalArgumentException(q.length + " regressors for " + n + " parameters");
        }
        if (!Double.isFinite(y)) {
            return Double.NaN;
        }
        for (double x : q) {
            if (!Double.isFinite(x)) {
                return Double.NaN;
            }
        }
        double[] rq = new double[n];
        double qrq = 0;
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < n; j++) {
                s += r[i][j] * q[j];
            }
            rq[i] = s;
            qrq += q[i] * s;
        }
        double gamma = 1 / (lambda + qrq);
        double error = y - predict(q);
        for (int i = 0; i < n; i++) {
            theta[i] += rq[i] * gamma * error;
        }
        // R is symmetric, so q^T R = (R q)^T and the update keeps it symmetric
        double trace = 0;
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < n; j++) {
                r[i][j] -= rq[i] * rq[j] * gamma;
            }
            trace += r[i][i];
        }
        if (lambda < 1 && trace < MAX_TRACE_PER_PARAMETER * n) {
            for (double[] row : r) {
                for (int j = 0; j < n; j++) {
                    row[j] /= lambda;
                }
            }
        }
        updates++;
        return error;
    }

    /**
     * Keeps the estimate at {@code min} or more (costs are not negative): a parameter below it is set to it and
     * the others moved with it as their covariance with it says, {@code theta <- theta - R e_i (theta_i - min) /
     * R_ii}, the projection onto {@code theta_i = min} in the metric of {@code R^-1} (the estimate the data make
     * likeliest on that bound, Goodwin and Sin, Adaptive Filtering, 3.7). Setting the one parameter alone would
     * leave the others where the data had put them together with the negative one: the prediction off, and every
     * later update, that moves it below again, undone.
     */
    public void clampBelow(double min) {
        for (int round = 0; round < n; round++) {
            int worst = -1;
            for (int i = 0; i < n; i++) {
                if (theta[i] < min && (worst < 0 || theta[i] < theta[worst])) {
                    worst = i;
                }
            }
            if (worst < 0) {
                return;
            }
            double shift = (theta[worst] - min) / r[worst][worst];
            for (int j = 0; j < n; j++) {
                theta[j] -= r[j][worst] * shift;
            }
            theta[worst] = min;
        }
        for (int i = 0; i < n; i++) {
            theta[i] = Math.max(min, theta[i]);
        }
    }

    /** The model's output for regressor {@code q} with the current estimate, {@code q^T theta}. */
    public double predict(double[] q) {
        double s = 0;
        for (int i = 0; i < n; i++) {
            s += q[i] * theta[i];
        }
        return s;
    }

    /** The current estimate (a copy). */
    public double[] parameters() {
        return theta.clone();
    }

    /** The number of parameters. */
    public int size() {
        return n;
    }

    /** The number of samples taken (ignored ones not counted). */
    public int updates() {
        return updates;
    }
}

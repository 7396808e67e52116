package dev.servletqos.control;

import dev.servletqos.policy.ControlPolicy.Gains;
import java.util.List;

/**
 * Chooses the gains of the PI {@code D(z) = g (z - r) / (z - 1)} (paper 001 eq. 8) for a fitted
 * {@link SecondOrderModel} (eqs. 6-7), doing by search what the paper did with MATLAB's root locus (section
 * IV.C): the closed-loop poles are the roots of {@code (z - 1)(z^2 - a1 z - a2) + g (z - r)(b1 z + b2)}
 * (eq. 9's denominator), and among the pairs whose poles all lie inside the unit circle, also with the gain
 * halved and doubled (a gain margin of 2 either way, against the model's error), the one with the shortest
 * settling time wins.
 *
 * <p>Settling time in periods is {@code ln(band) / ln(rho)}, {@code rho} the largest pole modulus: the
 * periods until the slowest mode has shrunk to {@link #SETTLING_BAND} (2 %) of its initial size. (Paper 001's
 * quoted settling times, 270 s and 150 s at 30 s periods for its poles of modulus 0.73 and 0.54, match a band
 * of about 5 %; with the 2 % band the same poles give 12.4 and 6.3 periods.)
 *
 * <p>The search: the zero {@code r} on {@code [0, 0.95]} in steps of 0.01 (a PI's zero {@code 1 - T/Ti}; a
 * negative zero would make the proportional part act against the integral one), the gain of either sign on a
 * logarithmic grid from {@code 10^-3} to {@code 10^2} times {@code 1 / (|b1| + |b2|)}, then a local
 * refinement of the best pair. Stateless.
 */
public final class GainDesigner {

    /** The band within which the output counts as settled, as a fraction of the initial error: 2 %. */
    public static final double SETTLING_BAND = 0.02;

    /** The gain margin a design must keep, each way: 2 (about 6 dB). */
    public static final double GAIN_MARGIN = 2;

    private static final double R_MAX = 0.95;
    private static final int GAIN_STEPS = 200;

    private GainDesigner() {
    }

    /**
     * What the PI with {@code gains} does in closed loop with {@code model}: its poles and settling time.
     *
     * @throws IllegalArgumentException if a gain or model parameter is not finite
     */
    public static GainDesign evaluate(SecondOrderModel model, Gains gains) {
        List<Complex> poles = Polynomials.roots(model.closedLoop(gains.gain(), gains.zero()));
        double rho = GainDesign.radius(poles);
        boolean robust = rho < 1 && robust(model, gains.gain(), gains.zero());
        return new GainDesign(gains, poles, settlingPeriods(rho), robust);
    }

    /**
     * The gains with the shortest settling time among the robust ones (see the class comment). When no pair
     * is robust (a model with no input gain, say), the design with the smallest largest pole is returned as
     * it is: check {@link GainDesign#robust()} and {@link GainDesign#stable()}.
     *
     * @throws IllegalArgumentException if a model parameter is not finite
     */
    public static GainDesign design(SecondOrderModel model) {
        double scale = Math.abs(model.b1()) + Math.abs(model.b2());
        if (!Double.isFinite(scale) || !Double.isFinite(model.a1()) || !Double.isFinite(model.a2())) {
            throw new IllegalArgumentException("model parameters must be finite: " + model);
        }
        double unit = scale > 1e-12 ? 1 / scale : 1;
        double bestScore = Double.POSITIVE_INFINITY;
        double bestG = 0;
        double bestR = 0;
        double fallbackRho = Double.POSITIVE_INFINITY;
        double fallbackG = 0;
        double fallbackR = 0;
        for (int ri = 0; ri <= Math.round(R_MAX * 100); ri++) {
            double r = ri / 100.0;
            for (int sign = -1; sign <= 1; sign += 2) {
                for (int k = 0; k <= GAIN_STEPS; k++) {
                    double g = sign * unit * Math.pow(10, -3 + 5.0 * k / GAIN_STEPS);
                    double rho = radius(model, g, r);
                    if (rho < fallbackRho) {
                        fallbackRho = rho;
                        fallbackG = g;
                        fallbackR = r;
                    }
                    if (rho < bestScore && robust(model, g, r)) {
                        bestScore = rho;
                        bestG = g;
                        bestR = r;
                    }
                }
            }
        }
        if (bestScore == Double.POSITIVE_INFINITY) {
            return evaluate(model, new Gains(fallbackG, fallbackR));
        }
        // Pattern search around the best grid point, shrinking the step until it no longer helps.
        double stepG = Math.abs(bestG) * 0.05;
        double stepR = 0.01;
        for (int round = 0; round < 10_000 && (stepG > Math.abs(bestG) * 1e-6 || stepR > 1e-6); round++) {
            boolean improved = false;
            double[][] moves = {{stepG, 0}, {-stepG, 0}, {0, stepR}, {0, -stepR}};
            for (double[] move : moves) {
                double g = bestG + move[0];
                double r = bestR + move[1];
                if (r < 0 || r > R_MAX || Math.signum(g) != Math.signum(bestG)) {
                    continue;
                }
                double rho = radius(model, g, r);
                if (rho < bestScore && robust(model, g, r)) {
                    bestScore = rho;
                    bestG = g;
                    bestR = r;
                    improved = true;
                }
            }
            if (!improved) {
                stepG /= 2;
                stepR /= 2;
            }
        }
        return evaluate(model, new Gains(bestG, bestR));
    }

    /**
     * Periods to settle within {@link #SETTLING_BAND} for a largest pole modulus {@code rho}:
     * {@code ln(band) / ln(rho)}, at least 1 (a dead-beat loop, {@code rho = 0}, takes one period), infinite
     * for {@code rho >= 1}.
     */
    public static double settlingPeriods(double rho) {
        if (!(rho < 1)) {
            return Double.POSITIVE_INFINITY;
        }
        if (rho <= SETTLING_BAND) {
            return 1;
        }
        return Math.max(1, Math.log(SETTLING_BAND) / Math.log(rho));
    }

    private static boolean robust(SecondOrderModel model, double g, double r) {
        return radius(model, g * GAIN_MARGIN, r) < 1 && radius(model, g / GAIN_MARGIN, r) < 1;
    }

    private static double radius(SecondOrderModel model, double g, double r) {
        return GainDesign.radius(Polynomials.roots(model.closedLoop(g, r)));
    }
}

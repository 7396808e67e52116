package dev.servletqos.control;

import dev.servletqos.policy.ControlPolicy;
import java.util.List;
import java.util.Objects;

/**
 * A PI controller's gains together with what they do in closed loop with a {@link SecondOrderModel}: the
 * closed-loop poles (paper 001 eq. 9), and the settling time they imply. Immutable.
 *
 * @param gains           the PI's gain g and zero r
 * @param poles           the closed-loop poles, largest modulus first
 * @param settlingPeriods periods until the slowest mode has decayed to {@link GainDesigner#SETTLING_BAND} of
 *                        its size, {@code ln(band) / ln(max |p|)}; infinite when unstable
 * @param robust          whether the loop also stays stable with the gain halved and doubled (a gain
 *                        margin of 2 each way), so that a plant twice as sensitive, or half, as the model
 *                        is still controlled
 */
public record GainDesign(ControlPolicy.Gains gains, List<Complex> poles, double settlingPeriods, boolean robust) {

    public GainDesign {
        Objects.requireNonNull(gains, "gains");
        poles = List.copyOf(poles);
    }

    /** The largest pole modulus: the loop is stable below 1, and settles faster the smaller it is. */
    public double spectralRadius() {
        return radius(poles);
    }

    /** Whether every closed-loop pole lies strictly inside the unit circle. */
    public boolean stable() {
        return spectralRadius() < 1;
    }

    /** The largest modulus among {@code poles}, 0 for none. */
    static double radius(List<Complex> poles) {
        double max = 0;
        for (Complex p : poles) {
            max = Math.max(max, p.abs());
        }
        return max;
    }
}

package dev.servletqos.control;

import dev.servletqos.policy.ControlPolicy.Gains;
import java.util.List;
import java.util.Objects;

/**
 * What a system identification experiment ({@link IdentificationLaw}) found: the second-order model fitted by
 * recursive least squares (paper 001 eqs. 3-6), how well it fits, and the PI gains {@link GainDesigner} proposes
 * for it with their closed-loop poles. Immutable.
 *
 * @param model    the fitted {@code (a1, a2, b1, b2)} (for an absolute-delay experiment fitted with a constant
 *                 term, which does not enter the transfer function)
 * @param rSquared the share of the output's variance the model's one-step predictions explain; paper 001
 *                 accepted 0.80
 * @param samples  regression rows the fit used
 * @param design   the proposed gains, their poles and settling time
 */
public record IdentificationReport(SecondOrderModel model, double rSquared, int samples, GainDesign design) {

    public IdentificationReport {
        Objects.requireNonNull(model, "model");
        Objects.requireNonNull(design, "design");
    }

    /** The proposed PI gains (for {@code ControlPolicy.withAbsolute} or {@code withRelative}). */
    public Gains gains() {
        return design.gains();
    }

    /** The closed-loop poles with the proposed gains, largest modulus first. */
    public List<Complex> poles() {
        return design.poles();
    }

    /** The settling time with the proposed gains, in sampling periods. */
    public double settlingPeriods() {
        return design.settlingPeriods();
    }
}

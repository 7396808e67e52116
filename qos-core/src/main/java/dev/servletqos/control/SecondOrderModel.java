package dev.servletqos.control;

/**
 * The second-order difference equation paper 001 fits to a server (section IV.B, eq. 6):
 *
 * <pre>
 *   y(m) = a1 y(m-1) + a2 y(m-2) + b1 u(m-1) + b2 u(m-2)
 * </pre>
 *
 * where {@code u(m-1)} is the input (a budget, or a ratio of budgets) in force during the period at whose end
 * {@code y(m)} (a delay, or a ratio of delays) is measured. Its transfer function is
 * {@code G(z) = (b1 z + b2) / (z^2 - a1 z - a2)} (eq. 7). Immutable.
 *
 * <p>Paper 001's fits (section VI.A): relative delay, workload A, {@code (0.74, -0.37, 0.95, -0.12)};
 * absolute delay, workload A' (fitted on differences of consecutive samples), {@code (-0.13, -0.03, -0.82,
 * -0.52)}, delays in seconds and budgets in processes.
 */
public record SecondOrderModel(double a1, double a2, double b1, double b2) {

    /** The relative-delay model of paper 001, workload A (section VI.A.1). */
    public static final SecondOrderModel PAPER_RELATIVE = new SecondOrderModel(0.74, -0.37, 0.95, -0.12);

    /** The absolute-delay model of paper 001, workload A' (section VI.A.2). */
    public static final SecondOrderModel PAPER_ABSOLUTE = new SecondOrderModel(-0.13, -0.03, -0.82, -0.52);

    /**
     * The closed loop's characteristic polynomial with the PI {@code D(z) = g (z - r) / (z - 1)} (eq. 8), the
     * denominator of eq. 9: {@code (z - 1)(z^2 - a1 z - a2) + g (z - r)(b1 z + b2)}, coefficients of
     * {@code z^3, z^2, z, 1}.
     */
    double[] closedLoop(double g, double r) {
        return new double[] {
            1,
            g * b1 - 1 - a1,
            a1 - a2 + g * (b2 - r * b1),
            a2 - g * r * b2
        };
    }
}

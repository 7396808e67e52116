package dev.servletqos.control;

import java.util.List;

/**
 * What a degradation law ({@link ControlLaws#utilization}, {@link ControlLaws#threshold}) saw and did in its last
 * period, for the meters {@code qos.control.utilization.*} and {@code qos.control.level}. Immutable.
 *
 * @param law       {@code pi} or {@code threshold}
 * @param source    the utilization in use: {@code cpu} or {@code occupancy}; null before the first period
 * @param measured  the period's measured utilization of that source, 0..1 (NaN if none)
 * @param estimated the model's utilization {@code a R + b W + c D} (NaN before the first period)
 * @param smoothed  threshold mode: the exponential average it compares with its thresholds (NaN for pi)
 * @param network   the network utilization (bytes per second over {@code control.network.capacity}); threshold
 *                  mode's exponential average of it; NaN when not watched
 * @param a         the fitted cost of a completed request, seconds (utilization per request per second)
 * @param b         the fitted cost of a response byte, seconds
 * @param c         the cost of a refused request, seconds (as given: {@code control.utilization.rejection-cost})
 * @param classes   per class, highest priority first
 */
public record UtilizationStatus(String law, String source, double measured, double estimated, double smoothed,
                                double network, double a, double b, double c, List<ClassLevel> classes) {

    public UtilizationStatus {
        classes = List.copyOf(classes);
    }

    /**
     * One class.
     *
     * @param name        the class
     * @param target      its target utilization (pi: the total target less the classes above, 000 section 4.5);
     *                    NaN in threshold mode
     * @param utilization its utilization by the model, {@code a R_k + b W_k + c D_k}
     * @param level       the content level m the law set, 0..levels
     * @param gain        pi: the plant gain {@code p_max} the gains were designed for this period (NaN before it
     *                    was known); NaN in threshold mode
     * @param saturated   whether the level was held at a bound (0, 1 on the way down, or the class's levels)
     */
    public record ClassLevel(String name, double target, double utilization, double level, double gain,
                             boolean saturated) {
    }
}

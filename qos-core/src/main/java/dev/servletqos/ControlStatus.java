package dev.servletqos;

import dev.servletqos.control.Sample;
import dev.servletqos.control.UtilizationStatus;
import dev.servletqos.policy.ControlPolicy;
import java.util.List;

/**
 * What the control loop has done, for meters, JMX and status pages. Immutable.
 *
 * @param mode        the control mode in force
 * @param running     whether the loop is scheduled (the engine is started)
 * @param overridden  whether a law other than the mode's runs (e.g. an identification)
 * @param periods     control periods run since start
 * @param failures    periods whose sample or law failed (threw, or returned a number that is not finite);
 *                    the last good settings stayed in force
 * @param lastFailure the last failure's message, or null
 * @param lastSample  the last period's sample, or null before the first period
 * @param classes     per class, highest priority first: the loop's last reading
 * @param utilization the degradation law's last period (utilization measured and fitted, content levels set);
 *                    null when {@code control.degradation = none}
 */
public record ControlStatus(ControlPolicy.Mode mode, boolean running, boolean overridden, long periods, long failures,
                            String lastFailure, Sample lastSample, List<Reading> classes,
                            UtilizationStatus utilization) {

    public ControlStatus {
        classes = List.copyOf(classes);
    }

    /**
     * One class's last control period. In absolute mode the reference is the delay target and the measurement
     * the class's delay (seconds); in relative mode both are the ratio of the class's delay to the next higher
     * class's (NaN for the top class); off, the reference is the target and the measurement the delay.
     *
     * @param name             the class
     * @param reference        what the loop aims for
     * @param measured         what the last period measured (NaN if the class had no requests)
     * @param error            {@code reference - measured}
     * @param output           the budget the loop asked for
     * @param applied          the budget in force after clamping
     * @param saturated        whether the last output was clamped ({@code output != applied}) or the law says it is
     *                         saturated (at a bound of its own)
     * @param saturatedPeriods periods that were saturated, since start
     */
    public record Reading(String name, double reference, double measured, double error, int output, int applied,
                          boolean saturated, long saturatedPeriods) {
    }
}

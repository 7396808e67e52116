package dev.servletqos.control;

import dev.servletqos.Settings;

/**
 * A feedback control law: given what the last period measured and the settings in force, the settings for
 * the next period. A plain object: no clock, no thread, no engine; it may keep state between periods (a PI's
 * last error), so one instance serves one engine. The control loop that calls it catches what it throws and
 * rejects outputs that are not finite; the engine clamps what it applies.
 */
@FunctionalInterface
public interface ControlLaw {

    /**
     * @param sample  the last period's measurements
     * @param current the settings in force (their budgets are the ones actually granted last period)
     * @return the settings to apply now; {@code current} itself for no change
     */
    Settings next(Sample sample, Settings current);
}

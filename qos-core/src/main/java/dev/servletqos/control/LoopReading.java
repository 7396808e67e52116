package dev.servletqos.control;

import java.util.Objects;

/**
 * What one feedback loop saw and did in one period, for the control loop to publish as the meters
 * {@code qos.control.reference}, {@code .measured}, {@code .error}, {@code .output} and {@code .saturated}
 * tagged with {@link #name()}. Immutable.
 *
 * @param name      the configured class the loop belongs to (for a relative loop on the pair (i, i+1), the
 *                  lower class i+1), so the tag stays within the policy's bounded set of classes
 * @param reference the loop's set point: a delay target in seconds (absolute) or a delay ratio (relative);
 *                  NaN when the loop has none (identification)
 * @param measured  what the period measured in the same unit; NaN when it measured nothing (no request granted)
 * @param error     {@code reference - measured}; NaN when either is
 * @param output    the loop's output after this period: a budget in permits (absolute) or a budget ratio
 *                  (relative); always finite
 * @param saturated whether the output could not be applied as computed (clamped to a bound, or not granted
 *                  in full for lack of permits)
 */
public record LoopReading(String name, double reference, double measured, double error, double output,
                          boolean saturated) {

    public LoopReading {
        Objects.requireNonNull(name, "name");
    }
}

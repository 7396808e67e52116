package dev.servletqos.jmx;

import dev.servletqos.ControlStatus;
import javax.management.ConstructorParameters;

/**
 * One class's last control period, as JMX shows it (a {@code CompositeData} to a client); see
 * {@link ControlStatus.Reading} for what the numbers mean in each mode. Immutable.
 */
public final class ControlReading {

    private final String name;
    private final double reference;
    private final double measured;
    private final double error;
    private final int output;
    private final int applied;
    private final boolean saturated;
    private final long saturatedPeriods;

    @ConstructorParameters({"name", "reference", "measured", "error", "output", "applied", "saturated",
            "saturatedPeriods"})
    public ControlReading(String name, double reference, double measured, double error, int output, int applied,
                          boolean saturated, long saturatedPeriods) {
        this.name = name;
        this.reference = reference;
        this.measured = measured;
        this.error = error;
        this.output = output;
        this.applied = applied;
        this.saturated = saturated;
        this.saturatedPeriods = saturatedPeriods;
    }

    /** The reading of the control status. */
    public static ControlReading of(ControlStatus.Reading r) {
        return new ControlReading(r.name(), r.reference(), r.measured(), r.error(), r.output(), r.applied(),
                r.saturated(), r.saturatedPeriods());
    }

    /** The class. */
    public String getName() {
        return name;
    }

    /** What the loop aims for: the delay target in seconds (absolute, off) or the targets' ratio (relative). */
    public double getReference() {
        return reference;
    }

    /** What the last period measured, in the reference's unit; NaN if the class had no requests. */
    public double getMeasured() {
        return measured;
    }

    /** {@code reference - measured}. */
    public double getError() {
        return error;
    }

    /** The budget the loop asked for. */
    public int getOutput() {
        return output;
    }

    /** The budget in force after clamping. */
    public int getApplied() {
        return applied;
    }

    /** Whether the last output was clamped or the law is at a bound of its own. */
    public boolean isSaturated() {
        return saturated;
    }

    /** Periods that were saturated, since start. */
    public long getSaturatedPeriods() {
        return saturatedPeriods;
    }
}

package dev.servletqos.jmx;

/**
 * The feedback controller of one engine, ObjectName {@code <domain>:type=QosController,name=<engine id>}: its
 * settings (the policy's {@code control.*} keys, writable; the references are the classes' delay targets, on
 * the {@code QosServiceClass} beans) and what it did. A write takes effect at once (a new period at the next
 * tick); a bad value is refused with an {@link IllegalArgumentException} naming the attribute and the value, and
 * changes nothing.
 */
public interface QosControllerMXBean {

    /** {@code control.mode}: {@code off}, {@code absolute} or {@code relative}. */
    String getMode();

    /** @throws IllegalArgumentException for another name, or relative with a single class */
    void setMode(String mode);

    /** {@code control.period} in milliseconds. */
    long getPeriodMillis();

    /** @throws IllegalArgumentException if outside 100..60000 */
    void setPeriodMillis(long millis);

    /** {@code control.delay}: 0 for the mean queue delay, else the quantile held at the target (0.95: p95). */
    double getDelayQuantile();

    /** @throws IllegalArgumentException if neither 0 nor strictly between 0 and 1 */
    void setDelayQuantile(double q);

    /** {@code control.absolute.gain}. */
    double getAbsoluteGain();

    /** @throws IllegalArgumentException if not a finite number other than 0 */
    void setAbsoluteGain(double gain);

    /** {@code control.absolute.zero}. */
    double getAbsoluteZero();

    /** @throws IllegalArgumentException if not at least 0 and less than 1 */
    void setAbsoluteZero(double zero);

    /** {@code control.relative.gain}. */
    double getRelativeGain();

    /** @throws IllegalArgumentException if not a finite number other than 0 */
    void setRelativeGain(double gain);

    /** {@code control.relative.zero}. */
    double getRelativeZero();

    /** @throws IllegalArgumentException if not at least 0 and less than 1 */
    void setRelativeZero(double zero);

    /** {@code control.anti-windup}. */
    boolean isAntiWindup();

    void setAntiWindup(boolean on);

    /** {@code control.capacity}: {@code auto} or {@code fixed}. */
    String getCapacity();

    /** @throws IllegalArgumentException for another name */
    void setCapacity(String capacity);

    /** {@code control.admission}: {@code auto} or {@code triggers}. */
    String getAdmission();

    /** @throws IllegalArgumentException for another name */
    void setAdmission(String admission);

    /** {@code control.degradation}: {@code none}, {@code pi} or {@code threshold}. */
    String getDegradation();

    /** @throws IllegalArgumentException for another name */
    void setDegradation(String degradation);

    /** {@code control.utilization.target}: the utilization the pi degradation law holds. */
    double getUtilizationTarget();

    /** @throws IllegalArgumentException unless 0.05..0.98 */
    void setUtilizationTarget(double target);

    /** The utilization the degradation law measured last period (cpu or occupancy); NaN when none runs. */
    double getUtilization();

    /** The utilization by the fitted model {@code a R + b W + c D}, last period; NaN when no degradation law runs. */
    double getUtilizationEstimated();

    /** Whether the loop is scheduled (the engine is started). */
    boolean isRunning();

    /** Whether a law other than the mode's runs (e.g. a system identification). */
    boolean isOverridden();

    /** Control periods run since start. */
    long getPeriods();

    /** Periods whose sample or law failed; the last good settings stayed in force. */
    long getFailures();

    /** The last failure's message, or null. */
    String getLastFailure();

    /** Each class's last period: reference, measured, error, output, applied, saturated periods. */
    ControlReading[] getReadings();

    /** The identification started over JMX, running or the last one; null before the first. */
    IdentificationSummary getIdentification();

    /**
     * Starts a system identification of one class's absolute-delay plant (paper 001 section IV.B): each control
     * period its budget is set to {@code lowBudget} or {@code highBudget} by a pseudo-random binary sequence (the
     * other classes share the rest), and a second-order model of its delay is fitted. The mode's law pauses until
     * {@link #stopIdentification()}; run it on a loaded server for a few dozen periods or more. The budgets go
     * through the engine's settings seam as the controller's.
     *
     * @throws IllegalArgumentException for an unknown class, budgets not {@code 0 <= low < high <= MaxExecuting},
     *                                  a control loop that is not running, or another law already running
     */
    void startAbsoluteIdentification(String serviceClass, int lowBudget, int highBudget);

    /**
     * Starts a system identification of the relative-delay plant of {@code higherClass} and the next lower class:
     * their budget ratio is set to {@code lowRatio} or {@code highRatio} each period (paper 001: 1 and 3), and a
     * model of their delay ratio is fitted. As {@link #startAbsoluteIdentification}.
     *
     * @throws IllegalArgumentException for an unknown class or the lowest one, ratios not finite with
     *                                  {@code 0 < low < high}, a loop that is not running, or another law running
     */
    void startRelativeIdentification(String higherClass, double lowRatio, double highRatio);

    /**
     * Ends the identification started over JMX: the mode's law runs again from the next period, the budgets in
     * force when the identification started are put back (through the settings seam, as an operator), and what it
     * found is returned (also in {@link #getIdentification()}).
     *
     * @throws IllegalArgumentException if no identification started over JMX runs
     */
    IdentificationSummary stopIdentification();
}

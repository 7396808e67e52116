package dev.servletqos.jmx;

/**
 * One engine (one application's QoS gate), ObjectName {@code <domain>:type=QosEngine,name=<engine id>}: its
 * totals and each class's counters from one snapshot, so that they add up. {@code MaxExecuting} is writable;
 * everything else is read-only. {@link #resetStatistics()} makes the beans' counts start again from now: a
 * baseline the beans subtract, not a reset of the engine's counters, which only grow (the control loop and the
 * meters read their differences).
 */
public interface QosEngineMXBean {

    /** The engine's id, the {@code name} key of all its beans (unique in its MBean server). */
    String getEngineId();

    /** The scheduling policy ({@code strict-priority}, {@code weighted}, ...). */
    String getScheduling();

    /** The class of sessions no rule matches. */
    String getDefaultClass();

    /** The service classes, highest priority first. */
    String[] getClassNames();

    /** Requests executing at once over all classes, now. */
    int getMaxExecuting();

    /**
     * Sets the requests executing at once over all classes; budgets above it are lowered to it. With
     * {@code control.capacity = auto} the capacity law goes on adjusting it below the (raised) ceiling.
     *
     * @throws IllegalArgumentException if below 1, below the sum of the classes' reserves, or above 100000
     */
    void setMaxExecuting(int maxExecuting);

    /** The most {@code MaxExecuting} may be set to by the capacity law. */
    int getCeiling();

    /** Requests holding a permit now, all classes. */
    int getExecuting();

    /** Requests waiting for a permit now, all classes. */
    int getQueued();

    /** Who set the settings in force last: {@code POLICY}, {@code OPERATOR} or {@code CONTROLLER}. */
    String getSettingsSource();

    /** Sessions this node knows now (approximate). */
    long getSessions();

    /** Each class's counters since {@link #getStatisticsSince()}, highest priority first. */
    ClassStatistics[] getClasses();

    /** Since when the beans' statistics count: the engine's start, or the last reset (ISO-8601, UTC). */
    String getStatisticsSince();

    /**
     * Makes every count of {@link #getClasses()} and of each class's {@code Statistics} start from now (requests
     * in flight now count as entered after it, so the counts still add up); the means and the p95 wait are then
     * over the permits granted since. The engine's counters, its meters and the control loop are not touched.
     */
    void resetStatistics();
}

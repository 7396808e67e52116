package dev.servletqos.jmx;

/**
 * One service class of one engine, ObjectName {@code <domain>:type=QosServiceClass,name=<engine id>,class=<class>}:
 * its live settings, writable where the engine can change them at run time (budget, min budget, delay target,
 * session rate and burst, content level), the policy's fixed ones read-only (reserve, weight, max queue, max
 * wait, content levels), and its
 * counters. A write takes effect at once (a raised budget starts waiting requests now, a lowered one as running
 * requests finish); a bad value is refused with an {@link IllegalArgumentException} naming the attribute and the
 * value, and changes nothing. A feedback controller that owns a setting (the budget in absolute or relative mode,
 * the session rate with {@code control.admission = auto}) goes on changing it at its next period.
 */
public interface QosServiceClassMXBean {

    /** The class. */
    String getName();

    /** Its place in the policy, 0 = highest priority. */
    int getPriority();

    /** Concurrency permits, now. */
    int getBudget();

    /** @throws IllegalArgumentException if outside 0..MaxExecuting */
    void setBudget(int budget);

    /** The lowest budget the controller may set. */
    int getMinBudget();

    /** @throws IllegalArgumentException if outside 0..MaxExecuting */
    void setMinBudget(int minBudget);

    /** The delay target in milliseconds: the controller's reference and the EDF deadline. */
    long getDelayTargetMillis();

    /** @throws IllegalArgumentException if outside 1..3600000 (1 ms..1 h) */
    void setDelayTargetMillis(long millis);

    /** New sessions admitted per second, 0 = no limit. */
    double getSessionRate();

    /** @throws IllegalArgumentException if not a number in 0..1e9 */
    void setSessionRate(double perSecond);

    /** The session token bucket's depth. */
    int getSessionBurst();

    /** @throws IllegalArgumentException if outside 1..1000000 */
    void setSessionBurst(int burst);

    /**
     * The class's content level m, 0..{@link #getContentLevels()}: a fraction m - floor(m) of its sessions is
     * served at floor(m) + 1, the rest at floor(m); 0 refuses new sessions; full content at ContentLevels.
     */
    double getContentLevel();

    /** @throws IllegalArgumentException if not a number in 0..ContentLevels */
    void setContentLevel(double level);

    /** The class's content levels M, the level of full content (the policy's {@code levels}; read-only). */
    int getContentLevels();

    /**
     * Permits never lent to other classes, in force (the policy's; read-only): the highest class's default reserve
     * reads 0 while max-executing is too low for the engine to keep it.
     */
    int getReserve();

    /** Share under the weighted policy (the policy's; read-only). */
    int getWeight();

    /** The most requests that may wait (the policy's; read-only). */
    int getMaxQueue();

    /** The longest a request may wait, in milliseconds (the policy's; read-only). */
    long getMaxWaitMillis();

    /** Requests holding a permit now. */
    int getExecuting();

    /** Requests waiting now. */
    int getQueued();

    /** The class's counters, from one snapshot. */
    ClassStatistics getStatistics();
}

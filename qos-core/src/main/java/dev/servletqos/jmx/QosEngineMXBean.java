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
     * @throws IllegalArgumentException if below 1, below the sum of the reserves the policy gives (the highest
     *                                  class's default reserve gives way instead), or above 100000
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

    /** Requests an exempt rule ({@code exempt.<n>.*}) let bypass QoS since the engine started; in no class. */
    long getExempt();

    /** Streams ({@code streams.*}) open now, all classes: running without a permit. */
    int getStreams();

    /** Each class's counters since {@link #getStatisticsSince()}, highest priority first. */
    ClassStatistics[] getClasses();

    /** Whether {@link #reloadPolicy()} has a policy file to read (false for an engine built from a policy object). */
    boolean isReloadable();

    /**
     * Reads the policy file the adapter was configured with again (with the adapter's own overrides) and puts it in
     * force, whole and at once: classes, rules, scheduling, the control settings and the settings it starts with
     * (which replace what operators and the controller set). Waiting requests keep their place; those of a class
     * the new policy no longer has are served in its default class, never dropped. The class beans follow the new
     * classes.
     *
     * @return what is in force now, e.g. {@code reloaded: classes [premium, basic], scheduling strict-priority,
     *         max-executing 16}
     * @throws IllegalArgumentException if the file does not parse or validate, or changes a key that cannot change
     *                                  while running (the cookies, the secret, the session table): the message names
     *                                  the key and the value, and the policy in force is unchanged
     * @throws IllegalStateException    if the engine was built from a policy object, not read from a file
     */
    String reloadPolicy();

    /** Since when the beans' statistics count: the engine's start, or the last reset (ISO-8601, UTC). */
    String getStatisticsSince();

    /**
     * Makes every count of {@link #getClasses()} and of each class's {@code Statistics} start from now (requests
     * in flight now count as entered after it, so the counts still add up); the means and the p95 wait are then
     * over the permits granted since. The engine's counters, its meters and the control loop are not touched.
     */
    void resetStatistics();

    /**
     * This node's cluster (docs/cluster.md): {@code off}, or its state ({@code cluster} or {@code local-only}), the
     * live nodes and the store, e.g. {@code cluster: 3 nodes through redis://10.0.0.5:6379, this node web-1}.
     */
    String getCluster();

    /** Each live node of the cluster with its last status, e.g. {@code web-2 state=cluster executing=3 ...}. */
    String[] getClusterNodes();

    /**
     * Publishes live settings to every node of the cluster: {@code key=value} pairs separated by commas or new lines,
     * of the keys {@code max-executing}, {@code class.<name>.budget}, {@code .session-rate}, {@code .session-burst}
     * and {@code bucket.<name>.rate}. Put in force here at once, on every other node within two periods.
     *
     * @throws IllegalArgumentException naming the key and value of a setting this node cannot apply
     * @throws IllegalStateException    if the engine is not in a cluster, or the store did not answer
     */
    String publishClusterSettings(String settings);

    /**
     * Revokes a tier-cookie subject on every node of the cluster: its cookies give no class from then on.
     *
     * @throws IllegalStateException if the engine is not in a cluster, or the store did not answer
     */
    String revokeTierSubject(String subject);
}

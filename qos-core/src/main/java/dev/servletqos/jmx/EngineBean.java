package dev.servletqos.jmx;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import java.time.Instant;
import java.util.Map;

/** {@link QosEngineMXBean} over one engine. */
final class EngineBean implements QosEngineMXBean {

    /** The most {@code max-executing} may be (the engine's clamp). */
    static final int MAX_EXECUTING_LIMIT = 100_000;

    static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry("EngineId", "The engine's id, the name key of all its beans"),
            Map.entry("Scheduling", "The scheduling policy"),
            Map.entry("DefaultClass", "The class of sessions no rule matches"),
            Map.entry("ClassNames", "The service classes, highest priority first"),
            Map.entry("MaxExecuting", "Requests executing at once over all classes (writable: 1..100000, at least "
                    + "the sum of the reserves the policy gives)"),
            Map.entry("Ceiling", "The most MaxExecuting the capacity law may set"),
            Map.entry("Executing", "Requests holding a permit now, all classes"),
            Map.entry("Queued", "Requests waiting for a permit now, all classes"),
            Map.entry("SettingsSource", "Who set the settings in force last: POLICY, OPERATOR or CONTROLLER"),
            Map.entry("Sessions", "Sessions this node knows now (approximate)"),
            Map.entry("Classes", "Each class's counters since StatisticsSince, highest priority first, from one "
                    + "snapshot"),
            Map.entry("StatisticsSince", "Since when the counts of Classes and of each class's Statistics count: "
                    + "the engine's start or the last resetStatistics (ISO-8601)"),
            Map.entry("Reloadable", "Whether reloadPolicy has a file to read (false for an engine built from a "
                    + "policy object)"),
            Map.entry("reloadPolicy", "Reads the policy file again and puts it in force whole; a file that does not "
                    + "parse or validate is refused with the reason, and the old policy keeps running"),
            Map.entry("Cluster", "This node's cluster: off, or cluster / local-only with the live nodes and the "
                    + "store (docs/cluster.md)"),
            Map.entry("ClusterNodes", "Each live node of the cluster with its last status"),
            Map.entry("publishClusterSettings", "Publishes live settings (key=value, comma-separated) to every node "
                    + "of the cluster; in force here at once, everywhere within two periods"),
            Map.entry("revokeTierSubject", "Revokes a tier-cookie subject on every node of the cluster"),
            Map.entry("resetStatistics", "Counts the beans' statistics from now on (a baseline the beans subtract; "
                    + "the engine's counters, the meters and the control loop are not touched)"));

    private final QosEngine engine;
    private final String id;
    private final StatisticsBaseline baseline;

    EngineBean(QosEngine engine, String id, StatisticsBaseline baseline) {
        this.engine = engine;
        this.id = id;
        this.baseline = baseline;
    }

    @Override
    public String getEngineId() {
        return id;
    }

    @Override
    public String getScheduling() {
        return engine.policy().scheduling().key();
    }

    @Override
    public String getDefaultClass() {
        return engine.policy().defaultClass();
    }

    @Override
    public String[] getClassNames() {
        return engine.policy().classes().stream().map(ClassPolicy::name).toArray(String[]::new);
    }

    @Override
    public int getMaxExecuting() {
        return engine.settings().maxExecuting();
    }

    @Override
    public void setMaxExecuting(int maxExecuting) {
        if (maxExecuting > MAX_EXECUTING_LIMIT) {
            throw Refusals.refuse("MaxExecuting", maxExecuting, "must be at most " + MAX_EXECUTING_LIMIT);
        }
        try {
            engine.setMaxExecuting(maxExecuting); // checks the lower bound: 1 and the reserves the policy gives
        } catch (IllegalArgumentException e) {
            throw Refusals.refuse("MaxExecuting", maxExecuting, e.getMessage());
        }
    }

    @Override
    public int getCeiling() {
        return engine.settings().ceiling();
    }

    @Override
    public int getExecuting() {
        return engine.snapshot().executing();
    }

    @Override
    public int getQueued() {
        return engine.snapshot().queued();
    }

    @Override
    public String getCluster() {
        dev.servletqos.ClusterLink link = engine.cluster();
        if (link == null) {
            return "off";
        }
        dev.servletqos.cluster.ClusterStatus c = link.status();
        return c.state() + ": " + c.nodes() + " nodes through " + c.store() + ", this node " + c.nodeId();
    }

    @Override
    public String[] getClusterNodes() {
        dev.servletqos.ClusterLink link = engine.cluster();
        if (link == null) {
            return new String[0];
        }
        return link.status().members().stream().map(m -> {
            StringBuilder b = new StringBuilder(m.nodeId());
            m.status().forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
            return b.toString();
        }).toArray(String[]::new);
    }

    @Override
    public String publishClusterSettings(String settings) {
        java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
        for (String pair : settings == null ? new String[0] : settings.split("[,\n]")) {
            int eq = pair.indexOf('=');
            if (eq <= 0) {
                if (!pair.isBlank()) {
                    throw new IllegalArgumentException("\"" + pair.trim() + "\": a setting is key=value");
                }
                continue;
            }
            m.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
        return "published version " + await(cluster().publishSettings(m)) + ": " + m;
    }

    @Override
    public String revokeTierSubject(String subject) {
        await(cluster().revoke(subject));
        return "revoked " + subject + " on every node within two periods";
    }

    private dev.servletqos.ClusterLink cluster() {
        dev.servletqos.ClusterLink link = engine.cluster();
        if (link == null) {
            throw new IllegalStateException("this engine is not in a cluster (cluster.redis is not set)");
        }
        return link;
    }

    private static <T> T await(java.util.concurrent.CompletableFuture<T> f) {
        try {
            return f.get(2, java.util.concurrent.TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("the cluster's store did not take it: " + e.getCause());
        } catch (java.util.concurrent.TimeoutException e) {
            throw new IllegalStateException("the cluster's store did not answer within 2 s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted");
        }
    }

    @Override
    public String getSettingsSource() {
        return engine.settings().source().name();
    }

    @Override
    public long getSessions() {
        return engine.snapshot().sessions().tableSize();
    }

    @Override
    public long getExempt() {
        return engine.snapshot().exempt();
    }

    @Override
    public int getStreams() {
        return engine.snapshot().streams();
    }

    @Override
    public ClassStatistics[] getClasses() {
        EngineSnapshot s = engine.snapshot();
        return s.classes().stream().map(baseline::of).toArray(ClassStatistics[]::new);
    }

    @Override
    public String getStatisticsSince() {
        return baseline.since().toString();
    }

    @Override
    public boolean isReloadable() {
        return engine.reloadable();
    }

    @Override
    public String reloadPolicy() {
        QosPolicy p;
        try {
            p = engine.reloadPolicy();
        } catch (PolicyException e) {
            // a plain JDK exception with the same message, for a client without servlet-qos's classes
            throw new IllegalArgumentException("reloadPolicy refused, the policy in force is unchanged: "
                    + e.getMessage());
        } catch (IllegalStateException e) {
            throw new IllegalStateException("reloadPolicy: " + e.getMessage());
        }
        return "reloaded: classes " + p.classes().stream().map(ClassPolicy::name).toList() + ", scheduling "
                + p.scheduling().key() + ", max-executing " + engine.settings().maxExecuting();
    }

    @Override
    public void resetStatistics() {
        baseline.reset(engine.snapshot(), Instant.now());
    }
}

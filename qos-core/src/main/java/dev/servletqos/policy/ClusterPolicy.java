package dev.servletqos.policy;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Whether and how the node shares limits, settings and status with the other nodes of a cluster ({@code cluster.*},
 * docs/cluster.md). Off by default: without {@code cluster.redis} every limit is this node's own. Immutable and
 * thread-safe; build with {@link #DEFAULTS} and the {@code with} methods, each of which checks the values.
 *
 * @param redis     {@code cluster.redis}: the shared store, {@code redis://host:port} (or {@code rediss://},
 *                  optionally with {@code user:password@} and {@code /db}); null (the default): no cluster
 * @param nodeId    {@code cluster.node-id}: this node's name in the cluster, unique among its nodes; null (the
 *                  default): the host name and the process id
 * @param period    {@code cluster.period}: how often the node exchanges with the store; null (the default): the
 *                  control period; 100ms..1m
 * @param keyPrefix {@code cluster.key-prefix}: the prefix of every key the cluster writes, so that several
 *                  clusters share one store; default {@value #DEFAULT_PREFIX}
 */
public record ClusterPolicy(String redis, String nodeId, Duration period, String keyPrefix) {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9_.:@/-]{1,128}");
    private static final Pattern PREFIX = Pattern.compile("[A-Za-z0-9_.:/{}-]{1,64}");

    /** Default of {@code cluster.key-prefix}. */
    public static final String DEFAULT_PREFIX = "servlet-qos:";

    /** Off: no store, every limit local. */
    public static final ClusterPolicy DEFAULTS = new ClusterPolicy(null, null, null, DEFAULT_PREFIX);

    /**
     * Checks every value: a bad one fails where it is set.
     *
     * @throws PolicyException naming the key and the value of the first bad setting
     */
    public ClusterPolicy {
        check(redis, nodeId, period, keyPrefix);
    }

    /** {@code cluster.redis}. */
    public ClusterPolicy withRedis(String uri) {
        return new ClusterPolicy(uri, nodeId, period, keyPrefix);
    }

    /** {@code cluster.node-id}. */
    public ClusterPolicy withNodeId(String id) {
        return new ClusterPolicy(redis, id, period, keyPrefix);
    }

    /** {@code cluster.period}. */
    public ClusterPolicy withPeriod(Duration p) {
        return new ClusterPolicy(redis, nodeId, p, keyPrefix);
    }

    /** {@code cluster.key-prefix}. */
    public ClusterPolicy withKeyPrefix(String prefix) {
        return new ClusterPolicy(redis, nodeId, period, prefix);
    }

    /** Whether the node is part of a cluster ({@code cluster.redis} set). */
    public boolean enabled() {
        return redis != null;
    }

    /** The exchange's period: {@code cluster.period}, else {@code controlPeriod}. */
    public Duration periodOr(Duration controlPeriod) {
        return period != null ? period : controlPeriod;
    }

    private static void check(String redis, String nodeId, Duration period, String keyPrefix) {
        if (redis != null) {
            String reason = null;
            try {
                URI u = new URI(redis.trim());
                if (!"redis".equals(u.getScheme()) && !"rediss".equals(u.getScheme())) {
                    reason = "must be a redis://host:port URI";
                } else if (u.getHost() == null || u.getHost().isEmpty()) {
                    reason = "must name a host: redis://host:port";
                } else if (u.getPort() > 65535) {
                    reason = "the port must be 1..65535";
                }
            } catch (URISyntaxException e) {
                reason = "must be a redis://host:port URI (" + e.getReason() + ")";
            }
            // the message names the value without its password, if it has one
            ClassPolicy.check(reason == null, "cluster.redis", redis.replaceFirst("//[^/@]*@", "//***@"), reason);
        }
        ClassPolicy.check(nodeId == null || ID.matcher(nodeId).matches(), "cluster.node-id", nodeId,
                "must be 1..128 letters, digits or any of _ . : @ / -");
        ClassPolicy.check(period == null || period.compareTo(Duration.ofMillis(100)) >= 0
                && period.compareTo(Duration.ofMinutes(1)) <= 0, "cluster.period", period, "must be 100ms..1m");
        ClassPolicy.check(keyPrefix != null && PREFIX.matcher(keyPrefix).matches(), "cluster.key-prefix", keyPrefix,
                "must be 1..64 letters, digits or any of _ . : / { } -");
    }
}

package dev.servletqos.cluster;

import dev.servletqos.policy.ClusterPolicy;
import java.time.Duration;

/**
 * Opens the {@link ClusterState} a policy's {@code cluster.redis} names: found with {@link java.util.ServiceLoader}
 * by the runtime, so that qos-core does not depend on a Redis client. {@code qos-cluster-redis} provides one.
 */
public interface ClusterStateProvider {

    /**
     * Opens the store without waiting for it: a store that cannot be reached now fails its exchanges, and the node
     * runs on local limits until it can (docs/cluster.md).
     *
     * @param policy the policy's {@code cluster.*}, checked
     * @param period the exchange's period: each call times out well under it
     */
    ClusterState open(ClusterPolicy policy, Duration period);
}

package dev.servletqos.cluster.redis;

import dev.servletqos.cluster.ClusterState;
import dev.servletqos.cluster.ClusterStateProvider;
import dev.servletqos.policy.ClusterPolicy;
import java.time.Duration;

/**
 * The Redis store of a cluster ({@code cluster.redis = redis://host:port}), found by the runtime with
 * {@link java.util.ServiceLoader}. Opening it does not wait for Redis.
 */
public final class RedisClusterStateProvider implements ClusterStateProvider {

    @Override
    public ClusterState open(ClusterPolicy policy, Duration period) {
        return new RedisClusterState(policy.redis(), policy.keyPrefix(), period);
    }
}

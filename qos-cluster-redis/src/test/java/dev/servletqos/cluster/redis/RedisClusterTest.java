package dev.servletqos.cluster.redis;

import dev.servletqos.cluster.ClusterState;
import dev.servletqos.policy.ClusterPolicy;
import dev.servletqos.testkit.ClusterSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The three-node suite on a real Redis (issue 26): each node with its own Lettuce client, as each JVM would. The
 * store is stopped (connections refused) for the fallback case and restarted empty.
 */
class RedisClusterTest extends ClusterSuite {

    static TestRedis redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = new TestRedis();
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    private final java.util.List<RedisClusterState> opened = new java.util.ArrayList<>();

    /** Each test its own key prefix: the tests share one server and leave their keys behind. */
    private final String prefix = "test-" + System.nanoTime() + ":";

    @Override
    protected ClusterState nodeStore() {
        RedisClusterState s = (RedisClusterState) new RedisClusterStateProvider().open(ClusterPolicy.DEFAULTS
                .withRedis(redis.uri()).withKeyPrefix(prefix), PERIOD);
        opened.add(s);
        return s;
    }

    @Override
    protected void storeDown() throws Exception {
        redis.stop();
        for (RedisClusterState s : opened) {
            s.whenDisconnected().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }

    @Override
    protected void storeUp() throws Exception {
        redis.start();
        // the clients reconnect on their own, in real time (a fifth of a period): the fake clock does not move it
        for (RedisClusterState s : opened) {
            s.whenConnected().get(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}

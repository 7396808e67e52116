package dev.servletqos.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.QosEngine;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.cluster.ClusterState;
import dev.servletqos.policy.ClusterPolicy;
import dev.servletqos.testkit.ClusterSuite;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The three-node suite on a real Redis (issue 26): each node with its own Lettuce client, as each JVM would. The
 * store is stopped (connections refused) for the fallback case and restarted empty.
 */
class RedisClusterTest extends ClusterSuite {

    static TestRedis redis;

    @BeforeAll
    static void startRedis() throws Exception {
        redis = new TestRedis();
        // the first client of a JVM loads Netty and Lettuce, which on a busy machine takes longer than a call's
        // timeout: warmed up here, so that the tests' first periods measure the cluster, not class loading
        ClusterState warm = new RedisClusterStateProvider().open(ClusterPolicy.DEFAULTS.withRedis(redis.uri())
                .withKeyPrefix("warm-up:"), PERIOD);
        try {
            for (int i = 0; i < 20; i++) {
                try {
                    warm.exchange("warm-up", "x", PERIOD).toCompletableFuture().join();
                    break;
                } catch (java.util.concurrent.CompletionException e) {
                    if (i == 19) {
                        throw e;
                    }
                }
            }
        } finally {
            warm.close();
        }
    }

    @AfterAll
    static void stopRedis() throws Exception {
        redis.close();
    }

    private final java.util.List<RedisClusterState> opened = new java.util.ArrayList<>();

    /**
     * A frozen Redis ({@code kill -STOP}): each exchange ends at its timeout, well under a period, while requests are
     * answered at once from local state; after two periods each node runs local-only on its share of the last known
     * limit; thawed, the cluster is back within two periods.
     */
    @Test
    void aFrozenRedisCostsEachExchangeItsTimeoutAndNoRequestWaits() throws Exception {
        threeNodes(CAP_POLICY);
        exchangeAll();
        exchangeAll();
        redis.freeze();
        try {
            for (int p = 0; p < 3; p++) {
                clock.advance(PERIOD);
                long t0 = System.nanoTime();
                List<CompletableFuture<Void>> pending = new ArrayList<>();
                for (QosEngine e : nodes) {
                    pending.add(e.cluster().exchangeNow());
                }
                for (int i = 0; i < 300; i++) {
                    visit(nodes.get(i % 3), "192.0.2." + i); // RUNNING or REJECTED at once, never waiting
                }
                assertTrue(pending.stream().noneMatch(CompletableFuture::isDone) || p > 0,
                        "the exchanges hang on the frozen server, the requests do not");
                pending.forEach(CompletableFuture::join);
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(ms < PERIOD.toMillis(), "a frozen Redis costs an exchange its timeout ("
                        + RedisClusterState.timeout(PERIOD).toMillis() + " ms), well under a period: " + ms + " ms");
            }
            for (QosEngine e : nodes) {
                assertTrue(e.cluster().status().localOnly(), e.cluster().nodeId() + " is local-only");
                assertEquals(20, e.snapshot().get("basic").sessionRate(), 1e-9, "60 over 3 nodes");
            }
        } finally {
            redis.thaw();
        }
        clock.advance(PERIOD);
        exchangeAll();
        clock.advance(PERIOD);
        exchangeAll();
        for (QosEngine e : nodes) {
            assertFalse(e.cluster().status().localOnly(), e.cluster().nodeId() + " is back");
            assertEquals(3, e.cluster().status().nodes());
        }
    }

    /**
     * Redis restarted empty (every key lost): the nodes heal it within two periods (node count, leases); the
     * settings they applied stay in force, and so do the revocations they know, and they write both back, so that a
     * node that starts later gets them.
     */
    @Test
    void aRedisRestartedEmptyHealsWithinTwoPeriods() throws Exception {
        threeNodes(CAP_POLICY + "rule.2.type = tier-cookie\n");
        exchangeAll();
        nodes.get(0).cluster().publishSettings(java.util.Map.of("class.basic.session-rate", "40")).join();
        nodes.get(0).cluster().revoke("alice").join();
        exchangeAll();
        storeDown();
        storeUp();
        clock.advance(PERIOD);
        exchangeAll();
        clock.advance(PERIOD);
        exchangeAll();
        String alice = nodes.get(0).tierCookies().issue("premium", "alice");
        for (QosEngine e : nodes) {
            assertFalse(e.cluster().status().localOnly(), e.cluster().nodeId());
            assertEquals(3, e.cluster().status().nodes(), "the node count is back");
            assertEquals(3, e.cluster().status().members().size());
            assertEquals(40, e.settings().get(1).sessionRate(), "the published settings stay in force");
            assertTrue(e.snapshot().get("basic").sessionRate() <= 40, "a lease again");
            Ticket t = e.enter(TestRequest.get("/").cookie("QOSTIER", alice).from("192.0.2.9"), clock.nanoTime());
            assertEquals("basic", t.serviceClass(), "alice stays revoked");
        }
        // the nodes gave the store back what it lost: a node that starts now gets the settings and the revocation
        QosEngine late = addNode(CAP_POLICY + "rule.2.type = tier-cookie\n", "node-4");
        clock.advance(PERIOD);
        exchangeAll();
        assertEquals(40, late.settings().get(1).sessionRate(), "the published settings, from the store again");
        Ticket t = late.enter(TestRequest.get("/").cookie("QOSTIER", alice).from("192.0.2.9"), clock.nanoTime());
        assertEquals("basic", t.serviceClass(), "alice is revoked on a node that started after the restart");
    }

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

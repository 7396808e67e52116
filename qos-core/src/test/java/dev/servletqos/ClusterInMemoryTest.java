package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.cluster.ClusterState;
import dev.servletqos.cluster.InMemoryClusterState;
import dev.servletqos.cluster.NodeReport;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.testkit.ClusterSuite;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Issue 26 on the in-memory store: the three-node suite, the keys' checks, the leases' arithmetic, and the startup
 * error when the Redis module is missing.
 */
class ClusterInMemoryTest extends ClusterSuite {

    private final InMemoryClusterState store = new InMemoryClusterState(clock::nanoTime);

    @Override
    protected ClusterState nodeStore() {
        return store;
    }

    @Override
    protected void storeDown() {
        store.down(true, false);
    }

    @Override
    protected void storeUp() {
        store.down(false, true);
    }

    /** Without the cluster, the same flood gets a share on each node: what the cluster fixes. */
    @Test
    void withoutTheClusterTheFloodGetsAShareOnEveryNode() {
        for (int i = 0; i < 3; i++) {
            nodes.add(QosEngine.create(parse(ADDRESS_POLICY.replace("cluster.redis = redis://127.0.0.1:1", "")),
                    clock));
        }
        int flood = flood(12)[0];
        assertTrue(flood > 45 * 10 + 3 * 45, "three shares: " + flood);
    }

    @Test
    void leasesAddUpToTheClusterRateAndFollowDemand() {
        double a = ClusterLink.share(60, 240, 300, 3);
        double b = ClusterLink.share(60, 30, 300, 3);
        assertEquals(60, a + 2 * b, 1e-9);
        assertTrue(a > 7 * b);
        assertEquals(20, ClusterLink.share(60, 0, 0, 3), 1e-9, "no demand anywhere: even shares");
    }

    @Test
    void aReportSurvivesItsEncodingAndDamagedTextIsLeftOut() {
        NodeReport r = new NodeReport("node-1", Map.of("basic", 12.5), Map.of("search", 3.0),
                List.of(new NodeReport.Address("2001:db8::1", 9.0, 4.0, true)), Map.of("executing", "3"));
        assertEquals(r, NodeReport.decode(r.encode()));
        assertEquals(null, NodeReport.decode("qos-report 1\nnode x\nclass basic NaN\n"));
        assertEquals(null, NodeReport.decode("something else"));
    }

    @Test
    void badClusterValuesFailAtStartNamingTheKeyAndTheValue() {
        String base = "classes = basic\n";
        PolicyException e = assertThrows(PolicyException.class, () -> parse(base + "cluster.redis = http://x:1\n"));
        assertTrue(e.getMessage().contains("cluster.redis") && e.getMessage().contains("http://x:1"), e.getMessage());
        e = assertThrows(PolicyException.class, () -> parse(base + "cluster.redis = redis://u:hunter2@:6379\n"));
        assertTrue(e.getMessage().contains("cluster.redis") && !e.getMessage().contains("hunter2"),
                "a password is not repeated: " + e.getMessage());
        e = assertThrows(PolicyException.class, () -> parse(base + "cluster.period = 10ms\n"));
        assertTrue(e.getMessage().contains("cluster.period"), e.getMessage());
        e = assertThrows(PolicyException.class, () -> parse(base + "cluster.node-id = a b\n"));
        assertTrue(e.getMessage().contains("cluster.node-id"), e.getMessage());
        e = assertThrows(PolicyException.class, () -> parse(base + "class.basic.cluster-session-rate = -1\n"));
        assertTrue(e.getMessage().contains("class.basic.cluster-session-rate"), e.getMessage());
        e = assertThrows(PolicyException.class, () -> parse(base
                + "bucket.b.path = /b\nbucket.b.rate = 5\nbucket.b.cluster-rate = -2\n"));
        assertTrue(e.getMessage().contains("bucket.b.cluster-rate") && e.getMessage().contains("-2"), e.getMessage());
    }

    /** qos-core alone has no Redis: a policy naming one fails at build, naming the key and the module. */
    @Test
    void aRedisPolicyWithoutTheModuleFailsAtStartNamingTheKey() {
        PolicyException e = assertThrows(PolicyException.class, () -> QosRuntime.of(parse(
                "classes = basic\ncluster.redis = redis://127.0.0.1:6379\n")).noMBeans().build());
        assertTrue(e.getMessage().contains("cluster.redis") && e.getMessage().contains("qos-cluster-redis"),
                e.getMessage());
    }
}

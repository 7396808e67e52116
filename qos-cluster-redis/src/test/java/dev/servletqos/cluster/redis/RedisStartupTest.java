package dev.servletqos.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.testkit.ClusterSuite;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Startup never waits for Redis: a runtime whose Redis is frozen starts, serves at once on local limits and says
 * local-only; once Redis answers it joins the cluster by itself. The runtime finds qos-cluster-redis with
 * {@link java.util.ServiceLoader}.
 */
class RedisStartupTest {

    @Test
    void aNodeStartsAndServesWhileRedisIsFrozenAndJoinsOnceItAnswers() throws Exception {
        try (TestRedis redis = new TestRedis()) {
            redis.freeze();
            QosRuntime runtime = QosRuntime.of(ClusterSuite.parse("""
                    classes = basic
                    max-executing = 20
                    class.basic.cluster-session-rate = 40
                    cluster.period = 200ms
                    cluster.node-id = starting
                    """ + "cluster.redis = " + redis.uri() + "\n")).noMBeans().build();
            try {
                runtime.start(); // returns without waiting for the frozen server
                assertNotNull(runtime.engine().cluster(), "the runtime found qos-cluster-redis and joined");
                Ticket t = runtime.engine().enter(TestRequest.get("/").from("192.0.2.1"));
                assertEquals(Ticket.State.RUNNING, t.state(), "served at once");
                t.complete();
                assertTrue(runtime.engine().cluster().status().localOnly(), "local-only until Redis answers");
                assertEquals(40, runtime.engine().snapshot().get("basic").sessionRate(), 1e-9,
                        "the cluster rate over the one node known: never closed, never unlimited");
                redis.thaw();
                long t0 = System.nanoTime();
                while (runtime.engine().cluster().status().localOnly()) {
                    assertTrue(System.nanoTime() - t0 < Duration.ofSeconds(10).toNanos(),
                            "joins once Redis answers: " + runtime.engine().cluster().status());
                    Thread.onSpinWait();
                }
                assertEquals(1, runtime.engine().cluster().status().nodes());
            } finally {
                runtime.stop();
            }
        }
    }
}

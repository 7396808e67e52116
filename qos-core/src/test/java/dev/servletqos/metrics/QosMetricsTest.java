package dev.servletqos.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.servletqos.QosEngine;
import dev.servletqos.RequestView;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** What an operator reads from the meters after some traffic. */
class QosMetricsTest {

    private static RequestView request(String tier) {
        TestRequest r = TestRequest.get("/");
        return tier == null ? r : r.header("X-Tier", tier);
    }

    @Test
    void theMetersShowOutcomesQueuesAndBudgetsPerClass() {
        QosPolicy policy = QosPolicy.builder().maxExecuting(1)
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic").withMaxQueue(1))
                .addRule(Rule.header("premium", "X-Tier", "premium").asTrusted()).build();
        QosEngine engine = QosEngine.create(policy);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        QosMetrics metrics = new QosMetrics(engine);
        metrics.bindTo(registry);

        Ticket running = engine.enter(request(null));
        Ticket waiting = engine.enter(request(null));
        Ticket refused = engine.enter(request(null));
        assertEquals(Ticket.State.REJECTED, refused.state());
        running.complete();
        waiting.complete();
        engine.enter(request("premium")).complete();
        engine.setBudget("basic", 0);

        assertEquals(2, registry.get("qos.requests").tags("qos.class", "basic", "outcome", "completed")
                .functionCounter().count());
        assertEquals(1, registry.get("qos.requests").tags("qos.class", "basic", "outcome", "rejected")
                .functionCounter().count());
        assertEquals(1, registry.get("qos.rejections").tags("qos.class", "basic", "reason", "queue-full")
                .functionCounter().count());
        assertEquals(1, registry.get("qos.requests").tags("qos.class", "premium", "outcome", "completed")
                .functionCounter().count());
        assertEquals(2, registry.get("qos.sessions").tags("qos.class", "basic", "outcome", "admitted")
                .functionCounter().count(), "two admitted with their first request, the refused one not");
        assertEquals(0, registry.get("qos.budget").tags("qos.class", "basic").gauge().value());
        assertEquals(0, registry.get("qos.executing").tags("qos.class", "basic").gauge().value());
        FunctionTimer wait = registry.get("qos.wait").tags("qos.class", "basic").functionTimer();
        assertEquals(2, wait.count());
        assertEquals(1, registry.get("qos.max.executing").gauge().value());

        metrics.close();
        assertNull(registry.find("qos.requests").meter(), "close() removes what bindTo registered");
    }

    @Test
    void afterAReloadTheMetersFollowTheClassesAndAKeptClassCountsOn() {
        QosPolicy policy = QosPolicy.builder().addClass(ClassPolicy.named("premium"))
                .addClass(ClassPolicy.named("basic")).build();
        QosEngine engine = QosEngine.create(policy);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        QosMetrics metrics = new QosMetrics(engine, io.micrometer.core.instrument.Tags.empty(), 0);
        metrics.bindTo(registry);
        engine.enter(request(null)).complete();

        engine.reload(QosPolicy.builder().addClass(ClassPolicy.named("gold")).addClass(ClassPolicy.named("basic"))
                .build());

        assertNull(registry.find("qos.arrivals").tags("qos.class", "premium").meter(), "premium is gone");
        assertEquals(0, registry.get("qos.arrivals").tags("qos.class", "gold").functionCounter().count());
        assertEquals(1, registry.get("qos.arrivals").tags("qos.class", "basic").functionCounter().count());
        assertEquals(1, registry.get("qos.control.reference").tags("qos.class", "basic").gauge().value(),
                "basic's delay target, 1 s by default, found by name");
        metrics.close();
        assertNull(registry.find("qos.arrivals").meter());
    }

    @Test
    void theMetersShowEachBucketAndVirtualServer() {
        QosPolicy policy = QosPolicy.builder().maxExecuting(4).addClass(ClassPolicy.named("basic"))
                .addBucket(dev.servletqos.policy.BucketPolicy.onPaths("search", 2, 1, 1, "/search/*"))
                .addVirtualServer(dev.servletqos.policy.VirtualServerPolicy.of("a", 1, 1000, "a.example"))
                .virtualServerPlan(new dev.servletqos.policy.VirtualServerPlan(0.1, 0, 0.58)).build();
        QosEngine engine = QosEngine.create(policy);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        QosMetrics metrics = new QosMetrics(engine);
        metrics.bindTo(registry);
        engine.enter(TestRequest.get("/search/a")).complete();
        assertEquals(Ticket.State.REJECTED, engine.enter(TestRequest.get("/search/b")).state());
        engine.enter(TestRequest.get("/").host("a.example")).complete(300);
        engine.enter(TestRequest.get("/").host("a.example")).complete();

        assertEquals(1, registry.get("qos.bucket.requests").tags("bucket", "search", "outcome", "admitted")
                .functionCounter().count());
        assertEquals(1, registry.get("qos.bucket.requests").tags("bucket", "search", "outcome", "refused")
                .functionCounter().count());
        assertEquals(2, registry.get("qos.bucket.rate").tags("bucket", "search").gauge().value());
        assertEquals(1, registry.get("qos.vhost.requests").tags("vhost", "a", "guarantee", "within")
                .functionCounter().count());
        assertEquals(1, registry.get("qos.vhost.requests").tags("vhost", "a", "guarantee", "beyond")
                .functionCounter().count(), "a's guarantee is 1/s with a depth of 1");
        assertEquals(300, registry.get("qos.vhost.guaranteed.bytes").tags("vhost", "a").functionCounter().count());
        metrics.close();
    }

    @Test
    void theMetersShowEachClassesContentLevelAndTheRequestsServedPerLevel() {
        QosPolicy policy = QosPolicy.builder().maxExecuting(10).secret("test-secret-0123456789abcdef")
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic").withLevels(2))
                .addRule(Rule.header("premium", "X-Tier", "premium")).build();
        QosEngine engine = QosEngine.create(policy);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine, Tags.empty(), 0).bindTo(registry);
        assertEquals(2, registry.get("qos.content.level").tags("qos.class", "basic").gauge().value());
        assertEquals(2, registry.get("qos.content.levels").tags("qos.class", "basic").gauge().value());
        assertEquals(1, registry.get("qos.content.levels").tags("qos.class", "premium").gauge().value());

        engine.enter(request(null)).complete();
        engine.update(s -> s.withClass(1, s.get(1).withLevel(1.5)));
        assertEquals(1.5, registry.get("qos.content.level").tags("qos.class", "basic").gauge().value());
        int[] served = new int[3];
        for (int i = 0; i < 200; i++) {
            Ticket t = engine.enter(request(null));
            served[t.level()]++;
            t.complete();
        }
        engine.update(s -> s.withClass(1, s.get(1).withLevel(0)));
        assertEquals(Ticket.State.REJECTED, engine.enter(request(null)).state());

        assertEquals(served[1], count(registry, "qos.content.served", "level", "1"));
        assertEquals(served[2] + 1, count(registry, "qos.content.served", "level", "2"), "and the one at full level");
        assertEquals(1, count(registry, "qos.rejections", "reason", "session-level"));
        assertEquals(1, count(registry, "qos.sessions", "outcome", "refused"));
        assertNull(registry.find("qos.content.served").tags("qos.class", "basic", "level", "3").meter(),
                "a counter per level the class has");
        assertEquals(0, registry.get("qos.content.level").tags("qos.class", "basic").gauge().value());
    }

    private static double count(SimpleMeterRegistry registry, String meter, String tag, String value) {
        return registry.get(meter).tags("qos.class", "basic", tag, value).functionCounter().count();
    }
}

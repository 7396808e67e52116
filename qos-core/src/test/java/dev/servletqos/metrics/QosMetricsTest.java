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
}

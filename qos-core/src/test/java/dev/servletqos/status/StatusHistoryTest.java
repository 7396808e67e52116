package dev.servletqos.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.FakeClock;
import dev.servletqos.QosEngine;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The status page's history, on a fake clock: points a step apart, rates and delays between them, bounded. */
class StatusHistoryTest {

    static final String POLICY = """
            classes = premium, basic
            default-class = basic
            max-executing = 2
            borrowing = false
            class.premium.budget = 1
            class.basic.budget = 1
            class.basic.max-queue = 1
            class.basic.delay-target = 400ms
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            """;

    static QosPolicy policy(String text) {
        return PolicyParser.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "test", Map.of());
    }

    private final FakeClock clock = new FakeClock();
    private final QosEngine engine = QosEngine.create(policy(POLICY), clock);

    @Test
    void aPointAStepApartWithRatesAndTheDelayOfTheGrantsBetween() {
        StatusHistory h = new StatusHistory(10, 1000);
        assertTrue(h.record(engine.snapshot(), 1_000));
        Ticket running = engine.enter(TestRequest.get("/a"));
        Ticket waiting = engine.enter(TestRequest.get("/b"));
        Ticket refused = engine.enter(TestRequest.get("/c"));
        assertEquals(Ticket.State.RUNNING, running.state());
        assertEquals(Ticket.State.PARKED, waiting.state());
        assertEquals(Ticket.State.REJECTED, refused.state());
        clock.advance(Duration.ofMillis(999));
        assertFalse(h.record(engine.snapshot(), 1_999), "less than a step since the last point");
        clock.advance(Duration.ofMillis(301));
        running.complete(); // the waiting request is granted after 1.3 s
        clock.advance(Duration.ofMillis(700));
        assertTrue(h.record(engine.snapshot(), 3_000));
        List<StatusHistory.Point> points = h.since(0);
        assertEquals(2, points.size());
        StatusHistory.ClassPoint first = points.get(0).classes().get(1);
        assertTrue(Double.isNaN(first.admittedPerSecond()) && Double.isNaN(first.waitMillis()), "nothing before");
        StatusHistory.ClassPoint basic = points.get(1).classes().get(1);
        assertEquals(0, basic.queued());
        assertEquals(1, basic.executing());
        assertEquals(1, basic.budget());
        assertEquals(400, basic.delayTargetMillis());
        assertEquals((0 + 1300) / 2.0, basic.waitMillis(), 1e-9, "two grants between the points: at once, after 1.3 s");
        assertEquals(1.0, basic.admittedPerSecond(), 1e-9); // two sessions admitted in 2 s
        assertEquals(0.5, basic.rejectedPerSecond(), 1e-9);
        assertEquals(0.5, basic.completedPerSecond(), 1e-9);
        assertEquals(0, basic.expiredPerSecond(), 1e-9);
        assertEquals(2, points.get(1).maxExecuting());
        assertEquals(List.of(points.get(1)), h.since(1_000));
    }

    @Test
    void keepsTheNewestPointsOnly() {
        StatusHistory h = new StatusHistory(3, 1000);
        for (int i = 0; i < 7; i++) {
            assertTrue(h.record(engine.snapshot(), 1_000L * i));
            clock.advance(Duration.ofSeconds(1));
        }
        assertEquals(3, h.size());
        assertEquals(List.of(4_000L, 5_000L, 6_000L), h.since(0).stream().map(StatusHistory.Point::epochMillis).toList());
    }

    @Test
    void anotherEngineStartsTheHistoryAgain() {
        StatusHistory h = new StatusHistory(10, 1000);
        engine.enter(TestRequest.get("/a")).complete();
        clock.advance(Duration.ofSeconds(1));
        h.record(engine.snapshot(), 1_000);
        clock.advance(Duration.ofSeconds(1));
        h.record(QosEngine.create(policy(POLICY), clock).snapshot(), 2_000); // fewer requests entered: restarted
        assertEquals(1, h.size());
        assertTrue(Double.isNaN(h.since(0).get(0).classes().get(1).completedPerSecond()));
    }

    @Test
    void refusesAnUnboundedOrZeroStep() {
        assertThrows(IllegalArgumentException.class, () -> new StatusHistory(1, 1000));
        assertThrows(IllegalArgumentException.class, () -> new StatusHistory(100_001, 1000));
        assertThrows(IllegalArgumentException.class, () -> new StatusHistory(10, 0));
    }
}

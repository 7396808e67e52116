package dev.servletqos;

import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, finding 10: clients refused together must not come back together. Every refusal of a static policy
 * (a full queue, the maximum wait, the WebQoS triggers, a session rate) sends {@code admission.retry-after}
 * jittered by a factor of 0.75..1.25, rounded up, as automatic admission already does for its own refusals.
 */
class RetryAfterJitterTest {

    private static final int REFUSALS = 400;

    private final FakeClock clock = new FakeClock();

    /** 10 s jittered by 0.75..1.25 and rounded up: 8..13 s, and not all alike. */
    private static void assertJittered(String what, List<Long> seconds) {
        TreeSet<Long> seen = new TreeSet<>(seconds);
        assertTrue(seen.first() >= 8 && seen.last() <= 13, what + ": Retry-After outside 8..13 s: " + seen);
        assertTrue(seen.size() >= 4, what + ": the Retry-After of " + seconds.size() + " refusals took only " + seen);
    }

    @Test
    void aFullQueueSendsAJitteredRetryAfter() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("basic").withMaxQueue(0)).retryAfter(Duration.ofSeconds(10)).build(), clock);
        Ticket running = engine.enter(request("basic"), clock.nanoTime());
        List<Long> seconds = new ArrayList<>();
        for (int i = 0; i < REFUSALS; i++) {
            Ticket t = engine.enter(request("basic"), clock.nanoTime());
            assertEquals(State.REJECTED, t.state());
            seconds.add(t.rejection().retryAfterSeconds());
        }
        running.complete();
        assertJittered("queue full", seconds);
    }

    @Test
    void theMaximumWaitSendsAJitteredRetryAfter() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("basic").withMaxWait(Duration.ofSeconds(1))).retryAfter(Duration.ofSeconds(10))
                .build(), clock);
        Ticket running = engine.enter(request("basic"), clock.nanoTime());
        List<Ticket> waiting = new ArrayList<>();
        for (int i = 0; i < REFUSALS; i++) {
            // from many clients: admission.max-queued-per-address holds one address to 100 waiting
            waiting.add(engine.enter(request("basic").from("10.0." + i / 256 + "." + i % 256), clock.nanoTime()));
        }
        clock.advance(Duration.ofSeconds(2));
        assertEquals(REFUSALS, engine.expireOverdue(clock.nanoTime()));
        List<Long> seconds = new ArrayList<>();
        for (Ticket t : waiting) {
            seconds.add(t.rejection().retryAfterSeconds());
        }
        running.complete();
        assertJittered("maximum wait", seconds);
    }

    @Test
    void theQueueTriggersAndTheSessionRateSendAJitteredRetryAfter() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).higherQueuedTrigger(1).retryAfter(Duration.ofSeconds(10)).build(), clock);
        Ticket running = engine.enter(request("premium"), clock.nanoTime());
        Ticket queued = engine.enter(request("premium"), clock.nanoTime());
        List<Long> seconds = new ArrayList<>();
        for (int i = 0; i < REFUSALS; i++) {
            Ticket t = engine.enter(request("basic"), clock.nanoTime());
            assertEquals(State.REJECTED, t.state());
            seconds.add(t.rejection().retryAfterSeconds());
        }
        running.complete();
        queued.complete();
        assertJittered("trigger k", seconds);

        QosEngine limited = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4,
                ClassPolicy.named("basic").withSessionRate(1).withSessionBurst(1))
                .retryAfter(Duration.ofSeconds(10)).build(), clock);
        limited.enter(request("basic"), clock.nanoTime()).complete();
        List<Long> rate = new ArrayList<>();
        for (int i = 0; i < REFUSALS; i++) {
            Ticket t = limited.enter(request("basic"), clock.nanoTime());
            assertEquals(State.REJECTED, t.state());
            rate.add(t.rejection().retryAfterSeconds());
        }
        assertJittered("session rate", rate);
    }

    @Test
    void aRetryAfterOfZeroStaysZero() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("basic").withMaxQueue(0)).retryAfter(Duration.ZERO).build(), clock);
        Ticket running = engine.enter(request("basic"), clock.nanoTime());
        for (int i = 0; i < 50; i++) {
            assertEquals(0, engine.enter(request("basic"), clock.nanoTime()).rejection().retryAfterSeconds());
        }
        running.complete();
    }
}

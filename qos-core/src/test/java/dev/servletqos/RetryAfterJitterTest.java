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
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, finding 10: clients refused together must not come back together. Every refusal of a static policy
 * (a full queue, the maximum wait, the WebQoS triggers, a session rate, the per-session and per-address limits, the
 * new sessions per address, a token bucket, content level 0) sends {@code admission.retry-after}
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

    /** {@value #REFUSALS} refusals of the request {@code r} makes, each of reason {@code reason}: their Retry-After. */
    private List<Long> refusals(QosEngine engine, Supplier<TestRequest> r, Rejection.Reason reason) {
        List<Long> seconds = new ArrayList<>();
        for (int i = 0; i < REFUSALS; i++) {
            Ticket t = engine.enter(r.get(), clock.nanoTime());
            assertEquals(State.REJECTED, t.state());
            assertEquals(reason, t.rejection().reason());
            seconds.add(t.rejection().retryAfterSeconds());
        }
        return seconds;
    }

    @Test
    void theSessionAndAddressLimitsBucketsAndLevelZeroSendAJitteredRetryAfter() {
        String base = "classes = basic\nmax-executing = 1\nadmission.retry-after = 10s\n"
                + "tier-cookie.secret = jitter-test-secret-0123456789\n";
        // issue 22: a session's requests beyond max-per-session wait in its line; beyond the class's max-queue there,
        // they are refused (session-limit)
        QosEngine perSession = QosEngine.create(ClassEscalationTest.parse(base + "admission.max-per-session = 1\n"
                + "class.basic.max-queue = 1\n"), clock);
        Ticket running = perSession.enter(request("basic"), clock.nanoTime());
        String session = Engines.cookieValue(running.setCookieHeader());
        assertEquals(State.PARKED, perSession.enter(TestRequest.get("/").cookie("QOSSESSION", session),
                clock.nanoTime()).state(), "in the session's line");
        assertJittered("session limit", refusals(perSession,
                () -> TestRequest.get("/").cookie("QOSSESSION", session), Rejection.Reason.SESSION_LIMIT));
        running.complete();

        // the queue's share binds only while it is scarce (half full) and other addresses wait too (issue 22)
        QosEngine perAddress = QosEngine.create(ClassEscalationTest.parse(base
                + "admission.max-queued-per-address = 1\nclass.basic.max-queue = 4\n"), clock);
        Ticket blocker = perAddress.enter(TestRequest.get("/").from("192.0.2.1"), clock.nanoTime());
        Ticket waiting = perAddress.enter(TestRequest.get("/").from("192.0.2.2"), clock.nanoTime());
        Ticket waiting2 = perAddress.enter(TestRequest.get("/").from("192.0.2.2"), clock.nanoTime());
        Ticket other = perAddress.enter(TestRequest.get("/").from("192.0.2.9"), clock.nanoTime());
        assertEquals(State.PARKED, waiting2.state());
        assertEquals(State.PARKED, other.state());
        assertJittered("address limit", refusals(perAddress, () -> TestRequest.get("/").from("192.0.2.2"),
                Rejection.Reason.ADDRESS_LIMIT));
        waiting.cancel();
        waiting2.cancel();
        other.cancel();
        blocker.complete();

        QosEngine bucket = QosEngine.create(ClassEscalationTest.parse(base.replace("max-executing = 1",
                "max-executing = 4") + "bucket.search.path = /search\nbucket.search.rate = 1\n"
                + "bucket.search.depth = 1\n"), clock);
        bucket.enter(TestRequest.get("/search"), clock.nanoTime()).complete();
        assertJittered("bucket", refusals(bucket, () -> TestRequest.get("/search"), Rejection.Reason.BUCKET));

        // an address's share binds only while its class rations and another address went without (issue 22)
        QosEngine newSessions = QosEngine.create(ClassEscalationTest.parse(base.replace("max-executing = 1",
                "max-executing = 4") + "class.basic.session-rate = 1\n"), clock);
        newSessions.enter(TestRequest.get("/").from("192.0.2.3"), clock.nanoTime()).complete();
        assertEquals(Rejection.Reason.SESSION_RATE, newSessions.enter(TestRequest.get("/").from("192.0.2.4"),
                clock.nanoTime()).rejection().reason());
        // the water level is computed again at most every AddressSessions.LEVEL_NANOS: the one of the first admission,
        // when 192.0.2.3 alone asked, holds until then
        clock.advance(Duration.ofNanos(AddressSessions.LEVEL_NANOS));
        assertJittered("new sessions per address", refusals(newSessions, () -> TestRequest.get("/").from("192.0.2.3"),
                Rejection.Reason.SESSION_ADDRESS));

        QosEngine levels = QosEngine.create(ClassEscalationTest.parse(base + "class.basic.levels = 2\n"), clock);
        levels.apply(levels.settings().withClass(0, levels.settings().get(0).withLevel(0)),
                Settings.Source.CONTROLLER);
        assertJittered("content level 0", refusals(levels, () -> TestRequest.get("/"),
                Rejection.Reason.SESSION_LEVEL));
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

package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What {@code control.admission = auto} does on the request path, on a fake clock: the queue guard, Retry-After
 * from state, aging of admitted sessions' requests; and the ceiling the container's threads put on the capacity
 * law.
 */
class AutoAdmissionTest {

    private final FakeClock clock = new FakeClock();

    private QosEngine engine(int maxExecuting, ControlPolicy.Admission admission) {
        return engine(maxExecuting, admission, ClassPolicy.named("premium"));
    }

    /** {@code premium}: the highest class as the test wants it (its reserve given or not). */
    private QosEngine engine(int maxExecuting, ControlPolicy.Admission admission, ClassPolicy premium) {
        QosPolicy p = policy(Scheduling.STRICT_PRIORITY, maxExecuting,
                premium.withDelayTarget(Duration.ofMillis(250)),
                ClassPolicy.named("basic").withDelayTarget(Duration.ofSeconds(1)).withMaxWait(Duration.ofSeconds(4)))
                .retryAfter(Duration.ofSeconds(10))
                .control(ControlPolicy.DEFAULTS.withAdmission(admission)).build();
        return QosEngine.create(p, clock);
    }

    /** Runs one request of {@code cls} for 100 ms, so the engine knows its service time. */
    private String serveOne(QosEngine e, String cls) {
        Ticket t = e.enter(request(cls), clock.nanoTime());
        assertEquals(State.RUNNING, t.state());
        clock.advance(Duration.ofMillis(100));
        t.complete();
        return cookieValue(t.setCookieHeader());
    }

    @Test
    void theQueueGuardRefusesANewSessionWhoseQueueWouldMissItsTargetAndNoAdmittedOne() {
        // no reserve: basic may use both permits (the default reserve is the next test's)
        QosEngine e = engine(2, ControlPolicy.Admission.AUTO, ClassPolicy.named("premium").withReserve(0));
        String admitted = serveOne(e, "basic");
        List<Ticket> tickets = new ArrayList<>();
        tickets.add(e.enter(request("basic"), clock.nanoTime()));
        tickets.add(e.enter(request("basic"), clock.nanoTime()));
        // 100 ms a request on 2 permits: 20 queued requests take the 1 s target to start; the 21st takes longer
        Ticket refused = null;
        while (refused == null && tickets.size() < 100) {
            Ticket t = e.enter(request("basic"), clock.nanoTime());
            if (t.state() == State.REJECTED) {
                refused = t;
            } else {
                tickets.add(t);
            }
        }
        assertEquals(21, e.snapshot().get("basic").queued(), "refused once 21 wait: 21 x 100 ms / 2 > 1 s");
        assertEquals(Rejection.Reason.SESSION_QUEUED, refused.rejection().reason());
        assertEquals(503, refused.rejection().status());
        assertEquals(1, refused.rejection().retryAfterSeconds(), "the queue is 50 ms over its target: retry in 1 s");
        assertNull(refused.setCookieHeader(), "a refused session gets no admission cookie");

        Ticket ofAdmitted = e.enter(request("basic").cookie("QOSSESSION", admitted), clock.nanoTime());
        assertEquals(State.PARKED, ofAdmitted.state(), "an admitted session is never refused by admission");
        Ticket premium = e.enter(request("premium"), clock.nanoTime());
        assertEquals(State.PARKED, premium.state(), "premium's own queue is empty: its new session is admitted");

        tickets.add(ofAdmitted);
        tickets.add(premium);
        tickets.forEach(Ticket::complete);
        assertEquals(0, e.snapshot().executing());
        assertEquals(0, e.snapshot().queued());
    }

    @Test
    void theQueueGuardCountsOnlyThePermitsTheClassMayUseNotPremiumsReserve() {
        QosEngine e = engine(2, ControlPolicy.Admission.AUTO);
        serveOne(e, "basic");
        List<Ticket> tickets = new ArrayList<>();
        Ticket refused = null;
        while (refused == null && tickets.size() < 100) {
            Ticket t = e.enter(request("basic"), clock.nanoTime());
            if (t.state() == State.REJECTED) {
                refused = t;
            } else {
                tickets.add(t);
            }
        }
        assertEquals(1, e.snapshot().get("basic").executing(), "premium keeps the other permit");
        assertEquals(11, e.snapshot().get("basic").queued(), "refused once 11 wait: 11 x 100 ms / 1 permit > 1 s");
        assertEquals(Rejection.Reason.SESSION_QUEUED, refused.rejection().reason());
        Ticket premium = e.enter(request("premium"), clock.nanoTime());
        assertEquals(State.RUNNING, premium.state(), "premium's reserved permit is free");
        tickets.add(premium);
        tickets.forEach(Ticket::complete);
        assertEquals(0, e.snapshot().executing());
        assertEquals(0, e.snapshot().queued());
    }

    @Test
    void withTheTriggersTheSameQueueRefusesNobody() {
        QosEngine e = engine(2, ControlPolicy.Admission.TRIGGERS);
        serveOne(e, "basic");
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            Ticket t = e.enter(request("basic"), clock.nanoTime());
            assertTrue(t.state() == State.RUNNING || t.state() == State.PARKED, "request " + i + ": " + t.state());
            tickets.add(t);
        }
        tickets.forEach(Ticket::complete);
    }

    @Test
    void retryAfterOfTheSessionRateGrowsWithTheSessionsItTurnedAwayUpToThePolicysValue() {
        QosEngine e = engine(4, ControlPolicy.Admission.AUTO);
        e.setSessionRate("basic", 0.5, 1);
        serveOne(e, "basic"); // takes the one token
        long last = 0;
        List<Long> seen = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            Ticket t = e.enter(request("basic"), clock.nanoTime());
            assertEquals(Rejection.Reason.SESSION_RATE, t.rejection().reason());
            long s = t.rejection().retryAfterSeconds();
            seen.add(s);
            assertTrue(s >= 1 && s <= 10, "Retry-After " + s + " within 1..10 s");
            last = s;
        }
        // the first refused: 1 session over 0.5/s = 2 s, +-25 %; the twelfth: 12 / 0.5 = 24 s, capped at 10 s
        assertTrue(seen.get(0) >= 2 && seen.get(0) <= 3, "first: " + seen);
        assertEquals(10, last, "the policy's admission.retry-after bounds it: " + seen);
    }

    @Test
    void withTheDefaultMaxWaitARequestIsOverdueAtThreeTimesItsDelayTargetBeforeABrowserGivesUp() {
        // basic: delay target 1 s, max-wait at its default (10 s), whose half is a browser's 5 s timeout
        for (long waitedMillis : new long[] {2900, 3100}) {
            QosPolicy p = policy(Scheduling.STRICT_PRIORITY, 1,
                    ClassPolicy.named("premium").withDelayTarget(Duration.ofMillis(250)),
                    ClassPolicy.named("basic").withDelayTarget(Duration.ofSeconds(1)))
                    .control(ControlPolicy.DEFAULTS.withAdmission(ControlPolicy.Admission.AUTO)).build();
            QosEngine e = QosEngine.create(p, clock);
            Ticket running = e.enter(request("premium"), clock.nanoTime());
            Ticket basic = e.enter(request("basic"), clock.nanoTime());
            clock.advance(Duration.ofMillis(waitedMillis));
            Ticket premium = e.enter(request("premium"), clock.nanoTime());
            running.complete();
            boolean aged = waitedMillis >= 3000;
            assertEquals(aged ? State.RUNNING : State.PARKED, basic.state(), "basic waited " + waitedMillis + " ms");
            assertEquals(aged ? State.PARKED : State.RUNNING, premium.state(), "premium, " + waitedMillis + " ms");
        }
    }

    @Test
    void aNewSessionOfAClassWhoseOldestRequestIsOverdueIsRefusedThoughThePredictionHasRoom() {
        for (long waitedMillis : new long[] {1900, 2100}) {
            QosEngine e = engine(2, ControlPolicy.Admission.AUTO, ClassPolicy.named("premium").withReserve(0));
            serveOne(e, "basic"); // 100 ms a request
            e.enter(request("premium"), clock.nanoTime());
            e.enter(request("premium"), clock.nanoTime());
            Ticket waiting = e.enter(request("basic"), clock.nanoTime());
            assertEquals(State.PARKED, waiting.state());
            clock.advance(Duration.ofMillis(waitedMillis));
            // one request queued at 100 ms on one permit: 0.1 s to start, well within basic's 1 s target; but the
            // one there waited past min(max-wait 4 s / 2, 3 x 1 s)
            Ticket next = e.enter(request("basic"), clock.nanoTime());
            if (waitedMillis >= 2000) {
                assertEquals(State.REJECTED, next.state(), "a new basic session, its class's head overdue");
                assertEquals(Rejection.Reason.SESSION_QUEUED, next.rejection().reason());
            } else {
                assertEquals(State.PARKED, next.state(), "a new basic session, its class's head not overdue");
            }
        }
    }

    @Test
    void anAdmittedSessionsRequestThatWaitedHalfItsMaxWaitIsServedBeforeTheClassesAbove() {
        for (ControlPolicy.Admission mode : ControlPolicy.Admission.values()) {
            for (long waitedMillis : new long[] {1900, 2100}) {
                QosEngine e = engine(1, mode);
                Ticket running = e.enter(request("premium"), clock.nanoTime());
                Ticket basic = e.enter(request("basic"), clock.nanoTime());
                clock.advance(Duration.ofMillis(waitedMillis));
                Ticket premium = e.enter(request("premium"), clock.nanoTime());
                running.complete();
                boolean aged = mode == ControlPolicy.Admission.AUTO && waitedMillis >= 2000;
                assertEquals(aged ? State.RUNNING : State.PARKED, basic.state(), mode + ", basic waited "
                        + waitedMillis + " ms of its 4 s");
                assertEquals(aged ? State.PARKED : State.RUNNING, premium.state(), mode + ", " + waitedMillis);
                basic.complete();
                premium.complete();
                assertEquals(0, e.snapshot().executing());
            }
        }
    }

    @Test
    void theContainersThreadsCapTheLimitTheEngineFindsButNotAConfiguredOne() {
        QosPolicy auto = QosPolicy.builder().addClass(ClassPolicy.named("premium")).addClass(
                ClassPolicy.named("basic")).build();
        QosEngine e = QosEngine.create(auto, clock);
        assertEquals(QosPolicy.DEFAULT_CEILING, e.settings().ceiling());
        assertEquals(21, e.fitToThreads(24), "24 threads less an eighth (at least 2) for the container");
        Settings asked = e.settings().withMaxExecuting(100);
        assertEquals(21, e.apply(asked, Settings.Source.CONTROLLER).maxExecuting(), "the controller stays below");
        assertEquals(6, e.fitToThreads(8));
        assertEquals(6, e.settings().maxExecuting(), "a limit above a lowered ceiling comes down at once");

        QosEngine fixed = QosEngine.create(QosPolicy.builder().addClass(ClassPolicy.named("a")).maxExecuting(32)
                .build(), clock);
        assertEquals(32, fixed.fitToThreads(8), "a configured max-executing stays as configured");
        assertEquals(32, fixed.settings().maxExecuting());
    }
}

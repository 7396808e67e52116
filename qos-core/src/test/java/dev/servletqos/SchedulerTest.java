package dev.servletqos;

import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Who runs, who waits and in what order, for each scheduling policy; time on a fake clock. */
class SchedulerTest {

    private final FakeClock clock = new FakeClock();
    private final Engines.Recorder recorder = new Engines.Recorder();
    private final List<Ticket> all = new ArrayList<>();
    private QosEngine engine;

    private Ticket enter(String serviceClass) {
        Ticket t = engine.enter(request(serviceClass), clock.nanoTime());
        all.add(t);
        if (t.state() == State.PARKED) {
            t.await(recorder);
        }
        return t;
    }

    /** Whatever a test left running or waiting, ending it leaves no permit or ticket behind. */
    @AfterEach
    void endingEverythingLeavesNothingBehind() {
        for (int round = 0; round < 3; round++) {
            new ArrayList<>(all).forEach(Ticket::complete);
        }
        EngineSnapshot s = engine.snapshot();
        assertEquals(0, s.executing(), s.toString());
        assertEquals(0, s.queued(), s.toString());
        for (ClassStats c : s.classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }

    @Test
    void strictPriorityServesWaitingPremiumBeforeEarlierBasic() {
        // no reserve: the order in which waiting requests are served (TopClassReserveTest has the default reserve)
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 2,
                ClassPolicy.named("premium").withReserve(0), ClassPolicy.named("basic")).build(), clock);
        List<Ticket> basic = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            basic.add(enter("basic"));
        }
        assertEquals(State.RUNNING, basic.get(0).state());
        assertEquals(State.RUNNING, basic.get(1).state());
        assertEquals(38, engine.snapshot().get("basic").queued());
        List<Ticket> premium = List.of(enter("premium"), enter("premium"), enter("premium"));
        premium.forEach(t -> assertEquals(State.PARKED, t.state()));

        basic.get(0).complete();
        basic.get(1).complete();
        assertEquals(List.of(premium.get(0), premium.get(1)), recorder.granted);
        premium.get(0).complete();
        assertEquals(premium, recorder.granted, "all three premium before any waiting basic");
        premium.get(1).complete();
        premium.get(2).complete();
        assertEquals(List.of(basic.get(2), basic.get(3)), recorder.granted.subList(3, 5), "then basic, FIFO");
    }

    @Test
    void weightedDispatchesFollowTheWeightsOverTenThousandDispatches() {
        // every request is a new session, a thousand a second: gold, the highest class, without its default rate
        engine = QosEngine.create(policy(Scheduling.WEIGHTED, 4,
                ClassPolicy.named("gold").withWeight(5).withSessionRate(0),
                ClassPolicy.named("silver").withWeight(3), ClassPolicy.named("bronze").withWeight(2)).build(), clock);
        String[] names = {"gold", "silver", "bronze"};
        Deque<Ticket> running = new ArrayDeque<>();
        for (String n : names) {
            for (int i = 0; i < 10; i++) {
                Ticket t = enter(n);
                if (t.state() == State.RUNNING) {
                    running.add(t);
                }
            }
        }
        Random random = new Random(42);
        int[] dispatched = new int[3];
        int seen = 0;
        for (int i = 0; i < 10_000; i++) {
            List<Ticket> run = new ArrayList<>(running);
            Ticket done = run.get(random.nextInt(run.size()));
            running.remove(done);
            done.complete();
            List<Ticket> g = recorder.granted.subList(seen, recorder.granted.size());
            for (Ticket t : g) {
                dispatched[indexOf(names, t.serviceClass())]++;
                running.add(t);
                enter(t.serviceClass()); // keep every class saturated
            }
            seen = recorder.granted.size();
            clock.advance(Duration.ofMillis(1));
        }
        int total = dispatched[0] + dispatched[1] + dispatched[2];
        assertEquals(10_000, total);
        double[] weights = {5, 3, 2};
        for (int k = 0; k < 3; k++) {
            double expected = total * weights[k] / 10.0;
            assertEquals(expected, dispatched[k], expected * 0.05, names[k] + " got " + dispatched[k]);
        }
    }

    private static int indexOf(String[] names, String n) {
        for (int i = 0; i < names.length; i++) {
            if (names[i].equals(n)) {
                return i;
            }
        }
        throw new AssertionError(n);
    }

    @Test
    void sharedCapacityLendsIdlePermitsButNeverTheReserve() {
        engine = QosEngine.create(policy(Scheduling.SHARED_CAPACITY, 4,
                ClassPolicy.named("premium").withBudget(2).withReserve(2),
                ClassPolicy.named("basic").withBudget(2)).build(), clock);
        List<Ticket> basic = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            basic.add(enter("basic"));
        }
        assertEquals(2, engine.snapshot().get("basic").executing(), "premium's reserve of 2 is not lent");
        assertEquals(2, engine.snapshot().executing());
        Ticket p1 = enter("premium");
        Ticket p2 = enter("premium");
        assertEquals(State.RUNNING, p1.state());
        assertEquals(State.RUNNING, p2.state(), "the reserve is there when premium comes");
        Ticket p3 = enter("premium");
        assertEquals(State.PARKED, p3.state());
        assertEquals(4, engine.snapshot().executing());
    }

    @Test
    void sharedCapacityBorrowerGivesBackNonPreemptively() {
        engine = QosEngine.create(policy(Scheduling.SHARED_CAPACITY, 4,
                ClassPolicy.named("premium").withBudget(2),
                ClassPolicy.named("basic").withBudget(2)).build(), clock);
        List<Ticket> premium = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            premium.add(enter("premium"));
        }
        ClassStats p = engine.snapshot().get("premium");
        assertEquals(4, p.executing(), "premium borrows basic's idle permits");
        assertEquals(2, p.borrowed());
        Ticket b = enter("basic");
        assertEquals(State.PARKED, b.state(), "non-preemptive: basic waits for a permit to come back");
        premium.get(0).complete();
        assertSame(b, recorder.granted.get(0), "the freed permit goes to its owner, not to waiting premium");
        assertEquals(1, engine.snapshot().get("premium").borrowed(), "premium gave back a borrowed permit");
    }

    @Test
    void fixedCapacityNeverBorrowsEvenWhenIdle() {
        engine = QosEngine.create(policy(Scheduling.FIXED_CAPACITY, 4,
                ClassPolicy.named("premium").withBudget(1),
                ClassPolicy.named("basic").withBudget(3)).build(), clock);
        Ticket a = enter("premium");
        Ticket b = enter("premium");
        assertEquals(State.RUNNING, a.state());
        assertEquals(State.PARKED, b.state(), "three idle basic permits are not lent");
        assertEquals(1, engine.snapshot().executing());
    }

    @Test
    void earliestDeadlineFirstServesByDeadlineAcrossClasses() {
        engine = QosEngine.create(policy(Scheduling.EARLIEST_DEADLINE, 1,
                ClassPolicy.named("premium").withDelayTarget(Duration.ofSeconds(2)),
                ClassPolicy.named("basic").withDelayTarget(Duration.ofMillis(100))).build(), clock);
        Ticket blocker = enter("basic");
        Ticket premium = enter("premium");           // deadline 2.0 s
        clock.advance(Duration.ofMillis(500));
        Ticket basic1 = enter("basic");              // deadline 0.6 s
        clock.advance(Duration.ofMillis(500));
        Ticket basic2 = enter("basic");              // deadline 1.1 s
        blocker.complete();
        basic1.complete();
        basic2.complete();
        assertEquals(List.of(basic1, basic2, premium), recorder.granted);
        // basic1 waited 0.5 s, basic2 0 s; premium 1 s; the blocker started at once.
        assertEquals(Duration.ofMillis(500).toNanos(), engine.snapshot().get("basic").waitNanos());
        assertEquals(3, engine.snapshot().get("basic").grants());
        assertEquals(Duration.ofSeconds(1).toNanos(), engine.snapshot().get("premium").waitNanos());
    }

    @Test
    void aRequestWaitingLongerThanItsMaximumWaitExpiresWith503() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("basic").withMaxWait(Duration.ofSeconds(1))).build(), clock);
        Ticket running = enter("basic");
        Ticket waiting = enter("basic");
        clock.advance(Duration.ofMillis(999));
        assertEquals(0, engine.expireOverdue(clock.nanoTime()));
        clock.advance(Duration.ofMillis(2));
        assertEquals(1, engine.expireOverdue(clock.nanoTime()));
        assertEquals(State.EXPIRED, waiting.state());
        assertEquals(List.of(waiting), recorder.expired);
        assertEquals(503, waiting.rejection().status());
        long retryAfter = waiting.rejection().retryAfterSeconds();
        assertTrue(retryAfter >= 8 && retryAfter <= 13, "10 s jittered by 0.75..1.25: " + retryAfter);
        assertEquals(retryAfter, waiting.rejection().retryAfterSeconds(), "one answer per ticket");
        assertEquals(Rejection.Reason.EXPIRED, waiting.rejection().reason());
        running.complete();
        assertTrue(recorder.granted.isEmpty(), "an expired request is never granted");
        assertEquals(1, engine.snapshot().get("basic").expired());
    }

    @Test
    void aRequestExpiredWhileAnotherIsRefusedIsStillAnswered() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1, ClassPolicy.named("basic")
                .withMaxWait(Duration.ofSeconds(1)).withSessionRate(0.001).withSessionBurst(2)).build(), clock);
        enter("basic");
        Ticket waiting = enter("basic");
        clock.advance(Duration.ofSeconds(2));
        // This new session expires the waiting request on its way in, then is refused by the session rate.
        Ticket refused = enter("basic");
        assertEquals(State.REJECTED, refused.state());
        assertEquals(State.EXPIRED, waiting.state());
        assertEquals(List.of(waiting), recorder.expired, "its listener is told, so its client gets the 503");
    }

    @Test
    void aFullQueueRefusesWith503AndRetryAfter() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("basic").withMaxQueue(2)).build(), clock);
        Ticket r = enter("basic");
        enter("basic");
        enter("basic");
        Ticket refused = enter("basic");
        assertEquals(State.REJECTED, refused.state());
        assertEquals(503, refused.rejection().status());
        assertEquals(Rejection.Reason.QUEUE_FULL, refused.rejection().reason());
        assertEquals(1, engine.snapshot().get("basic").queueFull());
        assertEquals(State.RUNNING, r.state());
    }

    @Test
    void aRaisedBudgetStartsWaitingRequestsAtOnceALoweredOneWaitsForCompletions() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 8,
                ClassPolicy.named("basic").withBudget(2)).borrowing(false).build(), clock);
        List<Ticket> t = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            t.add(enter("basic"));
        }
        assertEquals(2, engine.snapshot().executing());
        engine.setBudget("basic", 5);
        assertEquals(5, engine.snapshot().executing(), "raised budget drains the queue at once");
        assertEquals(3, recorder.granted.size());
        engine.setBudget("basic", 1);
        assertEquals(5, engine.snapshot().executing(), "non-preemptive: nobody is stopped");
        t.get(0).complete();
        t.get(1).complete();
        t.get(2).complete();
        t.get(3).complete();
        assertEquals(1, engine.snapshot().executing());
        assertEquals(3, recorder.granted.size(), "no grant while above the lowered budget");
        t.get(4).complete();
        assertEquals(4, recorder.granted.size(), "one grant once below it");
    }

    @Test
    void cancelAndExpireTakeAParkedTicketOutExactlyOnce() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1, ClassPolicy.named("basic")).build(), clock);
        Ticket running = enter("basic");
        Ticket a = enter("basic");
        Ticket b = enter("basic");
        assertTrue(a.cancel());
        assertFalse(a.cancel());
        assertFalse(a.expire());
        assertTrue(b.expire());
        assertEquals(State.CANCELLED, a.state());
        assertEquals(State.EXPIRED, b.state());
        running.complete();
        assertTrue(recorder.granted.isEmpty());
        assertTrue(recorder.expired.isEmpty(), "the container expired it itself: no second answer");
        ClassStats s = engine.snapshot().get("basic");
        assertEquals(1, s.cancelled());
        assertEquals(1, s.expired());
        assertEquals(0, s.executing() + s.queued());
    }

    @Test
    void aListenerAttachedAfterTheGrantIsCalledAtOnce() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1, ClassPolicy.named("basic")).build(), clock);
        Ticket running = engine.enter(request("basic"), clock.nanoTime());
        Ticket waiting = engine.enter(request("basic"), clock.nanoTime());
        all.add(running);
        all.add(waiting);
        running.complete();
        assertEquals(State.RUNNING, waiting.state());
        waiting.await(recorder);
        assertEquals(List.of(waiting), recorder.granted);
        waiting.complete();
        waiting.complete();
        assertEquals(2, engine.snapshot().get("basic").completed(), "complete twice counts once");
    }
}

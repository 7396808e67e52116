package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: a session's requests beyond {@code admission.max-per-session} (8 by default) wait in the session's own
 * line instead of a 429, and move on as its requests end; a cookie shared by many clients still gets at most 8 of the
 * server at once. And priority at the door: no new session of a higher class is refused while a lower class admits.
 */
class SessionLineTest {

    private static final String POLICY = """
            classes = basic
            max-executing = 4
            tier-cookie.secret = line-test-secret-0123456789
            """;

    private final FakeClock clock = new FakeClock();

    private Ticket enter(QosEngine engine, TestRequest r) {
        return engine.enter(r, clock.nanoTime());
    }

    private static QosEngine engine(String policy, FakeClock clock) {
        return QosEngine.create(ClassEscalationTest.parse(policy), clock);
    }

    /** An admitted session's cookie: its first request, completed. */
    private String admit(QosEngine engine) {
        Ticket first = enter(engine, TestRequest.get("/"));
        assertEquals(State.RUNNING, first.state());
        first.complete();
        return cookieValue(first.setCookieHeader());
    }

    private static long count(List<Ticket> tickets, State s) {
        return tickets.stream().filter(t -> t.state() == s).count();
    }

    private static void assertReconciles(QosEngine engine) {
        for (ClassStats c : engine.snapshot().classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }

    /**
     * A browser's page and its 29 assets at once, with two of four permits held by other sessions: none refused, the
     * session never has more than 8 in flight, and every request completes, in the order it was sent.
     */
    @Test
    void aPageOfThirtyUnderLoadCompletesInOrderWithNoneRefused() {
        QosEngine engine = engine(POLICY, clock);
        String session = admit(engine);
        List<Ticket> others = new ArrayList<>();
        others.add(enter(engine, TestRequest.get("/")));
        others.add(enter(engine, TestRequest.get("/")));
        assertEquals(2, count(others, State.RUNNING));

        List<Ticket> page = new ArrayList<>();
        List<Ticket> granted = new ArrayList<>();
        Ticket.Listener listener = new Ticket.Listener() {
            @Override
            public void granted(Ticket t) {
                granted.add(t);
            }

            @Override
            public void expired(Ticket t) {
                throw new AssertionError("expired: " + t);
            }
        };
        for (int i = 0; i < 30; i++) {
            Ticket t = enter(engine, TestRequest.get("/asset/" + i).cookie("QOSSESSION", session));
            assertTrue(t.state() == State.RUNNING || t.state() == State.PARKED, "asset " + i + ": " + t.state());
            if (t.state() == State.RUNNING) {
                granted.add(t);
            } else {
                t.await(listener);
            }
            page.add(t);
        }
        assertEquals(2, count(page, State.RUNNING), "the two free permits");
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(6, basic.queued(), "six more of the session wait in the class's queue");
        assertEquals(22, basic.lined(), "and the rest in the session's line");
        assertEquals(0, basic.rejected());
        assertReconciles(engine);

        // the other sessions go on: their new requests wait with the session's counted ones, not behind its line
        Ticket other = enter(engine, TestRequest.get("/"));
        assertEquals(State.PARKED, other.state());

        // the permits free up one at a time: the page's requests run in the order they were sent
        int done = 0;
        while (done < 30) {
            clock.advance(Duration.ofMillis(20));
            Ticket running = page.stream().filter(t -> t.state() == State.RUNNING).findFirst().orElseThrow();
            running.complete();
            done++;
            long inFlight = count(page, State.RUNNING) + engine.snapshot().get("basic").queued()
                    - (other.state() == State.PARKED ? 1 : 0);
            assertTrue(inFlight <= 8, "the session has " + inFlight + " in flight");
            assertTrue(count(page, State.RUNNING) <= 8);
            assertReconciles(engine);
        }
        assertEquals(page, granted, "granted in the order sent");
        assertEquals(30, count(page, State.COMPLETED));
        assertEquals(State.RUNNING, other.state(), "the other session's request was served meanwhile");
        basic = engine.snapshot().get("basic");
        assertEquals(0, basic.lined());
        assertEquals(0, basic.sessionLimited());
        others.forEach(Ticket::complete);
        other.complete();
        assertReconciles(engine);
    }

    /** With every permit free, a session still runs at most 8 at once: the rest wait in its line. */
    @Test
    void aSessionRunsAtMostEightAtOnceEvenWithPermitsFree() {
        QosEngine engine = engine(POLICY.replace("max-executing = 4", "max-executing = 20"), clock);
        String session = admit(engine);
        List<Ticket> page = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            page.add(enter(engine, TestRequest.get("/img/" + i).cookie("QOSSESSION", session)));
        }
        assertEquals(8, count(page, State.RUNNING));
        assertEquals(7, count(page, State.PARKED));
        assertEquals(7, engine.snapshot().get("basic").lined());
        assertEquals(0, engine.snapshot().get("basic").queued(), "nothing waits in the class's queue");
        Ticket other = enter(engine, TestRequest.get("/"));
        assertEquals(State.RUNNING, other.state(), "another session takes a free permit at once");
        page.get(0).complete();
        assertEquals(State.RUNNING, page.get(8).state(), "the line's first starts on the free permit");
        assertEquals(8, count(page, State.RUNNING));
        for (Ticket t : page) {
            if (t.state() == State.RUNNING) {
                t.complete();
            }
        }
        while (count(page, State.RUNNING) > 0) {
            page.stream().filter(t -> t.state() == State.RUNNING).forEach(Ticket::complete);
        }
        assertEquals(15, count(page, State.COMPLETED));
        other.complete();
        assertEquals(0, engine.snapshot().get("basic").rejected());
        assertReconciles(engine);
    }

    /** A request waiting in its session's line is bound by max-wait: expired by the sweep with a 503 and Retry-After. */
    @Test
    void aSessionsLineExpiresAtMaxWait() {
        QosEngine engine = engine(POLICY.replace("max-executing = 4", "max-executing = 10"), clock);
        String session = admit(engine);
        List<Ticket> counted = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            counted.add(enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)));
        }
        assertEquals(8, count(counted, State.RUNNING));
        Ticket lined = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertEquals(State.PARKED, lined.state());
        boolean[] expired = new boolean[1];
        lined.await(new Ticket.Listener() {
            @Override
            public void granted(Ticket t) {
                throw new AssertionError("granted");
            }

            @Override
            public void expired(Ticket t) {
                expired[0] = true;
            }
        });
        clock.advance(Duration.ofSeconds(9));
        assertEquals(0, engine.expireOverdue(clock.nanoTime()));
        clock.advance(Duration.ofSeconds(2)); // past max-wait = 10s
        assertEquals(1, engine.expireOverdue(clock.nanoTime()));
        assertEquals(State.EXPIRED, lined.state());
        assertTrue(expired[0], "its listener was told");
        assertEquals(503, lined.rejection().status());
        assertEquals(Rejection.Reason.EXPIRED, lined.rejection().reason());
        assertTrue(lined.rejection().retryAfterSeconds() > 0);
        assertEquals(8, count(counted, State.RUNNING), "the running ones go on");
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(1, basic.expired());
        assertEquals(0, basic.lined());
        assertReconciles(engine);

        // the line is empty again: a request of the session still waits in it, and moves on as one ends
        Ticket next = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertEquals(State.PARKED, next.state());
        counted.get(0).complete();
        assertEquals(State.RUNNING, next.state());
        counted.forEach(Ticket::complete);
        next.complete();
        assertReconciles(engine);
    }

    /** The client of a request waiting in its session's line goes away: cancelled, and the line goes on without it. */
    @Test
    void aRequestInTheSessionsLineIsCancelled() {
        QosEngine engine = engine(POLICY.replace("max-executing = 4", "max-executing = 10"), clock);
        String session = admit(engine);
        List<Ticket> counted = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            counted.add(enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)));
        }
        Ticket a = enter(engine, TestRequest.get("/a").cookie("QOSSESSION", session));
        Ticket b = enter(engine, TestRequest.get("/b").cookie("QOSSESSION", session));
        Ticket c = enter(engine, TestRequest.get("/c").cookie("QOSSESSION", session));
        assertEquals(3, engine.snapshot().get("basic").lined());
        assertTrue(b.cancel(), "the client went away");
        assertEquals(State.CANCELLED, b.state());
        assertFalse(b.cancel(), "once");
        assertEquals(503, b.rejection().status());
        c.complete(); // an adapter's complete() of a waiting ticket cancels it too
        assertEquals(State.CANCELLED, c.state());
        assertTrue(a.expire(), "the container's own timeout");
        assertEquals(State.EXPIRED, a.state());
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(0, basic.lined());
        assertEquals(2, basic.cancelled());
        assertEquals(1, basic.expired());
        assertReconciles(engine);

        Ticket d = enter(engine, TestRequest.get("/d").cookie("QOSSESSION", session));
        assertEquals(State.PARKED, d.state(), "the session still has 8 in flight");
        counted.get(3).complete();
        assertEquals(State.RUNNING, d.state(), "nothing left of the ended ones: the next moves on");
        counted.forEach(Ticket::complete);
        d.complete();
        assertReconciles(engine);
    }

    /**
     * A cookie shared by 100 clients (a botnet's), each sending requests: the session never has more than 8
     * executing; the other sessions' requests are served all along, none refused; the shared cookie's extra requests
     * wait or expire.
     */
    @Test
    void aHundredClientsSharingOneCookieGetEightAtOnceAndOthersAreServed() {
        QosEngine engine = engine(POLICY.replace("max-executing = 4", "max-executing = 16"), clock);
        String shared = admit(engine);
        List<String> honest = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            honest.add(admit(engine));
        }
        Random random = new Random(22);
        List<Ticket> bots = new ArrayList<>();
        List<Ticket> people = new ArrayList<>();
        int served = 0;
        for (int step = 0; step < 3_000; step++) {
            int op = random.nextInt(10);
            if (op < 6) {
                bots.add(enter(engine, TestRequest.get("/").cookie("QOSSESSION", shared)
                        .from("198.51.100." + random.nextInt(100))));
            } else if (op < 7) {
                Ticket t = enter(engine, TestRequest.get("/").cookie("QOSSESSION", honest.get(random.nextInt(20))));
                assertTrue(t.state() == State.RUNNING || t.state() == State.PARKED, t.toString());
                people.add(t);
            } else {
                clock.advance(Duration.ofMillis(20));
                engine.expireOverdue(clock.nanoTime());
                List<Ticket> running = new ArrayList<>();
                bots.stream().filter(t -> t.state() == State.RUNNING).forEach(running::add);
                people.stream().filter(t -> t.state() == State.RUNNING).forEach(running::add);
                if (!running.isEmpty()) {
                    Ticket t = running.get(random.nextInt(running.size()));
                    served += people.contains(t) ? 1 : 0;
                    t.complete();
                }
            }
            assertTrue(count(bots, State.RUNNING) <= 8, "step " + step + ": the shared cookie runs "
                    + count(bots, State.RUNNING));
            bots.removeIf(t -> t.state() != State.RUNNING && t.state() != State.PARKED);
        }
        assertTrue(served > 100, "the other sessions were served: " + served);
        for (Ticket t : people) {
            assertTrue(t.state() == State.RUNNING || t.state() == State.PARKED || t.state() == State.COMPLETED,
                    "no request of another session was refused or expired: " + t);
        }
        ClassStats basic = engine.snapshot().get("basic");
        assertTrue(basic.lined() > 0, "the shared cookie's extra requests wait in its line: " + basic);
        assertTrue(basic.expired() > 0, "and expire there: " + basic);
        assertReconciles(engine);
    }

    /** Beyond the class's max-queue in its line, a session's request is refused: 429 session-limit. */
    @Test
    void aSessionsLineIsBoundedByTheClasssMaxQueue() {
        QosEngine engine = engine(POLICY.replace("max-executing = 4", "max-executing = 8")
                + "class.basic.max-queue = 5\n", clock);
        String session = admit(engine);
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            tickets.add(enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)));
        }
        assertEquals(8, count(tickets, State.RUNNING));
        assertEquals(5, count(tickets, State.PARKED));
        Ticket more = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertEquals(State.REJECTED, more.state());
        assertEquals(Rejection.Reason.SESSION_LIMIT, more.rejection().reason());
        assertEquals(429, more.rejection().status());
        assertNull(more.setCookieHeader());
        assertEquals(1, engine.snapshot().get("basic").sessionLimited());
        assertReconciles(engine);
        tickets.get(0).complete();
        assertEquals(State.PARKED, enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)).state(),
                "one moved on: room in the line again");
        assertReconciles(engine);
    }

    /** A reload that raises max-per-session moves the sessions' lines on at once. */
    @Test
    void aReloadKeepsTheLineWorking() {
        QosEngine engine = engine(POLICY.replace("max-executing = 4", "max-executing = 10"), clock);
        String session = admit(engine);
        List<Ticket> tickets = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            tickets.add(enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)));
        }
        assertEquals(3, engine.snapshot().get("basic").lined());
        engine.reload(ClassEscalationTest.parse(POLICY.replace("max-executing = 4", "max-executing = 10")
                + "admission.max-per-session = 10\n"));
        assertEquals(10, count(tickets, State.RUNNING), "two moved on and started");
        assertEquals(1, engine.snapshot().get("basic").lined());
        assertReconciles(engine);
        tickets.get(0).complete();
        assertEquals(11 - 1, count(tickets, State.RUNNING));
        assertEquals(0, engine.snapshot().get("basic").lined());
        tickets.forEach(Ticket::complete);
        assertReconciles(engine);
    }

    /**
     * Priority at the door: premium's new session, refused by its own session rate or queue trigger, is admitted on
     * basic's session token while basic's steps would admit one; refused only once basic's refuse too.
     */
    @Test
    void aPremiumSessionIsAdmittedWhileBasicAdmitsAndRefusedOnlyWhenBasicRefusesToo() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("premium").withSessionRate(1).withSessionBurst(1),
                ClassPolicy.named("basic").withSessionRate(1).withSessionBurst(2)).build(), clock);
        List<Ticket> premium = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Ticket t = engine.enter(request("premium"), clock.nanoTime());
            assertNotNull(t.setCookieHeader(), "premium " + i + " admitted: its own token, then basic's two");
            assertTrue(t.state() != State.REJECTED);
            premium.add(t);
        }
        Ticket refused = engine.enter(request("premium"), clock.nanoTime());
        assertEquals(State.REJECTED, refused.state(), "basic has no token left either");
        assertEquals(Rejection.Reason.SESSION_RATE, refused.rejection().reason());
        Ticket newBasic = engine.enter(request("basic"), clock.nanoTime());
        assertEquals(State.REJECTED, newBasic.state());
        ClassStats p = engine.snapshot().get("premium");
        ClassStats b = engine.snapshot().get("basic");
        assertEquals(3, p.sessionsAdmitted());
        assertEquals(1, p.sessionsRefusedRate(), "only the refusal is counted, not the steps that lent");
        assertEquals(0, b.sessionsAdmitted());
        assertEquals(1, b.sessionsRefusedRate());
        premium.forEach(Ticket::complete);

        // the queue trigger: premium's fires at one queued request, basic's at two
        QosEngine triggers = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("premium").withSessionRate(0).withTotalQueuedTrigger(1),
                ClassPolicy.named("basic").withTotalQueuedTrigger(2)).build(), clock);
        Ticket running = triggers.enter(request("basic"), clock.nanoTime());
        assertEquals(State.RUNNING, running.state());
        Ticket waiting = triggers.enter(request("premium"), clock.nanoTime());
        assertEquals(State.PARKED, waiting.state());
        Ticket lent = triggers.enter(request("premium"), clock.nanoTime());
        assertEquals(State.PARKED, lent.state(), "premium's trigger fires, basic's does not: admitted");
        Ticket third = triggers.enter(request("premium"), clock.nanoTime());
        assertEquals(State.REJECTED, third.state(), "two queued: basic's trigger fires too");
        assertEquals(Rejection.Reason.SESSION_QUEUED, third.rejection().reason());
        assertEquals(2, triggers.snapshot().get("premium").sessionsAdmitted());
        assertEquals(1, triggers.snapshot().get("premium").sessionsRefusedQueued());
        running.complete();
        waiting.complete();
        lent.complete();
        assertReconciles(triggers);
    }

    /**
     * Priority at the door with automatic admission: premium's queue guard (250 ms target) refuses its new sessions
     * from 6 queued requests (6 x 100 ms / 2 permits), basic's (1 s) only from 21; in between premium's new sessions
     * are admitted on basic's admission.
     */
    @Test
    void aPremiumSessionItsQueueGuardRefusesIsAdmittedWhileBasicsGuardWouldAdmit() {
        QosEngine e = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 2,
                ClassPolicy.named("premium").withReserve(0).withDelayTarget(Duration.ofMillis(250)),
                ClassPolicy.named("basic").withDelayTarget(Duration.ofSeconds(1)))
                .control(dev.servletqos.policy.ControlPolicy.DEFAULTS.withAdmission(
                        dev.servletqos.policy.ControlPolicy.Admission.AUTO)).build(), clock);
        Ticket first = e.enter(request("basic"), clock.nanoTime());
        clock.advance(Duration.ofMillis(100));
        first.complete(); // the engine knows the service time: 100 ms
        List<Ticket> tickets = new ArrayList<>();
        tickets.add(e.enter(request("basic"), clock.nanoTime()));
        tickets.add(e.enter(request("basic"), clock.nanoTime()));
        assertEquals(2, count(tickets, State.RUNNING));
        Ticket refused = null;
        while (refused == null && tickets.size() < 100) {
            Ticket t = e.enter(request("premium"), clock.nanoTime());
            if (t.state() == State.REJECTED) {
                refused = t;
            } else {
                assertNotNull(t.setCookieHeader());
                tickets.add(t);
            }
        }
        assertEquals(21, e.snapshot().get("premium").queued(),
                "admitted past its own guard's 6, up to basic's: 21 x 100 ms / 2 > 1 s");
        assertEquals(Rejection.Reason.SESSION_QUEUED, refused.rejection().reason());
        assertEquals(21, e.snapshot().get("premium").sessionsAdmitted());
        assertEquals(1, e.snapshot().get("premium").sessionsRefusedQueued());
        assertEquals(State.REJECTED, e.enter(request("basic"), clock.nanoTime()).state(), "basic refuses too");
        while (tickets.stream().anyMatch(t -> t.state() == State.RUNNING)) {
            tickets.stream().filter(t -> t.state() == State.RUNNING).forEach(Ticket::complete);
        }
        assertReconciles(e);
    }
}

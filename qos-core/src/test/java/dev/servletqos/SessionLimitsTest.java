package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.Ticket.State;
import dev.servletqos.jmx.ClassStatistics;
import dev.servletqos.metrics.QosMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, findings 2 and 3: an admission cookie is checked for expiry on every request, also while this node has
 * it in its session table; one session (a cookie shared by many clients) and one client address cannot fill the
 * queues. The policies use the defaults of {@code admission.max-per-session} (8) and
 * {@code admission.max-queued-per-address} (100).
 */
class SessionLimitsTest {

    private static final String POLICY = """
            classes = basic
            max-executing = 1
            tier-cookie.secret = limits-test-secret-0123456789
            """;

    private final FakeClock clock = new FakeClock();

    private Ticket enter(QosEngine engine, TestRequest r) {
        return engine.enter(r, clock.nanoTime());
    }

    private static void assertReconciles(QosEngine engine) {
        for (ClassStats c : engine.snapshot().classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }

    @Test
    void anExpiredAdmissionCookieInTheSessionTableIsANewSession() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY), clock);
        Ticket first = enter(engine, TestRequest.get("/"));
        String session = cookieValue(first.setCookieHeader());
        first.complete();
        Ticket cached = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertNull(cached.setCookieHeader(), "a known, fresh session: no new cookie");
        cached.complete();

        // a client that keeps presenting its first cookie (ignoring the renewals) keeps it in the table
        for (int i = 0; i < 2; i++) {
            clock.advance(Duration.ofMinutes(10));
            enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)).complete();
        }
        clock.advance(Duration.ofMinutes(10).plusSeconds(1)); // past session-cookie.max-age = 30m
        Ticket late = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        late.complete();
        assertNotNull(late.setCookieHeader());
        assertEquals(2, engine.snapshot().get("basic").sessionsAdmitted(),
                "the expired cookie is not renewed: its holder is admitted anew, as any new session");
        assertEquals(1, engine.snapshot().sessions().sessionCookies(Status.EXPIRED));
    }

    /**
     * A cookie is renewed once, for one client: the others presenting the same cookie (a cookie shared by a botnet)
     * get no renewal, so their copies run out at the cookie's max age and they are new sessions again.
     */
    @Test
    void aCookieIsRenewedForOneClientNotForEveryoneWhoPresentsIt() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY.replace("max-executing = 1",
                "max-executing = 4")), clock);
        Ticket first = enter(engine, TestRequest.get("/"));
        String session = cookieValue(first.setCookieHeader());
        first.complete();
        clock.advance(Duration.ofMinutes(16)); // past half of session-cookie.max-age = 30m

        Ticket renewing = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session).from("198.51.100.1"));
        assertNotNull(renewing.setCookieHeader(), "the first request in the cookie's second half renews it");
        String renewed = cookieValue(renewing.setCookieHeader());
        Ticket meanwhile = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session).from("198.51.100.2"));
        assertEquals(State.RUNNING, meanwhile.state());
        assertNull(meanwhile.setCookieHeader(), "a second client with the same cookie: the renewal is on its way");
        meanwhile.complete();
        renewing.complete();
        for (int i = 3; i < 10; i++) {
            Ticket copy = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session).from("198.51.100." + i));
            assertEquals(State.RUNNING, copy.state(), "the cookie is still valid");
            assertNull(copy.setCookieHeader(), "copy " + i + " of a renewed cookie is not renewed again");
            copy.complete();
        }
        Ticket holder = enter(engine, TestRequest.get("/").cookie("QOSSESSION", renewed).from("198.51.100.1"));
        assertNull(holder.setCookieHeader(), "the renewed cookie is fresh");
        holder.complete();

        clock.advance(Duration.ofMinutes(14).plusSeconds(1)); // the first cookie's 30 minutes are over
        Ticket late = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session).from("198.51.100.2"));
        assertNotNull(late.setCookieHeader(), "an expired cookie: a new session's admission cookie");
        late.complete();
        assertEquals(2, engine.snapshot().get("basic").sessionsAdmitted(),
                "the copies of the old cookie ran out: their holder was admitted anew, as a new session");
        Ticket kept = enter(engine, TestRequest.get("/").cookie("QOSSESSION", renewed).from("198.51.100.1"));
        assertEquals(State.RUNNING, kept.state());
        kept.complete();
        assertEquals(2, engine.snapshot().get("basic").sessionsAdmitted(),
                "the renewed cookie's holder stays admitted");
    }

    /**
     * A renewal that goes with a request refused after waiting never reaches the client, so the session's next
     * request presenting the cookie gets it instead: an admitted session under load does not lose its admission.
     */
    @Test
    void aRenewalOnARequestThatExpiredGoesToTheNextRequest() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY), clock);
        Ticket first = enter(engine, TestRequest.get("/"));
        String session = cookieValue(first.setCookieHeader());
        first.complete();
        Ticket blocker = enter(engine, TestRequest.get("/").from("192.0.2.1"));
        assertEquals(State.RUNNING, blocker.state());
        clock.advance(Duration.ofMinutes(16));

        Ticket waits = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertEquals(State.PARKED, waits.state());
        assertNotNull(waits.setCookieHeader(), "the renewal goes with the request, if it is served");
        clock.advance(Duration.ofSeconds(11)); // past max-wait
        assertEquals(1, engine.expireOverdue(clock.nanoTime()));
        assertEquals(State.EXPIRED, waits.state());

        Ticket next = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertEquals(State.PARKED, next.state());
        assertNotNull(next.setCookieHeader(), "the expired request's renewal was never sent: renewed again");
        Ticket other = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertNull(other.setCookieHeader(), "but once at a time");
        assertTrue(other.cancel());
        blocker.complete();
        assertEquals(State.RUNNING, next.state(), "granted the permit");
        next.complete();
        Ticket after = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertNull(after.setCookieHeader(), "served: renewed once");
        after.complete();
        assertEquals(2, engine.snapshot().get("basic").sessionsAdmitted(),
                "the blocker's session and this one, never admitted anew");
        assertReconciles(engine);
    }

    /**
     * Issue 22 changed this: a session's ninth request in flight waited for a 429 (session-limit); it now waits in the
     * session's own line, and moves on to the class's queue as one of the session's eight ends.
     */
    @Test
    void oneSessionHasAtMostEightRequestsExecutingAndWaitingTheRestWaitInItsLine() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY), clock);
        Ticket first = enter(engine, TestRequest.get("/").from("203.0.113.1"));
        String session = cookieValue(first.setCookieHeader());
        // the session's first request holds the one permit; seven more of it wait
        List<Ticket> shared = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            // from as many addresses as a botnet sharing the cookie has
            shared.add(enter(engine, TestRequest.get("/").cookie("QOSSESSION", session).from("198.51.100." + i)));
            assertEquals(State.PARKED, shared.get(i).state());
        }
        Ticket ninth = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session).from("198.51.100.99"));
        assertEquals(State.PARKED, ninth.state(), "the session has 8 in the engine: the ninth waits in its line");
        assertNull(ninth.rejection());
        assertEquals(7, engine.snapshot().get("basic").queued(), "not in the class's queue");
        assertEquals(1, engine.snapshot().get("basic").lined());

        Ticket other = enter(engine, TestRequest.get("/").from("198.51.100.99"));
        assertEquals(State.PARKED, other.state(), "other sessions still wait");

        assertTrue(shared.get(0).cancel());
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(0, basic.lined(), "a request that ended makes room: the ninth moved on");
        assertEquals(8, basic.queued());
        assertEquals(0, basic.sessionLimited());
        assertEquals(0, basic.rejected());
        assertEquals(0, ClassStatistics.of(basic).getSessionLimited(), "JMX shows it");
        assertReconciles(engine);

        first.complete(); // the permit goes to the oldest waiting request
        assertEquals(State.RUNNING, shared.get(1).state());
        clock.advance(Duration.ofSeconds(11)); // past max-wait: every other waiting request expires
        engine.expireOverdue(clock.nanoTime());
        assertEquals(State.EXPIRED, ninth.state());
        assertEquals(State.EXPIRED, other.state());
        shared.forEach(Ticket::complete);
        Ticket afterwards = enter(engine, TestRequest.get("/").cookie("QOSSESSION", session));
        assertEquals(State.RUNNING, afterwards.state());
        for (int i = 0; i < 7; i++) {
            assertEquals(State.PARKED, enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)).state(),
                    "expired and cancelled requests left the session's count");
        }
        assertEquals(0, engine.snapshot().get("basic").lined());
        assertEquals(State.PARKED, enter(engine, TestRequest.get("/").cookie("QOSSESSION", session)).state());
        assertEquals(1, engine.snapshot().get("basic").lined());
        assertReconciles(engine);
    }

    /**
     * Issue 22 changed this: with permits free, an HTTP/2 page's 15 parallel requests all ran at once; now 8 run (a
     * cookie shared by many clients gets no more of the server at once) and the other 7 wait in the session's line,
     * refused none, and all complete.
     */
    @Test
    void aSessionIsNotRefusedWhilePermitsAreFree() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY.replace("max-executing = 1",
                "max-executing = 20")), clock);
        Ticket first = enter(engine, TestRequest.get("/"));
        String session = cookieValue(first.setCookieHeader());
        List<Ticket> page = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            page.add(enter(engine, TestRequest.get("/img/" + i).cookie("QOSSESSION", session)));
            assertEquals(i < 7 ? State.RUNNING : State.PARKED, page.get(i).state(),
                    "an HTTP/2 page's parallel requests: 8 with the first run, the rest wait in the session's line");
        }
        first.complete();
        page.forEach(Ticket::complete); // each completion moves the next of the line on to a free permit
        for (Ticket t : page) {
            assertEquals(State.COMPLETED, t.state());
        }
        assertEquals(0, engine.snapshot().get("basic").sessionLimited());
        assertEquals(0, engine.snapshot().get("basic").rejected());
        assertReconciles(engine);
    }

    /**
     * Issue 22: {@code admission.max-queued-per-address} binds only while the class's queue is scarce (half full, or
     * the class rations new sessions) and other addresses wait too; then each address gets its share of the queue,
     * {@code max(100, max-queue / addresses waiting)}. One address alone (a NAT) may fill the queue.
     */
    @Test
    void anAddressIsHeldToItsShareOfTheQueueOnlyWhileTheQueueIsScarce() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY), clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine).bindTo(registry);
        Ticket visit = enter(engine, TestRequest.get("/").from("203.0.113.7"));
        String session = cookieValue(visit.setCookieHeader());
        visit.complete();
        Ticket blocker = enter(engine, TestRequest.get("/").from("192.0.2.1"));
        assertEquals(State.RUNNING, blocker.state());
        List<Ticket> waiting = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            waiting.add(enter(engine, TestRequest.get("/").from("203.0.113.7")));
            assertEquals(State.PARKED, waiting.get(i).state(), "one address alone, request " + i);
        }
        waiting.add(enter(engine, TestRequest.get("/").from("203.0.113.8")));
        assertEquals(State.PARKED, waiting.get(300).state(), "another address");
        for (int i = 0; i < 200; i++) {
            Ticket t = enter(engine, TestRequest.get("/").from("203.0.113.7"));
            assertEquals(State.PARKED, t.state(), "the queue (1000) is not half full: no share binds, " + i);
            waiting.add(t);
        }
        // 501 waiting: the queue is scarce, two addresses wait, the first has its share (1000 / 2)
        Ticket more = enter(engine, TestRequest.get("/").from("203.0.113.7"));
        assertEquals(State.REJECTED, more.state());
        assertEquals(Rejection.Reason.ADDRESS_LIMIT, more.rejection().reason());
        assertEquals(429, more.rejection().status());
        assertNull(more.setCookieHeader());
        Ticket other = enter(engine, TestRequest.get("/").from("203.0.113.8"));
        assertEquals(State.PARKED, other.state(), "the other address is below its share");
        waiting.add(other);

        Ticket admitted = enter(engine, TestRequest.get("/").from("203.0.113.7").cookie("QOSSESSION", session));
        assertEquals(State.PARKED, admitted.state(), "an admitted session's request is never held by its address");
        waiting.add(admitted);

        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(1, basic.addressLimited());
        assertEquals(1, basic.rejected());
        assertEquals(0, basic.sessionsRefusedQueued() + basic.sessionsRefusedRate());
        assertReconciles(engine);
        assertEquals(1, registry.get("qos.rejections").tags("qos.class", "basic", "reason", "address-limit")
                .functionCounter().count());
        assertEquals(1, ClassStatistics.of(basic).getAddressLimited(), "JMX shows it too");
        waiting.forEach(Ticket::cancel);
        blocker.complete();
        assertReconciles(engine);
    }
}

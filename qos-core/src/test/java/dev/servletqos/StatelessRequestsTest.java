package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: a request without an admission cookie that does not ask for HTML (an API caller without a cookie jar, a
 * probe) is stateless: admitted by request while its class does not ration new sessions, with no session, no
 * session token and no cookie; shed while the class rations, before any admitted session's request is refused.
 */
class StatelessRequestsTest {

    private static final String POLICY = """
            classes = premium, basic
            default-class = basic
            max-executing = 4
            tier-cookie.secret = stateless-test-secret-0123456789
            rule.1.type = header
            rule.1.header = X-Api-Key
            rule.1.value = partner-key
            rule.1.class = premium
            rule.1.trusted = true
            """;

    private final FakeClock clock = new FakeClock();

    @Test
    void anIdleServerAnswersAnApiCallerAtAHundredRequestsASecond() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY + "class.basic.session-rate = 20\n"),
                clock);
        long table = engine.snapshot().sessions().tableSize();
        for (int i = 0; i < 1000; i++) { // 100 a second for 10 s, from one address
            Ticket t = engine.enter(TestRequest.api("/api/items").from("10.1.2.3"), clock.nanoTime());
            assertEquals(State.RUNNING, t.state(), "request " + i);
            assertNull(t.setCookieHeader(), "no admission cookie for a stateless request");
            t.complete();
            clock.advance(Duration.ofMillis(10));
        }
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(0, basic.rejected());
        assertEquals(1000, basic.completed());
        assertEquals(0, basic.sessionsAdmitted(), "no session");
        assertEquals(table, engine.snapshot().sessions().tableSize(), "the session table did not grow");
        assertEquals(20, engine.scheduler().settings().get(1).sessionRate(), "the class's rate stands");

        // a browser's first page is still a new session, and its class's tokens were all left for it
        Ticket page = engine.enter(TestRequest.get("/").from("10.1.2.3"), clock.nanoTime());
        assertNotNull(page.setCookieHeader());
        page.complete();
        assertEquals(1, engine.snapshot().get("basic").sessionsAdmitted());
        // a page is whatever names text/html in its Accept header, in any case; anything else, or none, is stateless
        assertTrue(opensASession(engine, "text/html"));
        assertTrue(opensASession(engine, "*/*, TEXT/HTML;q=0.9"));
        assertFalse(opensASession(engine, "*/*"));
        assertFalse(opensASession(engine, "application/json"));
        assertFalse(opensASession(engine, null));
    }

    /** Whether a cookie-less GET with this Accept header (none for null) is answered with an admission cookie. */
    private boolean opensASession(QosEngine engine, String accept) {
        TestRequest r = TestRequest.api("/").from("10.1.2.4");
        if (accept != null) {
            r.header("Accept", accept);
        }
        Ticket t = engine.enter(r, clock.nanoTime());
        assertEquals(State.RUNNING, t.state());
        t.complete();
        clock.advance(Duration.ofSeconds(1)); // a token of the class's session rate back
        return t.setCookieHeader() != null;
    }

    /** The same with the minimal policy (self-tuning capacity and admission), each call taking 20 ms. */
    @Test
    void withTheMinimalPolicyToo() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse("""
                classes = premium, basic
                tier-cookie.secret = stateless-test-secret-0123456789
                """), clock);
        Ticket previous = null;
        for (int i = 0; i < 1000; i++) {
            Ticket t = engine.enter(TestRequest.api("/api/items").from("10.1.2.3"), clock.nanoTime());
            assertEquals(State.RUNNING, t.state(), "request " + i);
            assertNull(t.setCookieHeader());
            clock.advance(Duration.ofMillis(10));
            if (previous != null) {
                previous.complete(); // two at a time: each runs 20 ms
            }
            previous = t;
        }
        previous.complete();
        assertEquals(0, engine.snapshot().get("basic").rejected());
        assertEquals(0, engine.snapshot().sessions().tableSize());
    }

    /**
     * The realism suite's idle API caller, on the fake clock with the control loop running: sessions at half the
     * back end's capacity for 3 s (the admission law measures them and sets basic's session rate), 5 s quiet, then 100
     * API calls a second for 5 s, each answered from a cache. The calls' short service time raised the law's rate,
     * and with it the bucket's depth, about twentyfold in one period: the tokens held stayed below half the new
     * depth, so basic looked as if it rationed and refused 47 of the calls (issue 22's bar: none).
     */
    @Test
    void anIdleServerAnswersAnApiCallerAfterTheAdmissionLawHasMeasuredSessions() {
        BackEndSim sim = new BackEndSim("""
                classes = premium, basic
                default-class = basic
                class.premium.delay-target = 250ms
                class.basic.delay-target = 1s
                tier-cookie.secret = stateless-test-secret-0123456789
                rule.1.type = tier-cookie
                """);
        sim.sessions("127.0.0.1", 80, Duration.ofSeconds(3)); // 12.5 a second
        sim.run(Duration.ofSeconds(5));
        assertTrue(sim.engine.snapshot().get("basic").sessionsAdmitted() >= 25, "the law had sessions to measure");
        int refused = 0;
        for (int i = 0; i < 500; i++) {
            Ticket t = sim.send(TestRequest.api("/api/quote").from("127.0.0.1"), false, () -> { });
            refused += t.state() == State.REJECTED ? 1 : 0;
            assertNull(t.setCookieHeader());
            sim.run(Duration.ofMillis(10));
        }
        assertEquals(0, refused, "API calls refused on an idle server");
        assertEquals(0, sim.engine.snapshot().get("basic").rejected());
    }

    @Test
    void underOverloadStatelessRequestsAreShedWhileAdmittedSessionsRun() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY + "class.basic.session-rate = 2\n"
                + "class.basic.session-burst = 2\n"), clock);
        Ticket first = engine.enter(TestRequest.get("/").from("192.0.2.1"), clock.nanoTime());
        String session = Engines.cookieValue(first.setCookieHeader());
        first.complete();
        Ticket second = engine.enter(TestRequest.get("/").from("192.0.2.2"), clock.nanoTime());
        second.complete();
        Ticket refused = engine.enter(TestRequest.get("/").from("192.0.2.3"), clock.nanoTime());
        assertEquals(Rejection.Reason.SESSION_RATE, refused.rejection().reason(), "basic rations its sessions");

        for (int i = 0; i < 50; i++) {
            Ticket api = engine.enter(TestRequest.api("/api/items").from("10.1.2.3"), clock.nanoTime());
            assertEquals(State.REJECTED, api.state(), "a stateless request while basic rations, " + i);
            assertEquals(Rejection.Reason.SESSION_QUEUED, api.rejection().reason());
            assertEquals(503, api.rejection().status());
            long retryAfter = api.rejection().retryAfterSeconds();
            assertTrue(retryAfter >= 8 && retryAfter <= 13, "admission.retry-after jittered: " + retryAfter);
            assertNull(api.setCookieHeader());

            Ticket admitted = engine.enter(TestRequest.api("/api/items").from("10.1.2.3")
                    .cookie("QOSSESSION", session), clock.nanoTime());
            assertEquals(State.RUNNING, admitted.state(), "an admitted session's request runs");
            admitted.complete();

            Ticket partner = engine.enter(TestRequest.api("/api/items").from("10.1.2.3")
                    .header("X-Api-Key", "partner-key"), clock.nanoTime());
            assertEquals(State.RUNNING, partner.state(), "a trusted API key: premium, which does not ration");
            assertEquals("premium", partner.serviceClass());
            assertNull(partner.setCookieHeader());
            partner.complete();
        }
        assertEquals(0, engine.snapshot().get("premium").sessionsAdmitted(), "stateless: no session");
        for (ClassStats c : engine.snapshot().classes()) {
            assertTrue(c.reconciles(), c.toString());
        }

        // a second after the last refusal, with its tokens back, basic admits again: so do stateless requests
        clock.advance(Duration.ofSeconds(2));
        Ticket api = engine.enter(TestRequest.api("/api/items").from("10.1.2.3"), clock.nanoTime());
        assertEquals(State.RUNNING, api.state());
        api.complete();
    }
}

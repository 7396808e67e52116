package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import dev.servletqos.policy.Rule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Session-based admission: decided once per session, refused sessions get a friendly 503. */
class AdmissionTest {

    private final FakeClock clock = new FakeClock();

    private static TestRequest withSession(TestRequest r, String sessionCookie) {
        return r.cookie("QOSSESSION", sessionCookie);
    }

    @Test
    void whenPremiumQueuesUpNewBasicSessionsAreRefusedButAdmittedOnesGoOn() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("premium"), ClassPolicy.named("basic")).higherQueuedTrigger(2).build(), clock);
        Ticket first = engine.enter(request("basic"), clock.nanoTime());
        assertEquals(State.RUNNING, first.state());
        String session = cookieValue(first.setCookieHeader());
        first.complete();

        List<Ticket> premium = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            premium.add(engine.enter(request("premium"), clock.nanoTime()));
        }
        assertEquals(2, engine.snapshot().get("premium").queued(), "trigger k = 2 premium queued is reached");

        Ticket newBasic = engine.enter(request("basic"), clock.nanoTime());
        assertEquals(State.REJECTED, newBasic.state());
        assertEquals(503, newBasic.rejection().status());
        assertEquals(Rejection.Reason.SESSION_QUEUED, newBasic.rejection().reason());
        assertNull(newBasic.setCookieHeader(), "a refused session gets no admission cookie");

        Ticket admittedBasic = engine.enter(withSession(request("basic"), session), clock.nanoTime());
        assertEquals(State.PARKED, admittedBasic.state(), "an admitted session is never refused by admission");
        assertEquals("basic", admittedBasic.serviceClass());

        Ticket newPremium = engine.enter(request("premium"), clock.nanoTime());
        assertEquals(State.PARKED, newPremium.state(), "the trigger refuses lower classes only");

        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(1, basic.sessionsAdmitted());
        assertEquals(1, basic.sessionsRefusedQueued());
        premium.forEach(Ticket::complete);
        newPremium.complete();
        admittedBasic.complete();
        assertEquals(0, engine.snapshot().executing());
    }

    @Test
    void totalQueuedTriggerRefusesNewSessionsOfLowerClassesOnly() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("premium"), ClassPolicy.named("basic")).totalQueuedTrigger(3).build(), clock);
        List<Ticket> t = new ArrayList<>();
        t.add(engine.enter(request("basic"), clock.nanoTime()));
        for (int i = 0; i < 3; i++) {
            t.add(engine.enter(request("basic"), clock.nanoTime()));
        }
        assertEquals(3, engine.snapshot().queued());
        assertEquals(State.REJECTED, engine.enter(request("basic"), clock.nanoTime()).state());
        Ticket p = engine.enter(request("premium"), clock.nanoTime());
        assertEquals(State.PARKED, p.state(), "j does not apply to the highest class");
        t.add(p);
        t.forEach(Ticket::complete);
    }

    @Test
    void theSessionRateAdmitsABurstThenRefillsWithTime() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 100,
                ClassPolicy.named("basic").withSessionRate(2).withSessionBurst(2)).build(), clock);
        Ticket a = engine.enter(request("basic"), clock.nanoTime());
        Ticket b = engine.enter(request("basic"), clock.nanoTime());
        Ticket c = engine.enter(request("basic"), clock.nanoTime());
        assertEquals(State.RUNNING, a.state());
        assertEquals(State.RUNNING, b.state());
        assertEquals(State.REJECTED, c.state());
        assertEquals(Rejection.Reason.SESSION_RATE, c.rejection().reason());
        Ticket known = engine.enter(withSession(request("basic"), cookieValue(a.setCookieHeader())),
                clock.nanoTime());
        assertEquals(State.RUNNING, known.state(), "the rate applies to new sessions only");
        clock.advance(Duration.ofMillis(500));
        assertEquals(State.RUNNING, engine.enter(request("basic"), clock.nanoTime()).state());
        assertEquals(State.REJECTED, engine.enter(request("basic"), clock.nanoTime()).state());
        engine.setSessionRate("basic", 0, 1);
        assertEquals(State.RUNNING, engine.enter(request("basic"), clock.nanoTime()).state(), "0 = no limit");
        assertEquals(2, engine.snapshot().get("basic").sessionsRefusedRate());
    }

    @Test
    void anotherNodeWithTheSameSecretHonoursTheAdmission() {
        QosPolicy p = policy(Scheduling.STRICT_PRIORITY, 1, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).higherQueuedTrigger(1).build();
        QosEngine nodeA = QosEngine.create(p, clock);
        QosEngine nodeB = QosEngine.create(p, clock);
        Ticket first = nodeA.enter(request("basic"), clock.nanoTime());
        String session = cookieValue(first.setCookieHeader());
        first.complete();

        Ticket blocker = nodeB.enter(request("premium"), clock.nanoTime());
        Ticket queuedPremium = nodeB.enter(request("premium"), clock.nanoTime());
        assertEquals(State.REJECTED, nodeB.enter(request("basic"), clock.nanoTime()).state());
        // No X-Tier header: the class comes from the signed cookie, not from the rules.
        Ticket onB = nodeB.enter(withSession(TestRequest.get("/"), session), clock.nanoTime());
        assertEquals(State.PARKED, onB.state());
        assertEquals("basic", onB.serviceClass());
        assertEquals(1, nodeB.snapshot().sessions().sessionCookies(Status.VALID));
        blocker.complete();
        queuedPremium.complete();
        onB.complete();
    }

    @Test
    void aForgedOrExpiredAdmissionCookieIsANewSession() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4,
                ClassPolicy.named("premium"), ClassPolicy.named("basic")).build(), clock);
        Ticket first = engine.enter(request("basic"), clock.nanoTime());
        String session = cookieValue(first.setCookieHeader());
        first.complete();
        String forged = session.replace(".basic.", ".premium.");
        Ticket t = engine.enter(withSession(TestRequest.get("/"), forged), clock.nanoTime());
        assertEquals("basic", t.serviceClass(), "a forged cookie does not make anyone premium");
        assertNotNull(t.setCookieHeader(), "it is admitted as a new session of the default class");
        t.complete();
        assertEquals(1, engine.snapshot().sessions().sessionCookies(Status.FORGED));

        QosEngine other = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4,
                ClassPolicy.named("premium"), ClassPolicy.named("basic")).build(), clock);
        clock.advance(Duration.ofMinutes(31));
        Ticket late = other.enter(withSession(TestRequest.get("/"), session), clock.nanoTime());
        late.complete();
        assertEquals(1, other.snapshot().sessions().sessionCookies(Status.EXPIRED));
        assertEquals(1, other.snapshot().get("basic").sessionsAdmitted(), "admitted anew, once");
    }

    @Test
    void anActiveSessionsCookieIsRenewedBeforeItRunsOut() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("basic"))
                .build(), clock);
        Ticket first = engine.enter(request("basic"), clock.nanoTime());
        String session = cookieValue(first.setCookieHeader());
        first.complete();
        clock.advance(Duration.ofMinutes(10));
        Ticket fresh = engine.enter(withSession(request("basic"), session), clock.nanoTime());
        assertNull(fresh.setCookieHeader(), "no renewal while fresh");
        fresh.complete();
        clock.advance(Duration.ofMinutes(10));
        Ticket later = engine.enter(withSession(request("basic"), session), clock.nanoTime());
        assertNotNull(later.setCookieHeader(), "renewed after half of its 30 minutes");
        assertTrue(later.setCookieHeader().contains("Max-Age=1800"));
        later.complete();
        assertEquals(1, engine.snapshot().get("basic").sessionsAdmitted(), "still one session");
    }

    @Test
    void aValidTierCookieMakesAReturningUserPremiumOnTheFirstRequest() {
        QosPolicy p = QosPolicy.builder().maxExecuting(4).secret(Engines.SECRET)
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic"))
                .addRule(Rule.tierCookie()).build();
        QosEngine engine = QosEngine.create(p, clock);
        String tier = cookieValue(engine.tierCookies().setCookieHeader("premium", "alice"));
        Ticket t = engine.enter(TestRequest.get("/").cookie("QOSTIER", tier), clock.nanoTime());
        assertEquals("premium", t.serviceClass());
        t.complete();

        String basicTier = cookieValue(engine.tierCookies().setCookieHeader("basic", "mallory"));
        String forgedPremium = basicTier.replace("v2.basic.", "v2.premium.");
        Ticket forged = engine.enter(TestRequest.get("/").cookie("QOSTIER", forgedPremium), clock.nanoTime());
        assertEquals("basic", forged.serviceClass());
        forged.complete();
        Ticket malformed = engine.enter(TestRequest.get("/").cookie("QOSTIER", "premium"), clock.nanoTime());
        assertEquals("basic", malformed.serviceClass());
        malformed.complete();
        clock.advance(Duration.ofDays(366));
        Ticket expired = engine.enter(TestRequest.get("/").cookie("QOSTIER", tier), clock.nanoTime());
        assertEquals("basic", expired.serviceClass());
        expired.complete();
        EngineSnapshot.Sessions s = engine.snapshot().sessions();
        assertEquals(1, s.tierCookies(Status.VALID));
        assertEquals(1, s.tierCookies(Status.FORGED));
        assertEquals(1, s.tierCookies(Status.MALFORMED));
        assertEquals(1, s.tierCookies(Status.EXPIRED));
    }

    @Test
    void aTierCookieIssuedUnderThePreviousSecretIsStillAcceptedDuringRotation() {
        QosPolicy old = QosPolicy.builder().secret("old-secret-0123456789abcdef")
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic"))
                .addRule(Rule.tierCookie()).build();
        String tier = cookieValue(QosEngine.create(old, clock).tierCookies().setCookieHeader("premium", "bob"));
        QosPolicy rotated = old.toBuilder().secret("new-secret-0123456789abcdef")
                .previousSecret("old-secret-0123456789abcdef").build();
        QosPolicy dropped = old.toBuilder().secret("new-secret-0123456789abcdef").build();
        Ticket t = QosEngine.create(rotated, clock).enter(TestRequest.get("/").cookie("QOSTIER", tier));
        assertEquals("premium", t.serviceClass());
        Ticket u = QosEngine.create(dropped, clock).enter(TestRequest.get("/").cookie("QOSTIER", tier));
        assertEquals("basic", u.serviceClass(), "once the old secret is dropped its cookies are forged");
    }

    @Test
    void refusalsSpeakHtmlOrJsonByAccept() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("basic").withSessionRate(1).withSessionBurst(1))
                .admission(a -> a.withRejectStatus(429).withRetryAfter(Duration.ofSeconds(7))).build(), clock);
        engine.enter(request("basic"), clock.nanoTime());
        Rejection r = engine.enter(request("basic"), clock.nanoTime()).rejection();
        assertEquals(429, r.status());
        assertTrue(r.retryAfterSeconds() >= 6 && r.retryAfterSeconds() <= 9, "7 s jittered: " + r.retryAfterSeconds());
        assertTrue(r.contentType("application/json").startsWith("application/json"));
        assertTrue(new String(r.body("application/json")).contains("\"retryAfterSeconds\":" + r.retryAfterSeconds()));
        assertTrue(r.contentType("text/html,application/xhtml+xml,*/*").startsWith("text/html"));
        assertTrue(new String(r.body(null)).contains("try again in " + r.retryAfterSeconds() + " seconds"));
    }
}

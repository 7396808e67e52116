package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.servletqos.Ticket.State;
import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The array in front of the session table (issue 24) changes nothing a user sees: sessions whose cookies fall into
 * the same slot each keep their own class, and a cookie forged to fall into an admitted session's slot is not that
 * session.
 */
class SessionTableFrontTest {

    private final FakeClock clock = new FakeClock();
    private final QosEngine engine = QosEngine.create(
            policy(Scheduling.STRICT_PRIORITY, 8, ClassPolicy.named("premium"), ClassPolicy.named("basic")).build(),
            clock);

    private String admit(String serviceClass) {
        Ticket t = engine.enter(request(serviceClass), clock.nanoTime());
        assertEquals(State.RUNNING, t.state());
        t.complete();
        return cookieValue(t.setCookieHeader());
    }

    /** The class a request carrying only this admission cookie is served as. */
    private String classOf(String cookie) {
        Ticket t = engine.enter(TestRequest.get("/").cookie("QOSSESSION", cookie), clock.nanoTime());
        assertEquals(State.RUNNING, t.state());
        t.complete();
        return t.serviceClass();
    }

    private long cookies(Status status) {
        return engine.snapshot().sessions().sessionCookies(status);
    }

    @Test
    void sessionsSharingASlotEachKeepTheirClass() {
        // admission cookies as another node behind the load balancer issued them, with the engine's secret
        SessionCookies otherNode = new SessionCookies("QOSSESSION",
                new Signer(Signer.secretBytes(Engines.SECRET), null), Duration.ofMinutes(30), clock);
        long until = clock.epochSecond() + 1800;
        Map<Integer, String> premiumBySlot = new HashMap<>();
        String premium = null;
        String basic = null;
        for (int i = 0; i < 4000 && basic == null; i++) {
            String p = otherNode.issue("premium", SessionCookies.newSessionId(), until);
            premiumBySlot.put(SessionTable.slot(p), p);
            String b = otherNode.issue("basic", SessionCookies.newSessionId(), until);
            if (premiumBySlot.containsKey(SessionTable.slot(b))) {
                premium = premiumBySlot.get(SessionTable.slot(b));
                basic = b;
            }
        }
        assertNotNull(basic, "no two cookies of 8000 in one of " + SessionTable.FRONT_SLOTS + " slots");
        for (int i = 0; i < 20; i++) {
            assertEquals("premium", classOf(premium));
            assertEquals("basic", classOf(basic));
        }
        assertEquals(2, cookies(Status.VALID), "each checked by signature once, then found in the table");
    }

    @Test
    void aCookieForgedIntoASessionsSlotIsNotThatSession() {
        String premium = admit("premium");
        assertEquals("premium", classOf(premium)); // in its slot now
        // the same signature (the last characters, which pick the slot) over another session id
        int idAt = premium.indexOf('.', premium.indexOf('.') + 1) + 1;
        char c = premium.charAt(idAt);
        String forged = premium.substring(0, idAt) + (c == 'A' ? 'B' : 'A') + premium.substring(idAt + 1);
        assertEquals(SessionTable.slot(premium), SessionTable.slot(forged));
        assertEquals("basic", classOf(forged), "a new session of the default class");
        assertEquals(1, cookies(Status.FORGED));
        assertEquals("premium", classOf(premium));
        assertEquals(0, cookies(Status.VALID));
    }
}

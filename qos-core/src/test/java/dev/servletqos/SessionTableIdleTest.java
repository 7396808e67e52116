package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.Ticket.State;
import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * {@code session-table.idle-timeout} as a user sees it, now that a session found in the table is read without telling
 * the table each time (issue 24: {@link SessionTable#lookup} records an access once in a sixteenth of the timeout): a
 * session in use stays in the table however long it is used, whether its requests come often or seldom within the
 * timeout; one idle for longer is forgotten, and its next request has its cookie checked by signature again.
 */
class SessionTableIdleTest {

    private final FakeClock clock = new FakeClock();
    private final QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 8, ClassPolicy.named("premium"),
            ClassPolicy.named("basic")).sessionTable(t -> t.withIdleTimeout(Duration.ofSeconds(10))).build(), clock);

    private void use(String cookie) {
        Ticket t = engine.enter(TestRequest.get("/").cookie("QOSSESSION", cookie), clock.nanoTime());
        assertEquals(State.RUNNING, t.state());
        assertEquals("basic", t.serviceClass());
        t.complete();
    }

    /** Admission cookies checked by signature so far: those of sessions the table did not know. */
    private long checkedBySignature() {
        return engine.snapshot().sessions().sessionCookies(Status.VALID);
    }

    @Test
    void aSessionInUseStaysInTheTableAndAnIdleOneIsForgotten() {
        Ticket first = engine.enter(request("basic"), clock.nanoTime());
        first.complete();
        String cookie = cookieValue(first.setCookieHeader());
        // 30 s of requests every 200 ms: many between two recorded accesses (every 625 ms)
        for (int i = 0; i < 150; i++) {
            clock.advance(Duration.ofMillis(200));
            use(cookie);
        }
        assertEquals(0, checkedBySignature(), "found in the table every time");
        // then requests 9 s apart, below the timeout (at most a sixteenth of it early)
        for (int i = 0; i < 4; i++) {
            clock.advance(Duration.ofSeconds(9));
            use(cookie);
        }
        assertEquals(0, checkedBySignature(), "found in the table every time");
        clock.advance(Duration.ofMillis(10_001));
        use(cookie);
        assertEquals(1, checkedBySignature(), "idle longer than the timeout: forgotten, its cookie checked again");
        clock.advance(Duration.ofSeconds(1));
        use(cookie);
        assertEquals(1, checkedBySignature(), "remembered again");
    }
}

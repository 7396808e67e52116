package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.jmx.ClassStatistics;
import dev.servletqos.metrics.QosMetrics;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, finding 3: a class's session rate is one bucket for all clients, so a flood of cookie-less requests
 * from one address that start at once took its tokens and new visitors from other addresses were refused.
 * {@code admission.max-new-sessions-per-address} (default 20 a second, depth 20) refuses that address's new
 * sessions before they take a token of the class's bucket.
 */
class NewSessionsPerAddressTest {

    /** The class's bucket: 50 new sessions a second, 50 deep; the per-address limit at its defaults. */
    private static final String POLICY = """
            classes = basic
            max-executing = 1000
            class.basic.session-rate = 50
            tier-cookie.secret = per-address-test-secret-0123456789
            """;

    private final FakeClock clock = new FakeClock();

    private Ticket enter(QosEngine engine, String address) {
        return engine.enter(TestRequest.get("/").from(address), clock.nanoTime());
    }

    /** Cookie-less requests from {@code address} now, each completed at once; returns how many were admitted. */
    private int flood(QosEngine engine, String address, int requests) {
        int admitted = 0;
        for (int i = 0; i < requests; i++) {
            Ticket t = enter(engine, address);
            if (t.state() == State.RUNNING) {
                admitted++;
                t.complete();
            } else {
                assertEquals(State.REJECTED, t.state());
                assertEquals(Rejection.Reason.SESSION_ADDRESS, t.rejection().reason(), "request " + i);
            }
        }
        return admitted;
    }

    @Test
    void aFloodFromOneAddressLeavesItsClassBucketToOtherVisitors() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY), clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine).bindTo(registry);

        assertEquals(20, flood(engine, "203.0.113.7", 500), "one address starts its bucket's 20 sessions");
        Ticket refused = enter(engine, "203.0.113.7");
        assertEquals(State.REJECTED, refused.state());
        assertEquals(503, refused.rejection().status(), "admission.reject-status, 503 by default");
        long retryAfter = refused.rejection().retryAfterSeconds();
        assertTrue(retryAfter >= 8 && retryAfter <= 13, "admission.retry-after 10s jittered: " + retryAfter);
        assertNull(refused.setCookieHeader(), "a refusal carries no admission cookie");

        // the class's bucket kept 30 of its 50 tokens for everyone else
        for (int i = 0; i < 30; i++) {
            Ticket visitor = enter(engine, "198.51.100." + i);
            assertEquals(State.RUNNING, visitor.state(), "new visitor " + i + " from another address");
            visitor.complete();
        }
        Ticket over = enter(engine, "198.51.100.200");
        assertEquals(Rejection.Reason.SESSION_RATE, over.rejection().reason(), "the class's own rate still holds");

        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(481, basic.sessionsRefusedAddress());
        assertEquals(1, basic.sessionsRefusedRate());
        assertEquals(50, basic.sessionsAdmitted());
        assertEquals(482, basic.rejected());
        assertTrue(basic.reconciles(), basic.toString());
        assertEquals(481, registry.get("qos.rejections").tags("qos.class", "basic", "reason", "session-address")
                .functionCounter().count());
        assertEquals(482, registry.get("qos.sessions").tags("qos.class", "basic", "outcome", "refused")
                .functionCounter().count());
        assertEquals(481, ClassStatistics.of(basic).getSessionsRefusedAddress(), "JMX shows it too");
    }

    @Test
    void anAddressBucketRefillsWithTimeUpToItsDepth() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY
                .replace("class.basic.session-rate = 50", "")), clock);
        assertEquals(20, flood(engine, "203.0.113.7", 40));
        clock.advance(Duration.ofMillis(49));
        assertEquals(0, flood(engine, "203.0.113.7", 5), "a token takes 50 ms at 20 a second");
        clock.advance(Duration.ofMillis(1));
        assertEquals(1, flood(engine, "203.0.113.7", 5));
        clock.advance(Duration.ofSeconds(10));
        assertEquals(20, flood(engine, "203.0.113.7", 100), "after a long pause: the depth, not more");
        // a session it started goes on: an admitted session's requests are not new sessions
        Ticket first = enter(engine, "192.0.2.1");
        String cookie = Engines.cookieValue(first.setCookieHeader());
        first.complete();
        assertEquals(19, flood(engine, "192.0.2.1", 30));
        for (int i = 0; i < 50; i++) {
            Ticket t = engine.enter(TestRequest.get("/").from("192.0.2.1").cookie("QOSSESSION", cookie),
                    clock.nanoTime());
            assertEquals(State.RUNNING, t.state());
            t.complete();
        }
    }

    /**
     * With {@code control.admission = auto} the per-address bucket comes before the queue guard and the rate the
     * admission law sets, as with the triggers.
     */
    @Test
    void withAutomaticAdmissionTheAddressIsAskedFirstToo() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY + "control.admission = auto\n"), clock);
        assertEquals(20, flood(engine, "203.0.113.7", 100));
        Ticket visitor = enter(engine, "198.51.100.1");
        assertEquals(State.RUNNING, visitor.state(), "another address is admitted");
        visitor.complete();
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(80, basic.sessionsRefusedAddress());
        assertEquals(0, basic.sessionsRefusedRate() + basic.sessionsRefusedQueued());
    }

    @Test
    void explicitDepthAndNoLimit() {
        QosEngine deep = QosEngine.create(ClassEscalationTest.parse(POLICY.replace("class.basic.session-rate = 50",
                "admission.max-new-sessions-per-address = 0.5\nadmission.new-sessions-per-address-burst = 3")), clock);
        assertEquals(3, flood(deep, "203.0.113.7", 10));
        clock.advance(Duration.ofMillis(1999));
        assertEquals(0, flood(deep, "203.0.113.7", 1));
        clock.advance(Duration.ofMillis(1));
        assertEquals(1, flood(deep, "203.0.113.7", 2));

        QosEngine off = QosEngine.create(ClassEscalationTest.parse(POLICY.replace("class.basic.session-rate = 50",
                "admission.max-new-sessions-per-address = 0")), clock);
        assertEquals(1000, flood(off, "203.0.113.7", 1000));
        assertEquals(0, off.snapshot().get("basic").sessionsRefusedAddress());
    }

    @Test
    void aBadValueFailsAtStartNamingTheKeyAndTheValue() {
        for (String bad : new String[] {"-1", "NaN", "2000000", "lots"}) {
            PolicyException e = assertThrows(PolicyException.class, () -> ClassEscalationTest.parse(POLICY
                    + "admission.max-new-sessions-per-address = " + bad + "\n"), bad);
            assertTrue(e.getMessage().contains("admission.max-new-sessions-per-address")
                    && e.getMessage().contains(bad), e.getMessage());
        }
        for (String bad : new String[] {"0", "-3", "1000001"}) {
            PolicyException e = assertThrows(PolicyException.class, () -> ClassEscalationTest.parse(POLICY
                    + "admission.new-sessions-per-address-burst = " + bad + "\n"), bad);
            assertTrue(e.getMessage().contains("admission.new-sessions-per-address-burst")
                    && e.getMessage().contains(bad), e.getMessage());
        }
        QosPolicy p = ClassEscalationTest.parse(POLICY + "admission.max-new-sessions-per-address = 2.5\n");
        assertEquals(2.5, p.maxNewSessionsPerAddress());
        assertEquals(3, p.newSessionsPerAddressBurst(), "the depth defaults to the rate, rounded up");
        assertEquals(p, p.toBuilder().build(), "toBuilder keeps both keys");
        assertEquals(20, ClassEscalationTest.parse(POLICY).newSessionsPerAddressBurst());
    }

    @Test
    void aReloadTakesTheNewLimit() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY), clock);
        assertEquals(20, flood(engine, "203.0.113.7", 30));
        engine.reload(ClassEscalationTest.parse(POLICY + "admission.max-new-sessions-per-address = 0\n"));
        assertEquals(30, flood(engine, "203.0.113.7", 30), "no limit: the class's 30 tokens left");
        clock.advance(Duration.ofSeconds(1)); // the class's bucket is full again
        engine.reload(ClassEscalationTest.parse(POLICY + "admission.max-new-sessions-per-address = 5\n"));
        assertEquals(5, flood(engine, "198.51.100.1", 30), "the new depth");
        clock.advance(Duration.ofMillis(200));
        assertEquals(1, flood(engine, "198.51.100.1", 30), "the new rate: a token in 200 ms");
        engine.reload(ClassEscalationTest.parse(POLICY + "admission.max-new-sessions-per-address = 1\n"
                + "admission.new-sessions-per-address-burst = 1\n"));
        assertEquals(0, flood(engine, "198.51.100.1", 3), "an address keeps its (empty) bucket across a reload");
    }

    /**
     * An attacker cycling through 10^5 addresses, each starting one session at the same instant, neither grows the
     * table beyond its {@value AddressSessions#SLOTS} slots nor pushes out the bucket of the address that flooded.
     */
    @Test
    void aHundredThousandAddressesKeepTheTableAtItsBoundAndTheFloodRefused() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(POLICY
                .replace("class.basic.session-rate = 50", "session-table.max-entries = 1000")), clock);
        assertEquals(20, flood(engine, "203.0.113.7", 100));
        for (int i = 0; i < 100_000; i++) {
            Ticket t = enter(engine, "10." + (i >> 16) + "." + ((i >> 8) & 255) + "." + (i & 255));
            assertEquals(State.RUNNING, t.state());
            t.complete();
        }
        assertEquals(0, flood(engine, "203.0.113.7", 10), "the flooding address is still refused");
        AddressSessions table = engine.scheduler().addressSessions();
        assertEquals(AddressSessions.SLOTS, table.size());
    }

    @Test
    void theTableKeepsAnEmptyBucketBeforeFullerOnes() {
        AddressSessions table = new AddressSessions(20, 20);
        long now = 0;
        for (int i = 0; i < 20; i++) {
            table.take("203.0.113.7", now);
        }
        assertTrue(!table.available("203.0.113.7", now));
        for (int i = 0; i < 1_000_000; i++) {
            table.take("a" + i, now);
        }
        assertTrue(!table.available("203.0.113.7", now), "still in the table, still empty");
        assertTrue(table.size() <= AddressSessions.SLOTS);
        assertTrue(table.available("203.0.113.7", now + 50_000_000L), "a token 50 ms later");
        assertTrue(table.evictedEarly() > 0, "a million addresses at one instant: some buckets went before refilling");

        // addresses that come one by one, each after the last one's bucket refilled (in 50 ms at 20 a second), push out
        // only full buckets, which are the same as none
        AddressSessions spaced = new AddressSessions(20, 20);
        for (int i = 0; i < 100_000; i++) {
            spaced.take("a" + i, i * 100_000_000L);
        }
        assertEquals(0, spaced.evictedEarly());
        assertEquals(AddressSessions.SLOTS, spaced.size());
    }

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    /**
     * The heap the table takes once 10^5 distinct addresses (each a string of its own, as a container makes one
     * per request) have started sessions: at most {@link AddressSessions#FOOTPRINT_BYTES}, whatever comes after.
     */
    @Test
    void aFullTableTakesAtMostItsFootprint() {
        long before = usedHeapAfterGc();
        AddressSessions table = new AddressSessions(20, 20);
        for (int i = 0; i < 100_000; i++) {
            table.take(new String("2001:db8::" + Integer.toHexString(i)), i);
        }
        long after = usedHeapAfterGc();
        System.out.println("address table: " + table.size() + " addresses, " + (after - before)
                + " bytes (bound: " + AddressSessions.FOOTPRINT_BYTES + ")");
        assertEquals(AddressSessions.SLOTS, table.size());
        assertTrue(after - before <= AddressSessions.FOOTPRINT_BYTES, (after - before) + " bytes");
        assertTrue(after - before >= AddressSessions.SLOTS * 24L, "measured " + (after - before)
                + " bytes: the measurement is broken");
        Reference.reachabilityFence(table);
    }
}

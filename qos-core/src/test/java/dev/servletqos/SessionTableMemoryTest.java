package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import dev.servletqos.policy.SessionTablePolicy;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's memory bound: a flood of distinct new sessions, then of distinct valid signed cookies (admission
 * cookies this node never saw, as if issued by another node, and tier cookies of distinct subjects), all through
 * the engine's request path ({@link QosEngine#enter}), keep the session table at its configured bound
 * ({@code session-table.max-entries}), and the heap the engine holds afterwards (measured with the
 * {@link MemoryMXBean} after full collections, before the engine was made and after the flood) stays within what
 * the bound allows: {@link SessionTable#ENTRY_BYTES} per entry plus {@value #SLACK_MB} MB. Each valid cookie is
 * honoured (an admission cookie admits its session without a new cookie; a tier cookie gives its class), so the
 * table really had to take them in and evict.
 *
 * <p>CI runs {@value #DEFAULT_SESSIONS} new sessions and {@value #DEFAULT_COOKIES} cookies against a bound of
 * {@value #DEFAULT_BOUND}. The full run, 10^7 new sessions and 10^6 valid cookies against the default bound of
 * 100000: {@code ./mvnw -q -B -o -pl qos-core test -Dtest=SessionTableMemoryTest -Dqos.memory.sessions=10000000
 * -Dqos.memory.cookies=1000000 -Dqos.memory.bound=100000}; it prints the table's size and the heap figures.
 */
class SessionTableMemoryTest {

    static final long DEFAULT_SESSIONS = 200_000;
    static final long DEFAULT_COOKIES = 50_000;
    static final long DEFAULT_BOUND = 10_000;
    static final long SLACK_MB = 32;
    private static final long MB = 1024 * 1024;

    private static long usedHeapAfterGc() {
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long used = Long.MAX_VALUE;
        // a few rounds, keeping the lowest: a collection may leave some garbage for the next
        for (int i = 0; i < 4; i++) {
            System.gc();
            used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
        }
        return used;
    }

    @Test
    void floodsOfNewSessionsAndValidCookiesKeepTheTableAtItsBound() {
        long sessions = Long.getLong("qos.memory.sessions", DEFAULT_SESSIONS);
        long cookies = Long.getLong("qos.memory.cookies", DEFAULT_COOKIES);
        long bound = Long.getLong("qos.memory.bound", DEFAULT_BOUND);
        FakeClock clock = new FakeClock();
        long heapBefore = usedHeapAfterGc();
        QosEngine engine = QosEngine.create(QosPolicy.builder().secret(Engines.SECRET).maxExecuting(100)
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic")).defaultClass("basic")
                .addRule(Rule.tierCookie()).sessionTable(new SessionTablePolicy(bound, Duration.ofHours(1)))
                .build(), clock);
        long largest = 0;
        long started = System.nanoTime();
        for (long i = 0; i < sessions; i++) {
            Ticket t = engine.enter(TestRequest.get("/"), clock.nanoTime());
            if (t.setCookieHeader() == null) {
                throw new AssertionError("new session " + i + " was not admitted: " + t);
            }
            t.complete();
            if (i % 10_000 == 0) {
                largest = Math.max(largest, tableSize(engine));
            }
        }
        long sessionMillis = (System.nanoTime() - started) / 1_000_000;

        // valid cookies signed with the engine's secret, as another node (admission) or the application (tier) would
        SessionCookies otherNode = new SessionCookies("QOSSESSION", new Signer(Signer.secretBytes(Engines.SECRET), null),
                Duration.ofMinutes(30), clock);
        started = System.nanoTime();
        for (long i = 0; i < cookies; i++) {
            TestRequest r = TestRequest.get("/");
            boolean admission = i % 2 == 0;
            if (admission) {
                r.cookie("QOSSESSION", otherNode.issue("basic", SessionCookies.newSessionId(), clock.epochSecond() + 1800));
            } else {
                r.cookie("QOSTIER", engine.tierCookies().issue("premium", "subject-" + i));
            }
            Ticket t = engine.enter(r, clock.nanoTime());
            if (admission ? t.setCookieHeader() != null || !"basic".equals(t.serviceClass())
                    : !"premium".equals(t.serviceClass())) {
                throw new AssertionError("valid cookie " + i + " was not honoured: " + t);
            }
            t.complete();
            if (i % 10_000 == 0) {
                largest = Math.max(largest, tableSize(engine));
            }
        }
        long cookieMillis = (System.nanoTime() - started) / 1_000_000;
        EngineSnapshot s = engine.snapshot();
        largest = Math.max(largest, s.sessions().tableSize());
        long heapAfter = usedHeapAfterGc();
        long held = heapAfter - heapBefore;
        long allowed = bound * SessionTable.ENTRY_BYTES + SLACK_MB * MB;
        System.out.printf("SessionTableMemoryTest: %d new sessions in %d ms, %d valid cookies in %d ms; table at most "
                        + "%d of %d, %d at the end; heap used after GC %d MB before the engine, %d MB after the flood: "
                        + "%d MB held (%d bytes per table entry), allowed %d MB; max heap %d MB%n",
                sessions, sessionMillis, cookies, cookieMillis, largest, bound, s.sessions().tableSize(),
                heapBefore / MB, heapAfter / MB, held / MB, held / Math.max(1, s.sessions().tableSize()),
                allowed / MB, Runtime.getRuntime().maxMemory() / MB);
        assertTrue(largest <= bound, "the session table grew to " + largest + ", beyond its bound " + bound);
        assertTrue(s.sessions().tableSize() >= bound * 9 / 10, "the flood filled the table: " + s.sessions());
        assertEquals(cookies - cookies / 2, s.sessions().sessionCookies(Status.VALID),
                "each admission cookie was checked once, none was in the table already");
        assertEquals(cookies / 2, s.sessions().tierCookies(Status.VALID));
        assertTrue(held <= allowed, held / MB + " MB held, more than the " + allowed / MB + " MB the bound allows");
        assertEquals(0, s.executing());
        assertEquals(0, s.queued());
        Reference.reachabilityFence(engine);
    }

    private static long tableSize(QosEngine engine) {
        return engine.snapshot().sessions().tableSize();
    }
}

package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Measures what one admitted session costs in the session table, the figure behind the bound on
 * {@code session-table.max-entries} ({@link SessionTable#ENTRY_BYTES}): fills a table of 200000 entries as the
 * engine does (a signed cookie value as the key, the session as the value, the cache sized for exactly that many)
 * and divides the heap it takes, after full collections before and after, by the number of entries.
 */
class SessionTableFootprintTest {

    private static final int ENTRIES = 200_000;

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
    void anAdmittedSessionTakesAtMostTheBytesTheBoundAssumes() {
        FakeClock clock = new FakeClock();
        QosPolicy policy = QosPolicy.builder().secret(Engines.SECRET).maxExecuting(4)
                .addClass(ClassPolicy.named("basic")).sessionTableMaxEntries(ENTRIES).build();
        SessionCookies cookies = new SessionCookies(policy.cookies().sessionName(),
                new Signer(Signer.secretBytes(Engines.SECRET), null), Duration.ofMinutes(30), clock);
        long before = usedHeapAfterGc();
        Regime regime = Regime.first(policy, null);
        SessionTable table = new SessionTable(policy, cookies, clock);
        for (int i = 0; i < ENTRIES; i++) {
            table.admitNew(regime, 0, null, null);
        }
        long after = usedHeapAfterGc();
        long size = table.size();
        long perEntry = (after - before) / ENTRIES;
        System.out.println("session table: " + size + " entries, " + (after - before) + " bytes, " + perEntry
                + " bytes per session (assumed: " + SessionTable.ENTRY_BYTES + ")");
        assertTrue(size >= ENTRIES * 95L / 100, "the table kept " + size + " of " + ENTRIES);
        assertTrue(perEntry <= SessionTable.ENTRY_BYTES, perEntry + " bytes per session, more than the "
                + SessionTable.ENTRY_BYTES + " the bound on session-table.max-entries assumes");
        assertTrue(perEntry >= 100, "measured " + perEntry + " bytes: the measurement is broken");
        Reference.reachabilityFence(table);
    }
}

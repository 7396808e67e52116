package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, finding 10: {@code session-table.max-entries} must fit the heap. A table that would take more than half
 * of the maximum heap when full stops the engine's creation (and so the adapter's start) with a message naming the
 * key, the value, the heap and the size assumed per entry.
 */
class SessionTableBoundTest {

    private static QosPolicy withMaxEntries(long n) {
        return QosPolicy.builder().secret(Engines.SECRET).maxExecuting(4).addClass(ClassPolicy.named("basic"))
                .sessionTableMaxEntries(n).build();
    }

    @Test
    void aTableThatCannotFitHalfTheHeapStopsTheStartNamingKeyAndValue() {
        // 10^8 sessions of a few hundred bytes each: tens of gigabytes, more than half of any test JVM's heap
        PolicyException e = assertThrows(PolicyException.class,
                () -> QosEngine.create(withMaxEntries(100_000_000L), new FakeClock()));
        assertEquals("session-table.max-entries", e.key());
        assertTrue(e.getMessage().startsWith("session-table.max-entries = 100000000: "), e.getMessage());
        assertTrue(e.getMessage().contains("bytes per session") && e.getMessage().contains("-Xmx"), e.getMessage());
    }

    @Test
    void theDefaultFits() {
        QosEngine.create(withMaxEntries(100_000), new FakeClock());
    }
}

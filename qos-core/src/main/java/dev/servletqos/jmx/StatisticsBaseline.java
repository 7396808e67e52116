package dev.servletqos.jmx;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the beans' statistics count from: the engine's start, or the operator's last {@code resetStatistics}. A
 * reset does not touch the engine's counters (the control loop and the meters read their differences, and a
 * counter set back would show as a negative period): it takes a snapshot, and the beans report each count less
 * the snapshot's. Requests in flight at the reset count as entered after it, so the reported counts still add up
 * ({@code entered = completed + declined + rejected + expired + cancelled + executing + queued}). Shared by the
 * beans of one registration. Thread-safe.
 */
final class StatisticsBaseline {

    /** The baseline of one reset: each class's counters then, by name, and when. */
    private record Base(Map<String, ClassStats> classes, Instant at) {
    }

    private volatile Base base;

    StatisticsBaseline(Instant start) {
        this.base = new Base(Map.of(), start);
    }

    /** Counts from now on. */
    void reset(EngineSnapshot now, Instant at) {
        Map<String, ClassStats> m = new HashMap<>();
        for (ClassStats c : now.classes()) {
            m.put(c.name(), c);
        }
        base = new Base(Map.copyOf(m), at);
    }

    /** Since when the statistics count. */
    Instant since() {
        return base.at();
    }

    /** A class's statistics since the baseline (a class that was not in it counts from its start). */
    ClassStatistics of(ClassStats c) {
        return ClassStatistics.since(c, base.classes().get(c.name()));
    }
}

package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A run is a function of policy, workload and seed: same seed, same series; another seed, other series. */
class DeterminismTest {

    @Test
    void sameSeedGivesIdenticalSeriesAndTotals() {
        SimResult a = Simulation.run(Scenarios.busyPolicy(), Scenarios.busyWorkload(), 42);
        SimResult b = Simulation.run(Scenarios.busyPolicy(), Scenarios.busyWorkload(), 42);

        assertTrue(a.totals("basic").rejections() > 0 && a.totals("premium").expirations() + a.totals("basic")
                .expirations() > 0, "the scenario exercises refusals and expiries: " + a.totals("basic"));
        assertEquals(a.periods(), b.periods());
        for (String c : a.classes()) {
            assertEquals(a.series(c), b.series(c), c + ": every metric of every period");
            assertEquals(a.totals(c), b.totals(c), c);
            assertEquals(a.engineCounts(c), b.engineCounts(c), c);
        }
        assertEquals(a.toCsv(), b.toCsv());
        assertEquals(a.events(), b.events());
    }

    @Test
    void anotherSeedGivesOtherSeries() {
        SimResult a = Simulation.run(Scenarios.busyPolicy(), Scenarios.busyWorkload(), 42);
        SimResult b = Simulation.run(Scenarios.busyPolicy(), Scenarios.busyWorkload(), 43);

        for (String c : a.classes()) {
            assertNotEquals(a.series(c), b.series(c), c);
            assertFalse(java.util.Arrays.equals(a.series(c).values(Metric.ARRIVALS),
                    b.series(c).values(Metric.ARRIVALS)), c + " arrivals");
        }
        assertNotEquals(a.toCsv(), b.toCsv());
    }
}

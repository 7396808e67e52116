package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The system clock's wall-clock second on the request path agrees with the wall clock. */
class SystemClockTest {

    /**
     * The second derived from a monotonic reading lies between two wall-clock readings around it, on the first call
     * (a new reading), on later ones (derived from the reading) and for a monotonic time more than a second old.
     */
    @Test
    void theSecondAtAMonotonicTimeIsTheWallClocksSecond() {
        Clock c = Clock.system();
        for (int i = 0; i < 1000; i++) {
            long before = System.currentTimeMillis();
            long at = c.epochSecondAt(c.nanoTime());
            assertWithin(before, at, System.currentTimeMillis());
        }
        long before = System.currentTimeMillis();
        long at = c.epochSecondAt(c.nanoTime() - 5_000_000_000L); // older than the reading: a new one
        assertWithin(before, at, System.currentTimeMillis());
    }

    /**
     * The second {@code at} is that of an instant between the two wall-clock readings, give or take
     * {@value #SLACK_MS} ms: the derivation drops the sub-millisecond part of the monotonic time, and the two
     * clocks drift apart by microseconds a second.
     */
    private static void assertWithin(long beforeMillis, long at, long afterMillis) {
        long low = (beforeMillis - SLACK_MS) / 1000;
        long high = (afterMillis + SLACK_MS) / 1000;
        assertTrue(low <= at && at <= high, "second " + at + " outside " + low + ".." + high);
    }

    private static final long SLACK_MS = 5;
}

package dev.servletqos.sim;

import dev.servletqos.Clock;

/**
 * The simulation's clock: it stands still while an event runs and moves only when the event loop takes the
 * next event. {@link #nanoTime()} is the simulated time plus a fixed origin, {@link #epochSecond()} a fixed
 * wall-clock base plus the simulated seconds, so signed cookies age with simulated time. Not thread-safe: one
 * simulation runs on one thread.
 */
public final class SimClock implements Clock {

    /** {@code nanoTime()} at simulated time 0: not 0, so that no code can mistake a time for "unset". */
    static final long ORIGIN_NANOS = 1_000_000_000L;
    /** {@code epochSecond()} at simulated time 0 (a date in 2027). */
    static final long EPOCH_BASE = 1_800_000_000L;

    private long nanos;

    SimClock() {
    }

    /** Simulated nanoseconds since the start of the run. */
    public long elapsedNanos() {
        return nanos;
    }

    @Override
    public long nanoTime() {
        return ORIGIN_NANOS + nanos;
    }

    @Override
    public long epochSecond() {
        return EPOCH_BASE + nanos / 1_000_000_000L;
    }

    void moveTo(long elapsedNanos) {
        if (elapsedNanos < nanos) {
            throw new IllegalStateException("time goes forward only: " + elapsedNanos + " < " + nanos);
        }
        nanos = elapsedNanos;
    }
}

package dev.servletqos;

import java.time.Duration;

/** A hand-driven {@link Clock} for the cookie tests: nothing moves unless a test moves it. */
final class CookieTestClock implements Clock {

    private long nanos;
    private long epochSecond;

    CookieTestClock(long epochSecond) {
        this.epochSecond = epochSecond;
    }

    @Override
    public long nanoTime() {
        return nanos;
    }

    @Override
    public long epochSecond() {
        return epochSecond;
    }

    void setEpochSecond(long epochSecond) {
        this.epochSecond = epochSecond;
    }

    /** Moves both times forward by {@code d}. */
    void advance(Duration d) {
        nanos += d.toNanos();
        epochSecond += d.getSeconds();
    }
}

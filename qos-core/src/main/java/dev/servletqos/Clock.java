package dev.servletqos;

/**
 * The engine's source of time. Decisions take {@code nanoTime()} (monotonic, for waits, rates and
 * deadlines); signed cookies carry wall-clock seconds ({@code epochSecond()}) so that other nodes can check
 * them. Tests use a fake clock that they advance by hand.
 */
public interface Clock {

    /** Monotonic time in nanoseconds, as {@link System#nanoTime()}: only differences mean anything. */
    long nanoTime();

    /** Wall-clock time in seconds since the epoch. */
    long epochSecond();

    /** The system clock. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}

enum SystemClock implements Clock {
    INSTANCE;

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long epochSecond() {
        return System.currentTimeMillis() / 1000;
    }
}

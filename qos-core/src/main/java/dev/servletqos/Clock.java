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

    /**
     * The wall-clock second at {@code nanoTime}, a reading of {@link #nanoTime()} just taken: what the request path
     * uses, so that one request reads the clock once. By default {@link #epochSecond()}; the system clock derives it
     * from the monotonic time and a wall-clock reading it renews every second.
     */
    default long epochSecondAt(long nanoTime) {
        return epochSecond();
    }

    /** The system clock. */
    static Clock system() {
        return SystemClock.INSTANCE;
    }
}

enum SystemClock implements Clock {
    INSTANCE;

    private static final long SECOND = 1_000_000_000L;

    /** A wall-clock reading and the monotonic time it was taken at. */
    private record Base(long nanos, long epochMillis) {
        static Base now() {
            return new Base(System.nanoTime(), System.currentTimeMillis());
        }
    }

    /** Renewed once a second at most, by whichever thread finds it older; a lost renewal is harmless. */
    private volatile Base base = Base.now();

    @Override
    public long nanoTime() {
        return System.nanoTime();
    }

    @Override
    public long epochSecond() {
        return System.currentTimeMillis() / 1000;
    }

    /**
     * From the last wall-clock reading and the monotonic time since, while that reading is less than a second old (an
     * adjustment of the wall clock shows within a second); otherwise from a new reading.
     */
    @Override
    public long epochSecondAt(long nanoTime) {
        Base b = base;
        long since = nanoTime - b.nanos;
        if (since >= 0 && since < SECOND) {
            return (b.epochMillis + since / 1_000_000) / 1000;
        }
        if (since >= SECOND) {
            base = Base.now();
        }
        return epochSecond();
    }
}

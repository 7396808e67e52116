package dev.servletqos;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/** A clock the test moves by hand; both monotonic and wall time advance together. Thread-safe. */
public final class FakeClock implements Clock {

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final long epochBase = 1_800_000_000L;

    @Override
    public long nanoTime() {
        return nanos.get();
    }

    @Override
    public long epochSecond() {
        return epochBase + nanos.get() / 1_000_000_000L;
    }

    public void advance(Duration d) {
        nanos.addAndGet(d.toNanos());
    }
}

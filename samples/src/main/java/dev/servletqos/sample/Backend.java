package dev.servletqos.sample;

import java.util.Locale;
import java.util.concurrent.Semaphore;

/**
 * The speed of the shop's simulated back end, changeable while the shop serves: a factor on every back-end
 * wait of {@link Costs} (1 = normal speed, 2 = twice as slow, 0.5 = twice as fast). The CPU part of a page is
 * the application's own work and does not change. One per shop (servlet context), read by every page on every
 * request; set in-process by the demo ({@code ShopServer.backend()}) or by an operator on the same machine with
 * {@code POST /admin/backend?factor=2} ({@link BackendServlet}). Thread-safe.
 *
 * <p>The back end has {@value #CONNECTIONS} connections, like a JDBC pool: a page holds one for its back-end wait,
 * and a page that finds them all taken waits for one, holding its worker thread (in arrival order). So the
 * shop's capacity is set by its back end, as a real shop's is, and requests beyond it queue inside the
 * application, where service classes mean nothing, unless the engine holds them back.
 */
public final class Backend {

    /** The back end's connections. */
    public static final int CONNECTIONS = 16;

    private final Semaphore connections = new Semaphore(CONNECTIONS, true);

    /** The lowest factor: ten times faster than normal. */
    public static final double MIN_FACTOR = 0.1;
    /** The highest factor: twenty times slower than normal. */
    public static final double MAX_FACTOR = 20;

    private volatile double factor = 1;

    /**
     * Holds a back-end connection for {@code nanos} (waiting for one first if all are taken).
     */
    public void call(long nanos) {
        if (nanos <= 0) {
            return;
        }
        try {
            connections.acquire();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        try {
            Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            connections.release();
        }
    }

    /** The factor now (default 1). */
    public double factor() {
        return factor;
    }

    /**
     * Sets the factor; pages that start after this call use it (a request already in its back-end wait keeps
     * the wait it started).
     *
     * @return the factor before
     * @throws IllegalArgumentException if {@code f} is not a number from {@value #MIN_FACTOR} to
     *                                  {@value #MAX_FACTOR}
     */
    public synchronized double setFactor(double f) {
        if (!(f >= MIN_FACTOR && f <= MAX_FACTOR)) {
            throw new IllegalArgumentException(message(Double.toString(f)));
        }
        double before = factor;
        factor = f;
        return before;
    }

    /**
     * The factor written in {@code text} (a decimal number, e.g. {@code 2} or {@code 0.5}).
     *
     * @throws IllegalArgumentException naming the value when it is missing, not a number or out of range
     */
    public static double parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("factor is required, e.g. factor=2 (" + range() + ")");
        }
        double f;
        try {
            f = Double.parseDouble(text.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(message('"' + text + '"'), e);
        }
        if (!(f >= MIN_FACTOR && f <= MAX_FACTOR)) {
            throw new IllegalArgumentException(message('"' + text + '"'));
        }
        return f;
    }

    private static String message(String value) {
        return "factor must be " + range() + ", was " + value;
    }

    private static String range() {
        return String.format(Locale.ROOT, "a number from %s to %s: 1 is normal speed, 2 twice as slow",
                MIN_FACTOR, (int) MAX_FACTOR);
    }
}

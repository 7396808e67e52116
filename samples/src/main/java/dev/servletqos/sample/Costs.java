package dev.servletqos.sample;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * What each page costs the server: a simulated back-end wait (a database, a stock service, a payment
 * gateway; the worker thread is held, as with a blocking JDBC call) plus real CPU work (hashing, standing in
 * for rendering and business logic). The waits dominate, so results on a small machine are stable and the
 * shop's capacity is set by how many requests run at once, as in paper 004's experiments.
 *
 * <p>At scale 1 (milliseconds; the table is also in docs/sample.md):
 * <pre>
 * page              wait   CPU
 * /login             10    0.5
 * /browse            30    1
 * /item (full)       80    1     two full images
 * /item (degraded)   30    0.5   one degraded image
 * /img full           3    0.1   about 25 KB
 * /img degraded       1    0.05  about 0.3 KB
 * POST /checkout    250    2
 * </pre>
 * A session of the demo (login, browse, three items with their images, checkout) holds a worker for about
 * 548 ms of waits plus 7.1 ms of CPU, 555.1 ms in all ({@link #sessionMillis(int)}). {@code scale} multiplies
 * every number. Immutable.
 */
public final class Costs {

    // Milliseconds at scale 1: back-end wait and CPU per page (the table above).
    public static final double LOGIN_WAIT = 10;
    public static final double LOGIN_CPU = 0.5;
    public static final double BROWSE_WAIT = 30;
    public static final double BROWSE_CPU = 1;
    public static final double ITEM_WAIT = 80;
    public static final double ITEM_CPU = 1;
    public static final double ITEM_DEGRADED_WAIT = 30;
    public static final double ITEM_DEGRADED_CPU = 0.5;
    public static final double IMG_WAIT = 3;
    public static final double IMG_CPU = 0.1;
    public static final double IMG_DEGRADED_WAIT = 1;
    public static final double IMG_DEGRADED_CPU = 0.05;
    public static final double CHECKOUT_WAIT = 250;
    public static final double CHECKOUT_CPU = 2;
    /** Images on a full product page. */
    public static final int ITEM_IMAGES = 2;
    /** Images on a degraded product page. */
    public static final int ITEM_DEGRADED_IMAGES = 1;

    /** Nanoseconds of CPU one hashing round takes on this machine, measured once. */
    private static final double NANOS_PER_ROUND = calibrate();

    private final double scale;

    private Costs(double scale) {
        this.scale = scale;
    }

    /**
     * Costs multiplied by {@code scale}.
     *
     * @throws IllegalArgumentException if scale is not in (0, 100]
     */
    public static Costs scaled(double scale) {
        if (!(scale > 0 && scale <= 100)) {
            throw new IllegalArgumentException("scale must be more than 0 and at most 100, was " + scale);
        }
        return new Costs(scale);
    }

    /** The scale factor. */
    public double scale() {
        return scale;
    }

    /** Holds the thread for {@code waitMillis} (scaled) and burns {@code cpuMillis} (scaled) of CPU. */
    public void spend(double waitMillis, double cpuMillis) {
        cpu(cpuMillis * scale);
        long nanos = Math.round(waitMillis * scale * 1_000_000);
        if (nanos > 0) {
            try {
                Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * Milliseconds of worker thread one session holds at full content and this scale: login, browse,
     * {@code items} product pages with their images, checkout.
     */
    public double sessionMillis(int items) {
        double perItem = ITEM_WAIT + ITEM_CPU + ITEM_IMAGES * (IMG_WAIT + IMG_CPU);
        return scale * (LOGIN_WAIT + LOGIN_CPU + BROWSE_WAIT + BROWSE_CPU + items * perItem + CHECKOUT_WAIT
                + CHECKOUT_CPU);
    }

    /** Requests one such session sends. */
    public static int sessionRequests(int items) {
        return 3 + items * (1 + ITEM_IMAGES);
    }

    private static void cpu(double millis) {
        long rounds = Math.round(millis * 1_000_000 / NANOS_PER_ROUND);
        if (rounds > 0) {
            burn(rounds);
        }
    }

    private static byte[] burn(long rounds) {
        MessageDigest md = sha256();
        byte[] block = "servlet-qos sample shop: a product page".getBytes(StandardCharsets.UTF_8);
        for (long i = 0; i < rounds; i++) {
            block = md.digest(block);
        }
        return block;
    }

    // A round is one SHA-256 of 32 bytes (a microsecond or less); measured once so that "1 ms of CPU" means
    // about that on any machine.
    private static double calibrate() {
        burn(20_000);
        long rounds = 50_000;
        long t0 = System.nanoTime();
        burn(rounds);
        double perRound = (double) (System.nanoTime() - t0) / rounds;
        return Math.max(50, perRound);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}

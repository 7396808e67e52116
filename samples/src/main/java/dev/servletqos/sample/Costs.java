package dev.servletqos.sample;

import dev.servletqos.workload.Cost;
import dev.servletqos.workload.ShopWorkload;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * Spends what a page costs the server ({@link Cost}, from the shop's workload description
 * {@link ShopWorkload}): the back-end wait holds the worker thread (as a blocking JDBC call would), the CPU
 * part is real work (hashing, standing in for rendering and business logic). The waits dominate, so results on
 * a small machine are stable and the shop's capacity is set by how many requests run at once, as in paper
 * 004's experiments. {@code scale} multiplies every cost; the back end's live speed ({@link Backend})
 * multiplies the waits on top of it. Immutable.
 */
public final class Costs {

    /** Images on a full product page. */
    public static final int ITEM_IMAGES = ShopWorkload.ITEM.embeds().full();
    /** Images on a degraded product page. */
    public static final int ITEM_DEGRADED_IMAGES = ShopWorkload.ITEM.embeds().degraded();

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

    /**
     * Burns the cost's CPU, scaled, then holds one of the {@code backend}'s connections for its wait, scaled and
     * multiplied by the back end's speed now.
     */
    public void spend(Cost cost, Backend backend) {
        cpu(cost.cpuMillis() * scale);
        backend.call(Math.round(cost.waitMillis() * scale * backend.factor() * 1_000_000));
    }

    /** Milliseconds of worker thread one session of the shop's workload holds at full content and this scale. */
    public double sessionMillis() {
        return scale * ShopWorkload.SHOP.cost(false).millis(1);
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

package dev.servletqos;

/**
 * A token bucket for new sessions of one class (paper 002: a policer per rule, fixed bucket size, an
 * adaptable rate). A rate of 0 means no limit. Not thread-safe: the scheduler's lock guards it. Time is the
 * caller's {@code nanoTime}.
 */
final class TokenBucket {

    private double ratePerNano;
    private double rate;
    private int burst;
    private double tokens;
    private long last;
    private boolean started;

    TokenBucket(double perSecond, int burst) {
        configure(perSecond, burst, 0);
        this.tokens = burst;
        this.started = false;
    }

    /** Changes rate and depth; the tokens held are kept, capped at the new depth. */
    void configure(double perSecond, int newBurst, long now) {
        if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("session rate = " + perSecond + ": must be 0 (no limit) or more");
        }
        if (newBurst < 1) {
            throw new IllegalArgumentException("session burst = " + newBurst + ": must be at least 1");
        }
        if (started) {
            refill(now);
        }
        this.rate = perSecond;
        this.ratePerNano = perSecond / 1e9;
        this.burst = newBurst;
        this.tokens = Math.min(tokens, newBurst);
    }

    /** Whether a token is there now (refilling first); does not take it. */
    boolean available(long now) {
        if (rate == 0) {
            return true;
        }
        refill(now);
        return tokens >= 1;
    }

    /** Takes one token; call only after {@link #available} said yes under the same lock. */
    void take() {
        if (rate != 0) {
            tokens -= 1;
        }
    }

    private void refill(long now) {
        if (!started) {
            started = true;
            last = now;
            return;
        }
        long elapsed = now - last;
        if (elapsed > 0) {
            tokens = Math.min(burst, tokens + elapsed * ratePerNano);
            last = now;
        }
    }

    /**
     * The tokens held at {@code now}, refilled to then but changing nothing (a read for the snapshot); the depth
     * with no limit (rate 0) or before the first request.
     */
    double tokens(long now) {
        if (rate == 0 || !started) {
            return rate == 0 ? burst : tokens;
        }
        long elapsed = now - last;
        return elapsed > 0 ? Math.min(burst, tokens + elapsed * ratePerNano) : tokens;
    }

    /**
     * Whether the tokens are scarce at {@code now}: fewer than {@value #SCARCE} of the depth left (never with no
     * limit). The scheduler counts a class whose bucket is scarce as rationing its new sessions: the per-address
     * shares bind then, before the bucket is empty, so that the tokens below that mark are left to the addresses
     * under their share.
     */
    boolean scarce(long now) {
        return rate != 0 && tokens(now) < SCARCE * burst;
    }

    /** The share of the depth below which the tokens are scarce ({@link #scarce}). */
    static final double SCARCE = 0.5;

    double rate() {
        return rate;
    }

    int burst() {
        return burst;
    }
}

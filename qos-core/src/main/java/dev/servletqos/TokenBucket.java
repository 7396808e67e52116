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
    /**
     * The most tokens held since the depth was last raised (at most the depth; the depth itself once refilled):
     * {@link #scarce} measures the tokens against it, so that a bucket refilling after its depth was raised is not
     * taken for one being emptied.
     */
    private double high;
    private long last;
    private boolean started;

    TokenBucket(double perSecond, int burst) {
        configure(perSecond, burst, 0);
        this.tokens = burst;
        this.high = burst;
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
        // a deeper bucket holds what it held: scarce only once half of that is taken (the admission law raising the
        // rate, and with it the depth, left the tokens below half the new depth: a class with room looked rationing)
        this.high = Math.min(Math.max(high, tokens), newBurst);
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
            high = Math.max(high, tokens);
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
     * Whether the tokens are scarce at {@code now}: fewer than {@value #SCARCE} of the depth left, and of the most
     * held since the depth was last raised (never with no limit): a bucket refilling after a raise is not emptied by
     * anyone. The scheduler counts a class whose bucket is scarce as rationing its new sessions: the per-address
     * shares bind then, before the bucket is empty, so that the tokens below that mark are left to the addresses
     * under their share.
     */
    boolean scarce(long now) {
        if (rate == 0) {
            return false;
        }
        double t = tokens(now);
        return t < SCARCE * Math.min(burst, Math.max(high, t));
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

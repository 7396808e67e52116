package dev.servletqos.policy;

import java.time.Duration;

/**
 * The bounds of this node's table of admitted sessions ({@code session-table.*}). Immutable and thread-safe; build
 * with {@link #DEFAULTS} and the {@code with} methods; {@link #check()} checks the ranges.
 *
 * @param maxEntries  {@code session-table.max-entries}: the most sessions the table holds; default 100000;
 *                    1..100000000
 * @param idleTimeout {@code session-table.idle-timeout}: a session without a request for this long is forgotten;
 *                    default 30 min; more than 0
 */
public record SessionTablePolicy(long maxEntries, Duration idleTimeout) {

    /** Both bounds at their defaults. */
    public static final SessionTablePolicy DEFAULTS = new SessionTablePolicy(100_000, Duration.ofMinutes(30));

    /** {@code session-table.max-entries}: 1..100000000 sessions. */
    public SessionTablePolicy withMaxEntries(long n) {
        return new SessionTablePolicy(n, idleTimeout);
    }

    /** {@code session-table.idle-timeout}: more than 0. */
    public SessionTablePolicy withIdleTimeout(Duration d) {
        return new SessionTablePolicy(maxEntries, d);
    }

    /**
     * Checks both bounds.
     *
     * @throws PolicyException naming the key and the value of the first bad bound
     */
    public void check() {
        ClassPolicy.check(idleTimeout != null && !idleTimeout.isNegative() && !idleTimeout.isZero(),
                "session-table.idle-timeout", idleTimeout, "must be more than 0");
        ClassPolicy.check(maxEntries >= 1 && maxEntries <= 100_000_000, "session-table.max-entries", maxEntries,
                "must be 1..100000000");
    }
}

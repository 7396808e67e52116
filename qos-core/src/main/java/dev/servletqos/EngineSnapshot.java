package dev.servletqos;

import dev.servletqos.policy.QosPolicy;
import java.util.List;
import java.util.Objects;

/**
 * The engine's state at one instant, consistent across classes: what {@code /qos}, the meters, JMX and the
 * controllers read. Immutable.
 *
 * @param scheduling   the scheduling policy
 * @param maxExecuting the total concurrency now
 * @param executing    requests holding a permit, all classes
 * @param queued       requests waiting, all classes
 * @param classes      per class, highest priority first
 * @param sessions     session table and cookie counters (read just before the lock; eventually consistent)
 * @param settings     the settings in force, and who set them last
 * @param nanos        when the snapshot was taken, on the engine's clock ({@code nanoTime})
 * @param routes       service times by kind of request, all classes ({@link Routes#NONE} when not known)
 */
public record EngineSnapshot(QosPolicy.Scheduling scheduling, int maxExecuting, int executing, int queued,
                             List<ClassStats> classes, Sessions sessions, Settings settings, long nanos,
                             Routes routes) {

    public EngineSnapshot {
        classes = List.copyOf(classes);
        Objects.requireNonNull(routes, "routes");
    }

    /**
     * Service times by route (a request's method and the first segment of its path; route 0 is all the routes
     * after the first 63), over the timed completions of every class since the engine started: how many, and
     * their total service time. The capacity law compares each route's service time with its own.
     *
     * @param timed timed completions per route
     * @param nanos their total service time per route, in nanoseconds
     */
    public record Routes(long[] timed, long[] nanos) {

        /** No route data. */
        public static final Routes NONE = new Routes(new long[0], new long[0]);

        public Routes {
            timed = timed.clone();
            nanos = nanos.clone();
            if (timed.length != nanos.length) {
                throw new IllegalArgumentException("timed and nanos differ in length");
            }
        }

        /** The number of routes (0 when not known). */
        public int size() {
            return timed.length;
        }
    }

    /** The stats of one class, or null. */
    public ClassStats get(String className) {
        for (ClassStats c : classes) {
            if (c.name().equals(className)) {
                return c;
            }
        }
        return null;
    }

    /**
     * Session table and cookie counters.
     *
     * @param tableSize          sessions known to this node now (approximate)
     * @param tierCookies        tier cookie checks by result ({@code TierCookies.Verified.Status} order:
     *                           valid, missing, malformed, forged, expired, oversized), on first requests
     * @param tierUnknownClass   valid tier cookies naming a class this policy does not have
     * @param sessionCookies     admission cookies not in the table, checked by signature, by the same results
     */
    public record Sessions(long tableSize, long[] tierCookies, long tierUnknownClass, long[] sessionCookies) {

        public Sessions {
            tierCookies = tierCookies.clone();
            sessionCookies = sessionCookies.clone();
        }

        /** Tier cookie checks with this result. */
        public long tierCookies(TierCookies.Verified.Status status) {
            return tierCookies[status.ordinal()];
        }

        /** Admission cookie signature checks with this result. */
        public long sessionCookies(TierCookies.Verified.Status status) {
            return sessionCookies[status.ordinal()];
        }

        @Override
        public long[] tierCookies() {
            return tierCookies.clone();
        }

        @Override
        public long[] sessionCookies() {
            return sessionCookies.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Sessions s && s.tableSize == tableSize && s.tierUnknownClass == tierUnknownClass
                    && java.util.Arrays.equals(s.tierCookies, tierCookies)
                    && java.util.Arrays.equals(s.sessionCookies, sessionCookies);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(tierCookies) * 31 + java.util.Arrays.hashCode(sessionCookies);
        }

        @Override
        public String toString() {
            return "Sessions{table=" + tableSize + ", tier=" + java.util.Arrays.toString(tierCookies)
                    + ", session=" + java.util.Arrays.toString(sessionCookies) + "}";
        }
    }
}

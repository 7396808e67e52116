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
 * @param buckets      per token-bucket rule, its hits, refusals and rate (empty when the policy has none)
 * @param hosts        per virtual server, its requests and those within its guarantee (empty when none)
 * @param exempt       requests an exempt rule ({@code exempt.<n>.*}) let bypass QoS since the engine started (in no
 *                     class)
 * @param streams      streams ({@code streams.*}) open now, all classes: running without a permit
 */
public record EngineSnapshot(QosPolicy.Scheduling scheduling, int maxExecuting, int executing, int queued,
                             List<ClassStats> classes, Sessions sessions, Settings settings, long nanos,
                             Routes routes, List<BucketStats> buckets, List<HostStats> hosts, long exempt,
                             int streams) {

    public EngineSnapshot {
        classes = List.copyOf(classes);
        Objects.requireNonNull(routes, "routes");
        buckets = buckets == null ? List.of() : List.copyOf(buckets);
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
    }

    /** A snapshot without exempt requests or streams. */
    public EngineSnapshot(QosPolicy.Scheduling scheduling, int maxExecuting, int executing, int queued,
                          List<ClassStats> classes, Sessions sessions, Settings settings, long nanos, Routes routes,
                          List<BucketStats> buckets, List<HostStats> hosts) {
        this(scheduling, maxExecuting, executing, queued, classes, sessions, settings, nanos, routes, buckets, hosts,
                0, 0);
    }

    /** A snapshot without token-bucket rules or virtual servers. */
    public EngineSnapshot(QosPolicy.Scheduling scheduling, int maxExecuting, int executing, int queued,
                          List<ClassStats> classes, Sessions sessions, Settings settings, long nanos, Routes routes) {
        this(scheduling, maxExecuting, executing, queued, classes, sessions, settings, nanos, routes, List.of(),
                List.of());
    }

    /**
     * One token-bucket rule's counters since the engine started.
     *
     * @param name    the bucket
     * @param hits    requests that matched it (admitted or refused)
     * @param refused requests it refused
     * @param rate    its rate now, requests per second
     * @param depth   its depth
     * @param tokens  the tokens it holds at the snapshot's time, 0..depth (a request takes one if at least 1)
     */
    public record BucketStats(String name, long hits, long refused, double rate, int depth, double tokens) {
    }

    /**
     * One virtual server's counters since the engine started.
     *
     * @param name            the virtual server
     * @param requests        its requests
     * @param guaranteed      those within its guarantee (never refused for other hosts' load)
     * @param guaranteedBytes the response bytes of the guaranteed requests, as far as known
     */
    public record HostStats(String name, long requests, long guaranteed, long guaranteedBytes) {
    }

    /** The stats of one bucket, or null. */
    public BucketStats bucket(String name) {
        for (BucketStats b : buckets) {
            if (b.name().equals(name)) {
                return b;
            }
        }
        return null;
    }

    /** The stats of one virtual server, or null. */
    public HostStats host(String name) {
        for (HostStats h : hosts) {
            if (h.name().equals(name)) {
                return h;
            }
        }
        return null;
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

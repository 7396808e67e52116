package dev.servletqos;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Policy;
import com.github.benmanes.caffeine.cache.RemovalCause;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The sessions this node has admitted, keyed by the value of their signed admission cookie, bounded by
 * entries and idle time (Caffeine). A cookie this node does not know (issued by another node behind the
 * load balancer, or evicted here) is honoured when its signature checks out and it has not expired, and is
 * then remembered; a forged or broken one costs a signature check and no memory.
 *
 * <p>In front of the table sits a small direct-mapped array of the sessions looked up last ({@link #FRONT_SLOTS}),
 * indexed by a hash of the cookie's signature (its last characters): an admitted session's request finds its
 * session there without hashing the whole cookie value or reading the table's map (issue 24). It serves only
 * sessions the table still holds, and holds at most {@link #FRONT_SLOTS} of them. Thread-safe.
 */
final class SessionTable {

    /**
     * Heap one admitted session takes in the table, in bytes, as assumed for the bound on
     * {@code session-table.max-entries}: the cache's node and map entry, the cookie value that keys it (about 120
     * characters), the {@link Session} and its 22-character id. {@code SessionTableFootprintTest} measures it on the
     * JVM the tests run on (a 64-bit JDK 17 with compressed references measured 411 bytes, 491 since
     * {@link SessionLoad}'s count is padded to a cache line of its own, 499 since the entry keeps its cookie for the
     * front array); this is that figure rounded up. The front array holds at most {@link #FRONT_SLOTS} more.
     */
    static final long ENTRY_BYTES = 512;

    /**
     * Slots of the array in front of the table: a power of two. 4096 references (16 KB), so that the sessions of
     * a busy node's open connections mostly keep a slot of their own.
     */
    static final int FRONT_SLOTS = 4096;
    /** How many of a cookie value's last characters (its signature's) pick its slot. */
    private static final int FRONT_HASHED = 16;

    /**
     * An admitted session: its class (an index of the policy's generation {@code generation}, see {@link Regime}),
     * its id, until when the cookie the client holds is valid (seconds since the epoch), and its requests in flight
     * (shared with the entries of its renewed cookies; a reload leaves it as it is). One per entry of the table.
     */
    static final class Session {
        /** The cookie value this entry is keyed by. */
        private final String cookie;
        private final int classIndex;
        private final int generation;
        private final String id;
        private final long admittedUntil;
        private final SessionLoad load;
        /**
         * When a lookup last told the table of an access to this entry ({@link #lookup}), the clock's nanoTime; written
         * without a lock by the entry's own requests (a lost write costs one more access recorded, nothing else).
         */
        private long touchedNanos;
        /** Set once the table no longer holds this entry (evicted, idle, expired): the front array skips it. */
        private volatile boolean removed;

        Session(String cookie, int classIndex, int generation, String id, long admittedUntil, SessionLoad load,
                long nowNanos) {
            this.cookie = cookie;
            this.classIndex = classIndex;
            this.generation = generation;
            this.id = id;
            this.admittedUntil = admittedUntil;
            this.load = load;
            this.touchedNanos = nowNanos; // put in the table now: its access is recorded
        }

        int classIndex() {
            return classIndex;
        }

        int generation() {
            return generation;
        }

        String id() {
            return id;
        }

        long admittedUntil() {
            return admittedUntil;
        }

        SessionLoad load() {
            return load;
        }
    }

    private final Cache<String, Session> sessions;
    /** The sessions looked up last, by {@link #slot}; written without a lock (Session's fields are final). */
    private final Session[] front = new Session[FRONT_SLOTS];
    /** The same table, read without recording an access ({@link #lookup}). */
    private final Policy<String, Session> quietly;
    /**
     * How often a lookup records an access to an entry, in nanoseconds: a sixteenth of
     * {@code session-table.idle-timeout}, at most a second (so a session is forgotten after between 15/16 of the idle
     * timeout and all of it without a request, at most a second early).
     */
    private final long touchEveryNanos;
    private final SessionCookies cookies;
    private final Clock clock;
    private final long maxAgeSeconds;
    private final LongAdder[] cookieResults = Classifier.newAdders(TierCookies.Verified.Status.values().length);

    /**
     * @throws PolicyException if a full table would take more than half of the JVM's maximum heap, naming
     *     {@code session-table.max-entries}, its value and the largest that fits
     */
    SessionTable(QosPolicy policy, SessionCookies cookies, Clock clock) {
        checkFits(policy.sessionTable().maxEntries(), Runtime.getRuntime().maxMemory());
        this.cookies = cookies;
        this.clock = clock;
        this.maxAgeSeconds = policy.cookies().sessionMaxAge().getSeconds();
        this.sessions = Caffeine.newBuilder()
                .maximumSize(policy.sessionTable().maxEntries())
                .expireAfterAccess(policy.sessionTable().idleTimeout())
                .ticker(clock::nanoTime)
                .executor(Runnable::run)
                .removalListener((String k, Session v, RemovalCause cause) -> {
                    if (v != null) {
                        v.removed = true;
                    }
                })
                .build();
        this.quietly = sessions.policy();
        this.touchEveryNanos = Math.min(TimeUnit.SECONDS.toNanos(1), policy.sessionTable().idleTimeout().toNanos() / 16);
    }

    /**
     * The admitted session this cookie value stands for, or null for a new session. A cookie is checked for expiry
     * on every request, also when this node has it in its table: an expired one is a new session.
     *
     * <p>A session found is read without telling the table (Caffeine's read buffer, its access order and its idle
     * timer are written state every request thread would share: two threads each with its own session would fight
     * over them on every request, issue 24); its access is recorded once in {@link #touchEveryNanos} only.
     *
     * @param nowEpochSecond the clock's {@code epochSecond()} now
     * @param nowNanos       the clock's {@code nanoTime()} now
     * @param r              the policy the request is served under (a cookie of a class it does not have is a new
     *                       session)
     */
    Session lookup(String cookieValue, long nowEpochSecond, long nowNanos, Regime r) {
        if (cookieValue == null) {
            return null;
        }
        int slot = slot(cookieValue);
        Session f = front[slot];
        Session s = f;
        if (s == null || s.removed || !s.cookie.equals(cookieValue)) {
            s = quietly.getIfPresentQuietly(cookieValue);
        }
        if (s != null && s.admittedUntil() <= nowEpochSecond) {
            sessions.invalidate(cookieValue);
            cookieResults[TierCookies.Verified.Status.EXPIRED.ordinal()].increment();
            return null;
        }
        if (s != null && nowNanos - s.touchedNanos >= touchEveryNanos) {
            s.touchedNanos = nowNanos;
            // records the access: its idle timer starts again; null if the table let it go meanwhile (idle)
            if (sessions.getIfPresent(cookieValue) != s) {
                s = null;
            }
        }
        if (s != null) {
            if (s != f) {
                front[slot] = s; // written only when it changes: the array's cache lines stay shared, not bounced
            }
            return s;
        }
        SessionCookies.Verified v = cookies.verify(cookieValue);
        cookieResults[v.status().ordinal()].increment();
        if (v.status() != TierCookies.Verified.Status.VALID) {
            return null;
        }
        int c = r.classIndex(v.serviceClass());
        if (c < 0) {
            return null;
        }
        s = new Session(cookieValue, c, r.generation, v.sessionId(), v.admittedUntil(), new SessionLoad(), nowNanos);
        sessions.put(cookieValue, s);
        front[slot] = s;
        return s;
    }

    /**
     * The front array's slot of a cookie value: a hash of its last {@link #FRONT_HASHED} characters, the
     * signature's, which an issued cookie draws from its secret and so spread evenly. A forged cookie can aim at any
     * slot, but only a valid one is ever put there.
     */
    static int slot(String cookieValue) {
        int h = 0;
        for (int i = Math.max(0, cookieValue.length() - FRONT_HASHED); i < cookieValue.length(); i++) {
            h = 31 * h + cookieValue.charAt(i);
        }
        h *= 0x9E3779B9;
        return (h ^ (h >>> 16)) & (FRONT_SLOTS - 1);
    }

    /**
     * The Set-Cookie header that renews an admitted session's cookie once half its validity has passed, or
     * null while it is fresh: an active session never reaches the end of its admission. A cookie is renewed once,
     * for one request ({@link Scheduler#claimRenewal}): every other client presenting the same cookie gets no new
     * one, unless the request that carried the renewal ended without being served.
     *
     * @param t the request of the session, running or waiting (the renewal goes with its response)
     * @param r the policy the request is served under
     */
    String renewal(Session s, long nowEpochSecond, Ticket t, Regime r) {
        if (s.admittedUntil() - nowEpochSecond > maxAgeSeconds / 2) {
            return null;
        }
        long until = nowEpochSecond + maxAgeSeconds;
        if (!t.scheduler.claimRenewal(s.load(), t, s.admittedUntil(), until)) {
            return null;
        }
        return admit(r, r.resolve(s.generation(), s.classIndex()), s.id(), nowEpochSecond, s.load());
    }

    /**
     * Records a newly admitted session of class {@code classIndex} of {@code r} (the generation the request was
     * classified in; a reload since is carried over by {@link Regime#resolve}) and returns the Set-Cookie header of
     * its admission cookie.
     *
     * @param id   its id, already drawn ({@link SessionCookies#newSessionId()}), or null to draw one
     * @param load its requests in flight (its first one), or null for a new count
     */
    String admitNew(Regime r, int classIndex, String id, SessionLoad load) {
        return admit(r, classIndex, id != null ? id : SessionCookies.newSessionId(), clock.epochSecond(),
                load != null ? load : new SessionLoad());
    }

    private String admit(Regime r, int classIndex, String id, long now, SessionLoad load) {
        long until = now + maxAgeSeconds;
        String value = cookies.issue(r.policy.classes().get(classIndex).name(), id, until);
        sessions.put(value, new Session(value, classIndex, r.generation, id, until, load, clock.nanoTime()));
        return cookies.setCookieHeader(value, until);
    }

    /** The most sessions whose table, full, takes at most half of a heap of {@code maxHeapBytes}. */
    static long largestFitting(long maxHeapBytes) {
        return maxHeapBytes / 2 / ENTRY_BYTES;
    }

    private static void checkFits(long maxEntries, long maxHeapBytes) {
        long largest = largestFitting(maxHeapBytes);
        if (maxEntries > largest) {
            long mb = 1024 * 1024;
            throw new PolicyException("session-table.max-entries", Long.toString(maxEntries), "a full table takes "
                    + "about " + maxEntries * ENTRY_BYTES / mb + " MB at " + ENTRY_BYTES + " bytes per session, more "
                    + "than half of this JVM's maximum heap (-Xmx " + maxHeapBytes / mb + " MB); at most " + largest
                    + " fit here: lower it, or raise -Xmx");
        }
    }

    long size() {
        return sessions.estimatedSize();
    }

    long[] cookieResults() {
        return Classifier.sums(cookieResults);
    }
}

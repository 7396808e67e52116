package dev.servletqos;

import dev.servletqos.control.WaitHistogram;
import dev.servletqos.policy.ClassPolicy;

/**
 * One service class in the {@link Scheduler}: its queue of waiting tickets, its budget and the copies of the settings
 * the request path reads, its session token bucket, and its counters. Guarded by the scheduler's lock, except where
 * a field says otherwise.
 */
final class Lane {
    final String name;
    // the class's policy: set at creation and when the policy is reloaded (configure)
    int index;
    /** The reserve in force: the policy's, or for the highest class's default one, 0 while it is not kept. */
    int reserve;
    int weight;
    int maxQueue;
    /** Read without the lock by {@link Ticket#maxWaitNanos()}. */
    volatile long maxWaitNanos;
    int totalQueuedTrigger;
    int higherQueuedTrigger;
    final TokenBucket sessions;
    /** The session rate and depth the settings in force give; {@link #sessions} has them, lowered to the cap. */
    private double sessionRate;
    private int sessionBurst = 1;
    /** The class's share of its cluster session rate ({@link ClusterLink}), new sessions a second; 0: none. */
    private double clusterCap;
    /**
     * Where this lane's requests went when a reloaded policy removed its class (the default class's lane), else
     * null: a request still running here gives its permit back there.
     */
    Lane successor;
    /**
     * The class's content levels M (the policy's; a reload may change them). Read without the lock by
     * {@link Ticket#levels()}.
     */
    volatile int levels;
    /** Copies of the settings in force that the request path reads. */
    int budget;
    long delayTargetNanos;

    Ticket head;
    Ticket tail;
    int queued;
    /**
     * This class's requests waiting in their sessions' lines ({@link SessionLoad}), in arrival order (linked by
     * {@link Ticket#prev}, {@link Ticket#next}), for the expiry sweep; and how many. Not in {@link #queued}.
     */
    Ticket lineHead;
    Ticket lineTail;
    int lined;
    int executing;
    long pass;

    long entered;
    long completed;
    long declined;
    long rejected;
    long expired;
    long cancelled;
    /**
     * Refusals at entry by reason, indexed by {@link Rejection.Reason#ordinal()}: those of a new session under the
     * class of the session, the others under the class of the request ({@link #refused}).
     */
    final long[] refusedBy = new long[Rejection.Reason.all().length];
    long sessionsAdmitted;
    /**
     * Stateless requests admitted (a cookie-less API caller's: no session made): not a session's requests, so the
     * admission law leaves them out of its requests per session.
     */
    long statelessAdmitted;
    /**
     * Completed requests by the content level they were served at, 0..M (0 stays 0: never served); a request
     * that ran at a level above M (a reload lowered M meanwhile) counts at M.
     */
    long[] completedByLevel;
    long borrowedGrants;
    /** Streams open now (running without a permit). */
    int streams;
    /** Permits granted, at once or after waiting, and the total time the granted requests waited. */
    long grants;
    long waitNanos;
    final long[] waitBuckets = new long[WaitHistogram.BUCKETS];
    /** Time from grant to completion of the completions that were timed ({@link Scheduler#finish}), and how many. */
    long serviceNanos;
    long serviceTimed;
    /** Response bytes of the completed requests, as far as the adapter knew them. */
    long bytes;
    /** Until when the class counts as rationing: its admission refused a new session within a second of it. */
    long rationedUntil;
    boolean rationed;
    /**
     * The fast path's words ({@link FastPath}), one per share of a lease: whether the lane holds one, the permits of
     * the share still free, and the requests the fast path started and completed on it since the scheduler last
     * counted them in. Changed atomically only.
     */
    final long[] fast = FastPath.words();
    /** The policy generation and class index the lease is for ({@link FastPath#key}); written under the lock. */
    volatile long leaseKey = -1;
    /** Response bytes of the fast path's completions (no lock): added to {@link #bytes} in the snapshot. */
    final java.util.concurrent.atomic.LongAdder fastBytes = new java.util.concurrent.atomic.LongAdder();
    /** Session-rate refusals, decaying with a time constant of a second, and when last updated. */
    private double refusals;
    private long refusalsNanos;

    Lane(ClassPolicy c, int index) {
        this.name = c.name();
        this.sessions = new TokenBucket(c.admission().sessionRate(), c.admission().sessionBurst());
        configure(c, index);
    }

    /** Takes the class's policy (a reloaded one keeps the lane, its queue and its counters). */
    void configure(ClassPolicy c, int index) {
        this.index = index;
        this.reserve = c.capacity().reserve();
        this.weight = c.capacity().weight();
        this.maxQueue = c.queue().maxQueue();
        this.maxWaitNanos = c.queue().maxWait().toNanos();
        this.totalQueuedTrigger = c.admission().totalQueuedTrigger();
        this.higherQueuedTrigger = c.admission().higherQueuedTrigger();
        int m = c.content().levels();
        if (completedByLevel == null) {
            completedByLevel = new long[m + 1];
        } else if (m != levels) {
            // the counts stay, those above the new M count at M, so that they still add up
            long[] by = new long[m + 1];
            for (int i = 0; i < completedByLevel.length; i++) {
                by[Math.min(i, m)] += completedByLevel[i];
            }
            completedByLevel = by;
        }
        this.levels = m;
    }

    /** The class's counters and settings now, as {@code settings} (its settings in force) give them; a copy. */
    ClassStats stats(Settings.ClassSettings settings) {
        return new ClassStats(name, budget, settings.minBudget(), reserve, weight, executing,
                Math.max(0, executing - budget), queued, entered, completed, declined, rejected, expired, cancelled,
                refusedBy, sessionsAdmitted, statelessAdmitted, borrowedGrants, grants, waitNanos, waitBuckets, serviceNanos,
                serviceTimed, bytes + fastBytes.sum(), sessions.rate(), sessions.burst(), levels, settings.level(), completedByLevel,
                streams, lined);
    }

    /**
     * Puts the settings' session rate and depth in force, lowered to the cluster cap if there is one: a rate of 0
     * (no limit) becomes the cap itself, a second deep. Under the scheduler's lock.
     */
    void configureSessions(double rate, int burst, long now) {
        sessionRate = rate;
        sessionBurst = burst;
        double r = clusterCap > 0 && (rate == 0 || rate > clusterCap) ? clusterCap : rate;
        // a cap in place of no limit gets a second's depth; one below the rate, at most the depth in force
        int b = r == rate ? burst : (int) Math.max(1, rate == 0 ? Math.ceil(r) : Math.min(burst, Math.ceil(r)));
        if (r != sessions.rate() || b != sessions.burst()) {
            sessions.configure(r, b, now);
        }
    }

    /** Sets this node's cap on the class's session rate ({@code cluster-session-rate}), 0: none. Under the lock. */
    void clusterCap(double cap, long now) {
        if (cap != clusterCap) {
            clusterCap = cap;
            configureSessions(sessionRate, sessionBurst, now);
        }
    }

    /** Lowers {@code t}'s content level to this class's levels, if it has fewer (a reload gave it fewer). */
    void lowerLevel(Ticket t) {
        if (t.level > levels) {
            t.level = (byte) levels;
        }
    }

    /** The lane a request of this one belongs to now: itself, or where a reload moved its requests. */
    Lane current() {
        Lane l = this;
        while (l.successor != null) {
            l = l.successor;
        }
        return l;
    }

    /** Counts a refusal of {@code r} in this class. */
    void refused(Rejection r) {
        refusedBy[r.reason().ordinal()]++;
    }

    /** Counts one more session-rate refusal now; returns the refusals of about the last second. */
    double recentRefusals(long now) {
        double age = Math.max(0, now - refusalsNanos) / 1e9;
        refusals = refusals * Math.exp(-age) + 1;
        refusalsNanos = now;
        return refusals;
    }
}

package dev.servletqos.jmx;

import dev.servletqos.ClassStats;
import dev.servletqos.control.WaitHistogram;
import javax.management.ConstructorParameters;

/**
 * One service class's counters at one instant, as JMX shows them (a {@code CompositeData} to a client): taken
 * from the engine's snapshot, so that they add up, {@code entered = completed + declined + rejected + expired +
 * cancelled + executing + queued}. Counts are since the engine started, or since the operator's last
 * {@code resetStatistics} (a baseline the beans subtract; the engine's counters are not touched). Immutable.
 */
public final class ClassStatistics {

    private final String name;
    private final int budget;
    private final int executing;
    private final int borrowed;
    private final int queued;
    private final long entered;
    private final long completed;
    private final long declined;
    private final long rejected;
    private final long expired;
    private final long cancelled;
    private final long queueFull;
    private final long sessionsAdmitted;
    private final long sessionsRefusedQueued;
    private final long sessionsRefusedRate;
    private final long sessionLimited;
    private final long addressLimited;
    private final long sessionsRefusedAddress;
    private final double meanWaitMillis;
    private final double p95WaitMillis;

    @ConstructorParameters({"name", "budget", "executing", "borrowed", "queued", "entered", "completed", "declined",
            "rejected", "expired", "cancelled", "queueFull", "sessionsAdmitted", "sessionsRefusedQueued",
            "sessionsRefusedRate", "sessionLimited", "addressLimited", "sessionsRefusedAddress", "meanWaitMillis",
            "p95WaitMillis"})
    public ClassStatistics(String name, int budget, int executing, int borrowed, int queued, long entered,
                           long completed, long declined, long rejected, long expired, long cancelled, long queueFull,
                           long sessionsAdmitted, long sessionsRefusedQueued, long sessionsRefusedRate,
                           long sessionLimited, long addressLimited, long sessionsRefusedAddress,
                           double meanWaitMillis, double p95WaitMillis) {
        this.name = name;
        this.budget = budget;
        this.executing = executing;
        this.borrowed = borrowed;
        this.queued = queued;
        this.entered = entered;
        this.completed = completed;
        this.declined = declined;
        this.rejected = rejected;
        this.expired = expired;
        this.cancelled = cancelled;
        this.queueFull = queueFull;
        this.sessionsAdmitted = sessionsAdmitted;
        this.sessionsRefusedQueued = sessionsRefusedQueued;
        this.sessionsRefusedRate = sessionsRefusedRate;
        this.sessionLimited = sessionLimited;
        this.addressLimited = addressLimited;
        this.sessionsRefusedAddress = sessionsRefusedAddress;
        this.meanWaitMillis = meanWaitMillis;
        this.p95WaitMillis = p95WaitMillis;
    }

    /** The statistics of one class of a snapshot, since the engine started. */
    public static ClassStatistics of(ClassStats c) {
        return since(c, null);
    }

    /**
     * The statistics of one class of a snapshot since {@code base}, an earlier snapshot of the same class (null:
     * since the engine started): each count less the base's, the waits of the permits granted since. Requests in
     * flight at the base count as entered after it, so that the counts still add up.
     */
    static ClassStatistics since(ClassStats c, ClassStats base) {
        long[] buckets = c.waitBuckets();
        long grants = c.grants();
        long waitNanos = c.waitNanos();
        long entered = c.entered();
        long completed = c.completed();
        long declined = c.declined();
        long rejected = c.rejected();
        long expired = c.expired();
        long cancelled = c.cancelled();
        long queueFull = c.queueFull();
        long admitted = c.sessionsAdmitted();
        long refusedQueued = c.sessionsRefusedQueued();
        long refusedRate = c.sessionsRefusedRate();
        long sessionLimited = c.sessionLimited();
        long addressLimited = c.addressLimited();
        long refusedAddress = c.sessionsRefusedAddress();
        if (base != null) {
            for (int i = 0; i < buckets.length; i++) {
                buckets[i] -= base.waitBucket(i);
            }
            grants -= base.grants();
            waitNanos -= base.waitNanos();
            entered -= base.entered() - base.inFlight();
            completed -= base.completed();
            declined -= base.declined();
            rejected -= base.rejected();
            expired -= base.expired();
            cancelled -= base.cancelled();
            queueFull -= base.queueFull();
            admitted -= base.sessionsAdmitted();
            refusedQueued -= base.sessionsRefusedQueued();
            refusedRate -= base.sessionsRefusedRate();
            sessionLimited -= base.sessionLimited();
            addressLimited -= base.addressLimited();
            refusedAddress -= base.sessionsRefusedAddress();
        }
        WaitHistogram waits = WaitHistogram.of(buckets);
        double p95 = waits.count() == 0 ? 0 : waits.quantile(0.95) * 1e3;
        double mean = grants == 0 ? 0 : (double) waitNanos / grants / 1e6;
        return new ClassStatistics(c.name(), c.budget(), c.executing(), c.borrowed(), c.queued(), entered,
                completed, declined, rejected, expired, cancelled, queueFull, admitted, refusedQueued, refusedRate,
                sessionLimited, addressLimited, refusedAddress, mean, p95);
    }

    /** The class. */
    public String getName() {
        return name;
    }

    /** Its budget now (concurrency permits). */
    public int getBudget() {
        return budget;
    }

    /** Requests holding a permit now, borrowed ones included. */
    public int getExecuting() {
        return executing;
    }

    /** Of those, permits beyond the budget. */
    public int getBorrowed() {
        return borrowed;
    }

    /** Requests waiting for a permit now (the queue's length). */
    public int getQueued() {
        return queued;
    }

    /** Requests that entered. */
    public long getEntered() {
        return entered;
    }

    /** Requests the application finished. */
    public long getCompleted() {
        return completed;
    }

    /** Requests that held a permit the container could not use (not served). */
    public long getDeclined() {
        return declined;
    }

    /** Requests refused at entry (refused new sessions and full queues), answered 503. */
    public long getRejected() {
        return rejected;
    }

    /** Requests that waited longer than the class's maximum wait, answered 503. */
    public long getExpired() {
        return expired;
    }

    /** Requests whose client went away while they waited. */
    public long getCancelled() {
        return cancelled;
    }

    /** Of the rejected, refused because the queue was full. */
    public long getQueueFull() {
        return queueFull;
    }

    /** New sessions admitted. */
    public long getSessionsAdmitted() {
        return sessionsAdmitted;
    }

    /** New sessions refused by the queue triggers (j, k) or, with automatic admission, the queue guard. */
    public long getSessionsRefusedQueued() {
        return sessionsRefusedQueued;
    }

    /** New sessions refused by the class's session rate. */
    public long getSessionsRefusedRate() {
        return sessionsRefusedRate;
    }

    /**
     * Of the rejected, requests that would have waited while their session had {@code admission.max-per-session}
     * requests executing and waiting.
     */
    public long getSessionLimited() {
        return sessionLimited;
    }

    /**
     * Of the rejected, requests that would have waited while their address had its share of a scarce queue waiting
     * ({@code admission.max-queued-per-address}).
     */
    public long getAddressLimited() {
        return addressLimited;
    }

    /**
     * Of the rejected, new sessions refused because their client address was above its fair share while the class
     * rationed them ({@code admission.max-new-sessions-per-address}).
     */
    public long getSessionsRefusedAddress() {
        return sessionsRefusedAddress;
    }

    /** Mean time a granted request waited for its permit, in milliseconds; 0 before the first grant. */
    public double getMeanWaitMillis() {
        return meanWaitMillis;
    }

    /**
     * The 95th percentile of the granted requests' waits, in milliseconds, from the engine's wait histogram
     * (interpolated within a bucket); 0 before the first grant.
     */
    public double getP95WaitMillis() {
        return p95WaitMillis;
    }

    @Override
    public String toString() {
        return name + "{budget=" + budget + ", executing=" + executing + ", queued=" + queued + ", entered=" + entered
                + ", completed=" + completed + ", rejected=" + rejected + ", expired=" + expired + "}";
    }
}

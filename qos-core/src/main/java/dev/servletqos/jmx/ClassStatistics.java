package dev.servletqos.jmx;

import dev.servletqos.ClassStats;
import dev.servletqos.Rejection;
import dev.servletqos.control.WaitHistogram;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
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
    private final long sessionsAdmitted;
    /** By the tag of each reason counted per class, in the reasons' order. */
    private final Map<String, Long> refusals;
    private final double meanWaitMillis;
    private final double p95WaitMillis;

    /**
     * The statistics as a JMX client reconstructs them: the counts of refusals by reason come from
     * {@code refusals} (the items that name one, such as {@code queueFull}, are read from it).
     */
    @ConstructorParameters({"name", "budget", "executing", "borrowed", "queued", "entered", "completed", "declined",
            "rejected", "expired", "cancelled", "sessionsAdmitted", "refusals", "meanWaitMillis", "p95WaitMillis"})
    public ClassStatistics(String name, int budget, int executing, int borrowed, int queued, long entered,
                           long completed, long declined, long rejected, long expired, long cancelled,
                           long sessionsAdmitted, Map<String, Long> refusals, double meanWaitMillis,
                           double p95WaitMillis) {
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
        this.sessionsAdmitted = sessionsAdmitted;
        this.refusals = Collections.unmodifiableMap(new LinkedHashMap<>(refusals));
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
        long admitted = c.sessionsAdmitted();
        long[] refused = c.refusals();
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
            admitted -= base.sessionsAdmitted();
            for (Rejection.Reason r : Rejection.Reason.values()) {
                refused[r.ordinal()] -= base.refused(r);
            }
        }
        Map<String, Long> refusals = new LinkedHashMap<>();
        for (Rejection.Reason r : Rejection.Reason.values()) {
            if (r.counted()) {
                refusals.put(r.tag(), refused[r.ordinal()]);
            }
        }
        WaitHistogram waits = WaitHistogram.of(buckets);
        double p95 = waits.count() == 0 ? 0 : waits.quantile(0.95) * 1e3;
        double mean = grants == 0 ? 0 : (double) waitNanos / grants / 1e6;
        return new ClassStatistics(c.name(), c.budget(), c.executing(), c.borrowed(), c.queued(), entered,
                completed, declined, rejected, expired, cancelled, admitted, refusals, mean, p95);
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

    /**
     * Requests refused at entry by reason, by the reason's tag ({@link Rejection.Reason#tag()}: {@code queue-full},
     * {@code session-rate}, ...), every reason counted per class; those of a new session under the class of the
     * session. The items below that name one reason are read from it.
     */
    public Map<String, Long> getRefusals() {
        return refusals;
    }

    /** The refusals of {@code reason} ({@link #getRefusals()}); 0 for a reason not counted per class. */
    private long refused(Rejection.Reason reason) {
        Long n = refusals.get(reason.tag());
        return n == null ? 0 : n;
    }

    /** Of the rejected, refused because the queue was full. */
    public long getQueueFull() {
        return refused(Rejection.Reason.QUEUE_FULL);
    }

    /** New sessions admitted. */
    public long getSessionsAdmitted() {
        return sessionsAdmitted;
    }

    /** New sessions refused by the queue triggers (j, k) or, with automatic admission, the queue guard. */
    public long getSessionsRefusedQueued() {
        return refused(Rejection.Reason.SESSION_QUEUED);
    }

    /** New sessions refused by the class's session rate. */
    public long getSessionsRefusedRate() {
        return refused(Rejection.Reason.SESSION_RATE);
    }

    /**
     * Of the rejected, requests that would have waited while their session had {@code admission.max-per-session}
     * requests executing and waiting.
     */
    public long getSessionLimited() {
        return refused(Rejection.Reason.SESSION_LIMIT);
    }

    /**
     * Of the rejected, requests that would have waited while their address had its share of a scarce queue waiting
     * ({@code admission.max-queued-per-address}).
     */
    public long getAddressLimited() {
        return refused(Rejection.Reason.ADDRESS_LIMIT);
    }

    /**
     * Of the rejected, new sessions refused because their client address was above its fair share while the class
     * rationed them ({@code admission.max-new-sessions-per-address}).
     */
    public long getSessionsRefusedAddress() {
        return refused(Rejection.Reason.SESSION_ADDRESS);
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

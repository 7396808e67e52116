package dev.servletqos;

/**
 * One service class's settings and counters at one instant, taken under the engine's lock so that they add
 * up: {@code entered = completed + declined + rejected + expired + cancelled + executing + queued + streams + lined}.
 *
 * @param name                  the class
 * @param budget                its concurrency permits now
 * @param minBudget             the lowest budget a controller may set
 * @param reserve               permits never lent to other classes
 * @param weight                share under the weighted policy
 * @param executing             requests holding a permit now (including borrowed ones)
 * @param borrowed              of those, permits beyond the budget: {@code max(0, executing - budget)},
 *                              taken from idle capacity (or left over from a lowered budget)
 * @param queued                requests waiting for a permit now in the class's queue (those in their sessions'
 *                              lines are {@code lined}, not counted here: neither the queue guard nor the control
 *                              loop sees one session's requests beyond its limit as the class's load)
 * @param entered               requests seen since start
 * @param completed             requests the application finished
 * @param declined              requests that held a permit but the container declined (not served)
 * @param rejected              requests refused at entry: refused new sessions, full queues and the per-session
 *                              and per-address limits
 * @param expired               requests that waited longer than the maximum wait
 * @param cancelled             requests whose client went away while they waited
 * @param refusals              of the rejected, the requests refused at entry by each reason, indexed by
 *                              {@link Rejection.Reason#ordinal()} ({@link #refused}); those of a new session
 *                              ({@link Rejection.Reason#newSession()}) count under the class of the session refused,
 *                              the others under the class of the request. 0 for a reason not
 *                              {@link Rejection.Reason#counted() counted} per class
 * @param sessionsAdmitted      new sessions admitted
 * @param statelessAdmitted     stateless requests admitted: those of callers without a session that were made none
 *                              (a cookie-less API caller's)
 * @param borrowedGrants        permits ever granted beyond the budget
 * @param grants                permits ever granted, at once or after waiting
 * @param waitNanos             total time the granted requests waited for their permit, in nanoseconds
 * @param waitBuckets           the granted requests' waits as cumulative counts in the buckets of
 *                              {@link dev.servletqos.control.WaitHistogram}
 * @param serviceNanos          total time from grant to completion of the timed completions, in nanoseconds:
 *                              every completion while requests wait, one in eight otherwise (a clock read is
 *                              a fifth of the request path's cost)
 * @param serviceTimed          how many completions were timed
 * @param bytes                 total response bytes of the completed requests (as far as known)
 * @param sessionRate           the session rate now, per second (0 = no limit)
 * @param sessionBurst          the session bucket depth
 * @param levels                the class's content levels M
 * @param level                 the class's live fractional content level m now, 0..M
 * @param completedByLevel      completed requests by the content level they were served at, indexed 0..M
 *                              (index 0 stays 0: a request at level 0 is refused)
 * @param streams               streams ({@code streams.*}) open now: detached once their application went
 *                              asynchronous ({@link Ticket#detach()}), running without a permit, not in
 *                              {@code executing}
 * @param lined                 requests waiting now in their sessions' lines: their session had
 *                              {@code admission.max-per-session} requests in flight when they came
 */
public record ClassStats(String name, int budget, int minBudget, int reserve, int weight, int executing,
                         int borrowed, int queued, long entered, long completed, long declined, long rejected,
                         long expired, long cancelled, long[] refusals, long sessionsAdmitted,
                         long statelessAdmitted,
                         long borrowedGrants, long grants, long waitNanos, long[] waitBuckets, long serviceNanos,
                         long serviceTimed, long bytes, double sessionRate, int sessionBurst, int levels,
                         double level, long[] completedByLevel, int streams, int lined) {

    public ClassStats {
        if (refusals.length != Rejection.Reason.all().length) {
            throw new IllegalArgumentException(refusals.length + " refusal counts, there are "
                    + Rejection.Reason.all().length + " reasons");
        }
        refusals = refusals.clone();
        waitBuckets = waitBuckets.clone();
        completedByLevel = completedByLevel.clone();
    }

    /** The requests refused at entry by {@code reason} (see {@code refusals}); 0 for one not counted per class. */
    public long refused(Rejection.Reason reason) {
        return refusals[reason.ordinal()];
    }

    /** The refusals by reason, indexed by {@link Rejection.Reason#ordinal()} (a copy). */
    @Override
    public long[] refusals() {
        return refusals.clone();
    }

    /** New sessions refused by admission: the refusals of every {@link Rejection.Reason#newSession()} reason. */
    public long sessionsRefused() {
        long n = 0;
        for (Rejection.Reason r : Rejection.Reason.all()) {
            if (r.newSession()) {
                n += refusals[r.ordinal()];
            }
        }
        return n;
    }

    /** Of the rejected, refused because the queue was full ({@link Rejection.Reason#QUEUE_FULL}). */
    public long queueFull() {
        return refused(Rejection.Reason.QUEUE_FULL);
    }

    /**
     * New sessions refused by the queue triggers (j, k) or the queue guard, and stateless requests refused while the
     * class rationed new sessions ({@link Rejection.Reason#SESSION_QUEUED}).
     */
    public long sessionsRefusedQueued() {
        return refused(Rejection.Reason.SESSION_QUEUED);
    }

    /** New sessions refused by the session rate ({@link Rejection.Reason#SESSION_RATE}). */
    public long sessionsRefusedRate() {
        return refused(Rejection.Reason.SESSION_RATE);
    }

    /**
     * New sessions refused because the class's content level was 0 ({@link Rejection.Reason#SESSION_LEVEL}; counted
     * in {@code rejected}, not in the other refusals).
     */
    public long sessionsRefusedLevel() {
        return refused(Rejection.Reason.SESSION_LEVEL);
    }

    /**
     * New sessions refused because their client address was above its fair share while the class rationed them
     * ({@code admission.max-new-sessions-per-address}, {@link Rejection.Reason#SESSION_ADDRESS}).
     */
    public long sessionsRefusedAddress() {
        return refused(Rejection.Reason.SESSION_ADDRESS);
    }

    /**
     * Of the rejected, requests refused because their session's line was full: the class's {@code max-queue} of its
     * requests already waited there ({@link Rejection.Reason#SESSION_LIMIT}).
     */
    public long sessionLimited() {
        return refused(Rejection.Reason.SESSION_LIMIT);
    }

    /**
     * Of the rejected, requests that would have waited while {@code admission.max-queued-per-address} requests from
     * their address waited ({@link Rejection.Reason#ADDRESS_LIMIT}).
     */
    public long addressLimited() {
        return refused(Rejection.Reason.ADDRESS_LIMIT);
    }

    /**
     * Of the rejected, streams refused because {@code streams.max-open} were open
     * ({@link Rejection.Reason#STREAMS_FULL}).
     */
    public long streamsFull() {
        return refused(Rejection.Reason.STREAMS_FULL);
    }

    /** The completed requests by content level, 0..M (a copy). */
    @Override
    public long[] completedByLevel() {
        return completedByLevel.clone();
    }

    /** The completed requests served at content level {@code level} (0..M; no copy). */
    public long completedAtLevel(int level) {
        return completedByLevel[level];
    }

    /** The wait bucket counts (a copy). */
    @Override
    public long[] waitBuckets() {
        return waitBuckets.clone();
    }

    /** The cumulative count in one wait bucket (no copy). */
    public long waitBucket(int i) {
        return waitBuckets[i];
    }

    /** Requests that entered and have not ended yet: executing, waiting, and open streams. */
    public long inFlight() {
        return executing + queued + streams + lined;
    }

    /** Mean time a granted request waited for its permit, in nanoseconds; 0 before the first grant. */
    public double meanWaitNanos() {
        return grants == 0 ? 0 : (double) waitNanos / grants;
    }

    /** Whether the counters reconcile (they always should; tests assert it). */
    public boolean reconciles() {
        return entered == completed + declined + rejected + expired + cancelled + executing + queued + streams
                + lined;
    }
}

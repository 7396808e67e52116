package dev.servletqos.control;

/**
 * One class over one sampling period. Rates are per second of the period; times in seconds. Queue delay is
 * the time a request waited for its permit, counted for the requests granted in the period (a request run at
 * once waited 0).
 *
 * @param name          the class
 * @param budget        its budget at the end of the period
 * @param arrivals      requests that entered, per second
 * @param grants        permits granted (at once or after waiting), per second
 * @param completions   requests the application finished, per second
 * @param refusals      requests refused, expired or cancelled, per second
 * @param meanWait      mean queue delay of the requests granted in the period; NaN if none was granted
 * @param waits         the queue delays of the granted requests, as a histogram (for quantiles)
 * @param meanService   mean service time (grant to completion) of the requests completed in the period (all of
 *                      them while requests wait, one in eight otherwise); NaN if none was timed
 * @param bytes         response bytes of the completed requests, per second
 * @param busy          mean number of permits this class held over the period, by Little's law: completion
 *                      rate x mean service time (NaN when completions had no timed service time)
 * @param share         {@code busy / maxExecuting}: the class's share of the total concurrency, 0..1
 * @param queued        requests waiting at the end of the period
 * @param executing     requests holding a permit at the end of the period
 * @param sessions      new sessions admitted, per second
 * @param sessionsRefused new sessions refused by admission, per second
 * @param sessionsHeld  new sessions refused by a limit other than the class's own admission (an address above its
 *                      fair share, the content level), per second: not demand the class's rate left unmet, and not
 *                      requests of admitted sessions either
 * @param stateless     stateless requests admitted (a session-less caller's, made no session), per second: no
 *                      session's requests
 */
public record ClassSample(String name, int budget, double arrivals, double grants, double completions,
                          double refusals, double meanWait, WaitHistogram waits, double meanService, double bytes,
                          double busy, double share, int queued, int executing, double sessions,
                          double sessionsRefused, double sessionsHeld, double stateless) {

    /** A period in which no request was admitted stateless. */
    public ClassSample(String name, int budget, double arrivals, double grants, double completions,
                       double refusals, double meanWait, WaitHistogram waits, double meanService, double bytes,
                       double busy, double share, int queued, int executing, double sessions,
                       double sessionsRefused, double sessionsHeld) {
        this(name, budget, arrivals, grants, completions, refusals, meanWait, waits, meanService, bytes, busy, share,
                queued, executing, sessions, sessionsRefused, sessionsHeld, 0);
    }

    /** A period in which no new session was held by a limit other than the class's own admission. */
    public ClassSample(String name, int budget, double arrivals, double grants, double completions,
                       double refusals, double meanWait, WaitHistogram waits, double meanService, double bytes,
                       double busy, double share, int queued, int executing, double sessions,
                       double sessionsRefused) {
        this(name, budget, arrivals, grants, completions, refusals, meanWait, waits, meanService, bytes, busy, share,
                queued, executing, sessions, sessionsRefused, 0, 0);
    }

    /**
     * The queue delay a law measures: the mean for {@code quantile = 0}, else that quantile (e.g. 0.95) of
     * the granted requests' waits. NaN when no request was granted in the period.
     */
    public double delay(double quantile) {
        return quantile <= 0 ? meanWait : waits.quantile(quantile);
    }

    /** Whether any request of the class was granted in the period (else its delay says nothing). */
    public boolean active() {
        return waits.count() > 0;
    }
}

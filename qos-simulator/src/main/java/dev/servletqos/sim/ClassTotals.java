package dev.servletqos.sim;

/**
 * One class's counts over the whole run (the load and the drain after it), from the simulator's side, to
 * compare with theory and with the engine's counters. Times in seconds.
 *
 * @param arrivals           requests that entered the engine
 * @param grants             permits granted
 * @param completions        requests completed
 * @param rejections         requests refused at entry
 * @param sessionRefusals    of those, refused by session admission (triggers j/k or the session rate)
 * @param laterAdmissionRefusals requests of an admitted session refused by session admission: always 0 when the
 *                           admission cookie works
 * @param expirations        requests expired in the queue
 * @param sessionsStarted    sessions started (first attempts and retries)
 * @param sessionsCompleted  sessions whose every request completed
 * @param sessionsRefused    sessions whose first request was refused
 * @param sessionsFailed     admitted sessions that lost a request
 * @param queueDelaySeconds  the queue delays of the granted requests, summed
 * @param expiredWaitSeconds the waits of the expired requests, summed
 * @param responseSeconds    the response times of the completed requests, summed
 * @param serviceSeconds     the service times of the completed requests, summed
 */
public record ClassTotals(long arrivals, long grants, long completions, long rejections, long sessionRefusals,
                          long laterAdmissionRefusals, long expirations, long sessionsStarted,
                          long sessionsCompleted, long sessionsRefused, long sessionsFailed,
                          double queueDelaySeconds, double expiredWaitSeconds, double responseSeconds,
                          double serviceSeconds) {

    /** Mean queue delay of the granted requests; NaN without grants. */
    public double meanQueueDelay() {
        return grants == 0 ? Double.NaN : queueDelaySeconds / grants;
    }

    /** Mean response time of the completed requests; NaN without completions. */
    public double meanResponseTime() {
        return completions == 0 ? Double.NaN : responseSeconds / completions;
    }

    /** Mean service time of the completed requests; NaN without completions. */
    public double meanServiceTime() {
        return completions == 0 ? Double.NaN : serviceSeconds / completions;
    }
}

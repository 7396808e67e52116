package dev.servletqos.policy;

import java.time.Duration;

/**
 * The policy-wide admission limits ({@code admission.*}): the WebQoS triggers every class inherits, how a refusal
 * is answered, and the per-session and per-address limits. Immutable and thread-safe; build with
 * {@link #DEFAULTS} and the {@code with} methods. Ranges are checked by {@link #check()}, which
 * {@link QosPolicy.Builder#build()} calls.
 *
 * @param totalQueuedTrigger       {@code admission.total-queued}: WebQoS trigger j for every class but the
 *                                 highest; 0 (default) is off; 0 or more requests
 * @param higherQueuedTrigger      {@code admission.higher-queued}: WebQoS trigger k; 0 (default) is off; 0 or more
 *                                 requests
 * @param rejectStatus             {@code admission.reject-status}: the status of a refusal, 503 (default) or 429
 * @param retryAfter               {@code admission.retry-after}: the {@code Retry-After} of refusals; default 10 s;
 *                                 0s..1d
 * @param maxPerSession            {@code admission.max-per-session}: the most requests one admitted session may have
 *                                 executing or waiting in their class's queue at once; its others wait in the
 *                                 session's line; 0 = no limit; default {@value #DEFAULT_MAX_PER_SESSION}
 * @param maxQueuedPerAddress      {@code admission.max-queued-per-address}: the least share of a scarce queue one
 *                                 client address keeps: while a class's queue is half full or the class rations new
 *                                 sessions, and other addresses wait too, an anonymous request that would wait is
 *                                 refused once its address has {@code max(this, max-queue / addresses waiting)}
 *                                 waiting; 0 = no limit; default {@value #DEFAULT_MAX_QUEUED_PER_ADDRESS}
 * @param maxNewSessionsPerAddress {@code admission.max-new-sessions-per-address}: the least share of its class's new
 *                                 sessions one client address keeps while the class rations them, per second
 *                                 (capped at half of what the class admits); above it an address gets its max-min
 *                                 fair share. 0 = no per-address share at all; default 1
 */
public record AdmissionLimits(int totalQueuedTrigger, int higherQueuedTrigger, int rejectStatus, Duration retryAfter,
                              int maxPerSession, int maxQueuedPerAddress, double maxNewSessionsPerAddress) {

    /**
     * Default of {@code admission.max-per-session}: a browser opens at most six HTTP/1.1 connections to a host, so
     * eight requests at once of one session are as many as a browser's, and a cookie shared by many clients gets
     * no more of the server.
     */
    public static final int DEFAULT_MAX_PER_SESSION = 8;
    /**
     * Default of {@code admission.max-queued-per-address}: a tenth of one class's default queue, the least share of a
     * scarce queue each address keeps (it binds only while the queue is half full or its class rations new sessions,
     * and other addresses wait too).
     */
    public static final int DEFAULT_MAX_QUEUED_PER_ADDRESS = 100;
    /**
     * Default of {@code admission.max-new-sessions-per-address}, in new sessions per second: the least share of its
     * class's new sessions an address keeps while the class rations them (above it, the address gets its max-min
     * fair share). Small, so that the share a flood keeps at the floor is taken from nobody's demand.
     */
    public static final double DEFAULT_MAX_NEW_SESSIONS_PER_ADDRESS = 1;

    /** Every limit at its default. */
    public static final AdmissionLimits DEFAULTS = new AdmissionLimits(0, 0, 503, Duration.ofSeconds(10),
            DEFAULT_MAX_PER_SESSION, DEFAULT_MAX_QUEUED_PER_ADDRESS, DEFAULT_MAX_NEW_SESSIONS_PER_ADDRESS);

    /** {@code admission.total-queued}: WebQoS trigger j, 0 (off) or more. */
    public AdmissionLimits withTotalQueuedTrigger(int j) {
        return new AdmissionLimits(j, higherQueuedTrigger, rejectStatus, retryAfter, maxPerSession,
                maxQueuedPerAddress, maxNewSessionsPerAddress);
    }

    /** {@code admission.higher-queued}: WebQoS trigger k, 0 (off) or more. */
    public AdmissionLimits withHigherQueuedTrigger(int k) {
        return new AdmissionLimits(totalQueuedTrigger, k, rejectStatus, retryAfter, maxPerSession,
                maxQueuedPerAddress, maxNewSessionsPerAddress);
    }

    /** {@code admission.reject-status}: 503 or 429. */
    public AdmissionLimits withRejectStatus(int status) {
        return new AdmissionLimits(totalQueuedTrigger, higherQueuedTrigger, status, retryAfter, maxPerSession,
                maxQueuedPerAddress, maxNewSessionsPerAddress);
    }

    /** {@code admission.retry-after}: 0s..1d. */
    public AdmissionLimits withRetryAfter(Duration d) {
        return new AdmissionLimits(totalQueuedTrigger, higherQueuedTrigger, rejectStatus, d, maxPerSession,
                maxQueuedPerAddress, maxNewSessionsPerAddress);
    }

    /** {@code admission.max-per-session}: 0 (no limit)..1000000 requests. */
    public AdmissionLimits withMaxPerSession(int n) {
        return new AdmissionLimits(totalQueuedTrigger, higherQueuedTrigger, rejectStatus, retryAfter, n,
                maxQueuedPerAddress, maxNewSessionsPerAddress);
    }

    /** {@code admission.max-queued-per-address}: 0 (no limit)..1000000 requests. */
    public AdmissionLimits withMaxQueuedPerAddress(int n) {
        return new AdmissionLimits(totalQueuedTrigger, higherQueuedTrigger, rejectStatus, retryAfter, maxPerSession,
                n, maxNewSessionsPerAddress);
    }

    /** {@code admission.max-new-sessions-per-address}: 0 (off)..1000000 new sessions per second. */
    public AdmissionLimits withMaxNewSessionsPerAddress(double perSecond) {
        return new AdmissionLimits(totalQueuedTrigger, higherQueuedTrigger, rejectStatus, retryAfter, maxPerSession,
                maxQueuedPerAddress, perSecond);
    }

    /**
     * {@code admission.new-sessions-per-address-burst}, retired: an address's new sessions are a fair share of its
     * class's admissions, with no bucket of their own. The key table keeps the row so that a file setting it fails.
     *
     * @throws IllegalArgumentException always, with the reason
     */
    static AdmissionLimits retiredBurst(AdmissionLimits a, int sessions) {
        throw new IllegalArgumentException("is no longer used: an address's new sessions are a fair share of its "
                + "class's admissions while the class rations them, with no bucket of their own "
                + "(admission.max-new-sessions-per-address is the least share); remove the key, see "
                + "docs/configuration.md, Admission");
    }

    /** The WebQoS triggers' checks: the classes inherit the triggers, so these come before the classes'. */
    void checkTriggers() {
        ClassPolicy.check(totalQueuedTrigger >= 0, "admission.total-queued", totalQueuedTrigger,
                "must be 0 (off) or more");
        ClassPolicy.check(higherQueuedTrigger >= 0, "admission.higher-queued", higherQueuedTrigger,
                "must be 0 (off) or more");
    }

    /**
     * Checks every limit.
     *
     * @throws PolicyException naming the key and the value of the first bad limit
     */
    public void check() {
        checkTriggers();
        ClassPolicy.check(rejectStatus == 503 || rejectStatus == 429, "admission.reject-status", rejectStatus,
                "must be 503 or 429");
        ClassPolicy.check(retryAfter != null && !retryAfter.isNegative() && retryAfter.getSeconds() <= 86_400,
                "admission.retry-after", retryAfter, "must be 0s..1d");
        ClassPolicy.check(maxPerSession >= 0 && maxPerSession <= 1_000_000, "admission.max-per-session",
                maxPerSession, "must be 0 (no limit)..1000000");
        ClassPolicy.check(maxQueuedPerAddress >= 0 && maxQueuedPerAddress <= 1_000_000,
                "admission.max-queued-per-address", maxQueuedPerAddress, "must be 0 (no limit)..1000000");
        ClassPolicy.check(maxNewSessionsPerAddress >= 0 && maxNewSessionsPerAddress <= 1_000_000,
                "admission.max-new-sessions-per-address", maxNewSessionsPerAddress,
                "must be 0 (no limit)..1000000 new sessions per second");
    }
}

package dev.servletqos;

import java.util.List;

/**
 * One step of new-session admission (paper 004 section 4.3, paper 002): asked in order for the first request
 * of a session that is not known yet; the first step that refuses decides. Package-private; called by
 * {@link Scheduler} under its lock, so a step may read the lanes and counters freely.
 */
interface AdmissionStep {

    /**
     * The refusal for a new session of {@code lane} now, or null to let the next step decide. With {@code count}, the
     * refusal is made (the scheduler counts it by its reason); without, the step changes nothing (a dry run: would the
     * class admit a new session now?), and its refusal's Retry-After means nothing.
     */
    Rejection refuse(Lane lane, Scheduler scheduler, long now, boolean count);

    /**
     * The steps with {@code control.admission = triggers}, in order: the queue triggers (j, k), then the class's
     * session rate (configured). Stateless: the refusals are the scheduler's.
     */
    List<AdmissionStep> TRIGGERS = List.of(AdmissionStep::queueTriggers, AdmissionStep::sessionRate);

    /**
     * The steps with {@code control.admission = auto}, in order: the queue guard, then the class's session rate
     * (set by the admission law). The scheduler picks the list from the settings in force, so the mode can change
     * live.
     */
    List<AdmissionStep> AUTO = List.of(AdmissionStep::queueGuard, AdmissionStep::sessionRate);

    /**
     * WebQoS triggers (paper 004): refuse a new session of a class while at least j requests are queued in
     * all classes, or at least k in the classes above it.
     */
    static Rejection queueTriggers(Lane lane, Scheduler s, long now, boolean count) {
        if ((lane.totalQueuedTrigger > 0 && s.queued() >= lane.totalQueuedTrigger)
                || (lane.higherQueuedTrigger > 0 && s.queuedAbove(lane.index) >= lane.higherQueuedTrigger)) {
            return s.rejections().of(Rejection.Reason.SESSION_QUEUED);
        }
        return null;
    }

    /**
     * With {@code control.admission = auto}: refuse a new session of a class while the requests queued in it and
     * the classes above it would take longer than the class's delay target to start, each at its route's recent
     * mean service time ({@link Scheduler#queuedWorkNanos}), on the permits the class may use: those neither the classes above hold nor the other classes'
     * reserves keep ({@code queued x service / those permits}); and while the oldest request waiting in the class
     * is overdue (served before any policy order: its admitted sessions are already late).
     * The admission law's rate acts per period; this guard acts at once, so that a crowd that arrives within a
     * period, or before the law has measured anything, is held too. Retry-After: the time that queue needs to
     * fall back to the target.
     */
    static Rejection queueGuard(Lane lane, Scheduler s, long now, boolean count) {
        double service = s.meanServiceNanos();
        if (!(service > 0)) {
            return null;
        }
        double permits = Math.max(1, s.maxExecuting() - s.executingAbove(lane.index) - s.reservedFor(lane));
        double predicted = s.queuedWorkNanos(lane.index) / permits;
        // a class whose oldest waiting request is overdue (served before any policy order, as its admitted
        // sessions are already late) has no room for a new session, whatever the permits free this instant: the
        // permits its overdue requests take look free to the prediction, and admitting on them fed the backlog
        long late = lane.head == null ? Long.MIN_VALUE
                : now - lane.head.enteredNanos - Scheduler.overdueAfterNanos(lane);
        if (predicted <= lane.delayTargetNanos && late < 0) {
            return null;
        }
        return s.rejections().of(Rejection.Reason.SESSION_QUEUED, Math.max(predicted - lane.delayTargetNanos, 0) / 1e9);
    }

    /**
     * Whether the class's queue steps are about to refuse: with {@code control.admission = auto}, the queue guard's
     * predicted start delay is at least half the class's delay target; with the triggers, the queues are at least
     * half way to j or k. The scheduler counts such a class as rationing its new sessions, so that the per-address
     * shares bind before the steps refuse anyone (a flood held only once they refuse fills the queue again each
     * time they stop). Changes nothing.
     */
    static boolean queueScarce(Lane lane, Scheduler s) {
        if (!s.autoAdmission()) {
            return (lane.totalQueuedTrigger > 0 && 2L * s.queued() >= lane.totalQueuedTrigger)
                    || (lane.higherQueuedTrigger > 0 && 2L * s.queuedAbove(lane.index) >= lane.higherQueuedTrigger);
        }
        double service = s.meanServiceNanos();
        if (!(service > 0)) {
            return false;
        }
        double permits = Math.max(1, s.maxExecuting() - s.executingAbove(lane.index) - s.reservedFor(lane));
        return 2 * s.queuedWorkNanos(lane.index) / permits >= lane.delayTargetNanos;
    }

    /**
     * The class's session token bucket (paper 002's policer): at most {@code session-rate} new sessions/s (the
     * scheduler takes the token when it admits the session). With {@code control.admission = auto}, Retry-After
     * is the time the bucket needs to admit the sessions refused in the last second and this one.
     */
    static Rejection sessionRate(Lane lane, Scheduler s, long now, boolean count) {
        if (lane.sessions.available(now)) { // refills the bucket to now: no change of what it admits
            return null;
        }
        if (!count || !s.autoAdmission()) {
            return s.rejections().of(Rejection.Reason.SESSION_RATE);
        }
        double recent = lane.recentRefusals(now);
        double rate = lane.sessions.rate();
        return s.rejections().of(Rejection.Reason.SESSION_RATE, rate > 0 ? recent / rate : Double.POSITIVE_INFINITY);
    }

    /**
     * The engine's refusals, made when first needed and kept (their bodies are shared byte arrays): those with the
     * policy's {@code admission.retry-after} jittered, one per reason and whole number of seconds it can take, and the
     * refusals with a Retry-After from state (the session refusals of automatic admission), one per reason and whole
     * number of seconds from 1 to that value. The status of each is its reason's
     * ({@link Rejection.Reason#status(int)}).
     */
    final class Rejections {
        private final int rejectStatus;
        /** {@code admission.retry-after} in whole seconds, and the fewest it becomes with jitter. */
        private final long seconds;
        private final long fewest;
        /** By reason ({@link Rejection.Reason#ordinal()}), by jittered seconds less {@link #fewest}. */
        private final Rejection[][] jittered;
        /**
         * By reason, by whole seconds 0..min(seconds, 3600); a reason's row is made when first needed, under the
         * scheduler's lock (the admission steps ask for them).
         */
        private final Rejection[][] bySeconds;
        private final int slots;

        Rejections(int rejectStatus, java.time.Duration retryAfter) {
            // Retry-After is whole seconds; round up so that 500ms is not sent as "retry at once".
            this.seconds = retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0);
            this.fewest = (long) Math.ceil(seconds * 0.75);
            this.rejectStatus = rejectStatus;
            int jitters = (int) ((long) Math.ceil(seconds * 1.25) - fewest + 1); // at most 1d: 43201 slots
            int reasons = Rejection.Reason.all().length;
            this.jittered = new Rejection[reasons][jitters];
            this.bySeconds = new Rejection[reasons][];
            this.slots = (int) Math.max(1, Math.min(seconds, 3600));
        }

        /**
         * A refusal for {@code reason} with the policy's retry-after times a random factor of 0.75..1.25, rounded up
         * (10 s gives 8 to 13 s), so that the clients refused together do not all come back together; 0 stays 0.
         */
        Rejection of(Rejection.Reason reason) {
            Rejection[] cache = jittered[reason.ordinal()];
            double factor = 0.75 + 0.5 * java.util.concurrent.ThreadLocalRandom.current().nextDouble();
            long s = Math.max(fewest, Math.min(fewest + cache.length - 1, (long) Math.ceil(seconds * factor)));
            int i = (int) (s - fewest);
            Rejection r = cache[i];
            if (r == null) {
                r = new Rejection(reason.status(rejectStatus), s, reason); // immutable: a racing copy is harmless
                cache[i] = r;
            }
            return r;
        }

        /**
         * A refusal for {@code reason} with a Retry-After from state, for a class expected to admit again in
         * {@code seconds}: that time, times a random factor of 0.75..1.25 (so that the clients refused together do
         * not all come back together), rounded up, at least 1 s and at most the policy's
         * {@code admission.retry-after}. Under the scheduler's lock.
         */
        Rejection of(Rejection.Reason reason, double seconds) {
            Rejection[] cache = bySeconds[reason.ordinal()];
            if (cache == null) {
                cache = new Rejection[slots + 1];
                bySeconds[reason.ordinal()] = cache;
            }
            double jittered = seconds * (0.75 + 0.5 * java.util.concurrent.ThreadLocalRandom.current().nextDouble());
            int last = cache.length - 1; // the policy's retry-after (at most an hour)
            int s = Double.isNaN(jittered) ? last : (int) Math.max(1, Math.min(last, Math.ceil(jittered)));
            Rejection r = cache[s];
            if (r == null) {
                r = new Rejection(reason.status(rejectStatus), s, reason); // immutable: a racing copy is harmless
                cache[s] = r;
            }
            return r;
        }
    }
}

package dev.servletqos;

import java.util.ArrayList;
import java.util.List;

/**
 * One step of new-session admission (paper 004 section 4.3, paper 002): asked in order for the first request
 * of a session that is not known yet; the first step that refuses decides. Package-private; called by
 * {@link Scheduler} under its lock, so a step may read the lanes and counters freely.
 */
interface AdmissionStep {

    /**
     * The refusal for a new session of {@code lane} now, or null to let the next step decide. A step that
     * refuses also counts the refusal in the lane's counters.
     */
    Rejection refuse(Scheduler.Lane lane, Scheduler scheduler, long now);

    /** A new session of {@code lane} was admitted (its first request was not refused). */
    default void admitted(Scheduler.Lane lane) {
    }

    /** The steps in force for this policy: queue triggers (j, k), then the class's session rate. */
    static List<AdmissionStep> steps(Rejections rejections) {
        List<AdmissionStep> steps = new ArrayList<>(2);
        steps.add(new QueueTriggers(rejections.sessionQueued));
        steps.add(new SessionRate(rejections.sessionRate));
        return List.copyOf(steps);
    }

    /**
     * WebQoS triggers (paper 004): refuse a new session of a class while at least j requests are queued in
     * all classes, or at least k in the classes above it.
     */
    final class QueueTriggers implements AdmissionStep {
        private final Rejection refusal;

        QueueTriggers(Rejection refusal) {
            this.refusal = refusal;
        }

        @Override
        public Rejection refuse(Scheduler.Lane lane, Scheduler s, long now) {
            if ((lane.totalQueuedTrigger > 0 && s.queued() >= lane.totalQueuedTrigger)
                    || (lane.higherQueuedTrigger > 0 && s.queuedAbove(lane.index) >= lane.higherQueuedTrigger)) {
                lane.sessionsRefusedQueued++;
                return refusal;
            }
            return null;
        }
    }

    /** The class's session token bucket (paper 002's policer): at most {@code session-rate} new sessions/s. */
    final class SessionRate implements AdmissionStep {
        private final Rejection refusal;

        SessionRate(Rejection refusal) {
            this.refusal = refusal;
        }

        @Override
        public Rejection refuse(Scheduler.Lane lane, Scheduler s, long now) {
            if (!lane.sessions.available(now)) {
                lane.sessionsRefusedRate++;
                return refusal;
            }
            return null;
        }

        @Override
        public void admitted(Scheduler.Lane lane) {
            lane.sessions.take();
        }
    }

    /** The engine's refusals, made once per engine (their bodies are shared byte arrays). */
    final class Rejections {
        final Rejection queueFull;
        final Rejection expired;
        final Rejection sessionQueued;
        final Rejection sessionRate;

        Rejections(int rejectStatus, java.time.Duration retryAfter) {
            // Retry-After is whole seconds; round up so that 500ms is not sent as "retry at once".
            long seconds = retryAfter.getSeconds() + (retryAfter.getNano() > 0 ? 1 : 0);
            this.queueFull = new Rejection(503, seconds, Rejection.Reason.QUEUE_FULL);
            this.expired = new Rejection(503, seconds, Rejection.Reason.EXPIRED);
            this.sessionQueued = new Rejection(rejectStatus, seconds, Rejection.Reason.SESSION_QUEUED);
            this.sessionRate = new Rejection(rejectStatus, seconds, Rejection.Reason.SESSION_RATE);
        }
    }
}

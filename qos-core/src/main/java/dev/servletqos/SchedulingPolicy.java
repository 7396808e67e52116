package dev.servletqos;

import dev.servletqos.policy.QosPolicy.Scheduling;

/**
 * Which class with waiting requests is served next, one of the five policies of paper 004 section 4.4.
 * Package-private; called by {@link Scheduler} under its lock. Shared and fixed capacity choose like strict
 * priority: what sets them apart (reserves never lent, no borrowing) is enforced by who may start at all.
 */
interface SchedulingPolicy {

    /** Stride scheduling: a dispatch advances a class's pass by STRIDE / weight. */
    long STRIDE = 1L << 20;

    /**
     * Whether {@code candidate} is served before {@code best}, both with waiting requests that may start.
     * Lanes are offered highest priority first.
     */
    boolean before(Lane candidate, Lane best);

    /** Whether the first eligible lane in priority order is always the answer (no need to look further). */
    default boolean firstWins() {
        return false;
    }

    /** A permit was granted to a request of {@code lane}. */
    default void granted(Lane lane) {
    }

    /** A request joins {@code lane}'s queue, which was empty. */
    default void becameBusy(Lane lane) {
    }

    /** The policy for the configured scheduling. */
    static SchedulingPolicy of(Scheduling s) {
        switch (s) {
            case WEIGHTED:
                return new Weighted();
            case EARLIEST_DEADLINE:
                return (candidate, best) -> candidate.head.timeNanos - best.head.timeNanos < 0; // deadlines
            default:
                return StrictPriority.INSTANCE;
        }
    }

    /** Higher classes always first (also shared and fixed capacity). */
    enum StrictPriority implements SchedulingPolicy {
        INSTANCE;

        @Override
        public boolean before(Lane candidate, Lane best) {
            return false;
        }

        @Override
        public boolean firstWins() {
            return true;
        }
    }

    /**
     * Weighted (stride scheduling): the smallest pass is served, and each grant advances a class's pass by
     * {@code STRIDE / weight}, so busy classes get grants in proportion to their weights.
     */
    final class Weighted implements SchedulingPolicy {
        /** The pass of the last dispatch, where a class that becomes busy again starts. */
        private long virtualPass;

        @Override
        public boolean before(Lane candidate, Lane best) {
            return candidate.pass < best.pass;
        }

        @Override
        public void granted(Lane lane) {
            virtualPass = Math.max(virtualPass, lane.pass);
            lane.pass += STRIDE / lane.weight;
        }

        @Override
        public void becameBusy(Lane lane) {
            // A class that was idle does not bank credit for the time it had nothing to run.
            lane.pass = Math.max(lane.pass, virtualPass);
        }
    }
}

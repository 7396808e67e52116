package dev.servletqos;

import dev.servletqos.Ticket.State;

/**
 * The streams open now ({@code streams.*}): requests whose application went asynchronous and that gave their permit
 * back ({@link Scheduler#detach}), counted in their class until they end. Not thread-safe: the {@link Scheduler}'s lock
 * guards it (methods named {@code ...Locked}).
 */
final class StreamPool {

    /** Streams open now, all classes. */
    int open;
    /** Of those, streams of no admitted session. */
    private int anonymous;

    /**
     * Whether a stream (of no admitted session: {@code anonymous}) finds the pool full: {@code maxOpen} open
     * ({@code streams.max-open} of the policy in force), or for an anonymous one, half of them (rounded up) anonymous,
     * so that a flood of cookie-less streams leaves the other half to the sessions admitted.
     */
    boolean fullLocked(int maxOpen, boolean anonymous) {
        return open >= maxOpen || anonymous && this.anonymous >= (maxOpen + 1) / 2;
    }

    /** RUNNING ticket {@code t} of {@code lane} became an open stream (its permit was given back). */
    void openedLocked(Ticket t, Lane lane) {
        lane.streams++;
        open++;
        if (t.anonymousStream) {
            anonymous++;
        }
        t.stream = true;
    }

    /** Ends open stream {@code t} (RUNNING): it leaves the open streams, completed or declined, never timed. */
    void closedLocked(Ticket t, Lane lane, boolean declined) {
        lane.streams--;
        open--;
        if (t.anonymousStream) {
            anonymous--;
        }
        if (declined) {
            t.state = State.DECLINED;
            lane.declined++;
        } else {
            t.state = State.COMPLETED;
            lane.completed++;
            lane.completedByLevel[Math.min(t.level, lane.levels)]++;
        }
    }
}

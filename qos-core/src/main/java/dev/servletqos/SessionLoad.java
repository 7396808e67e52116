package dev.servletqos;

/**
 * One admitted session's requests in flight, for {@code admission.max-per-session}, and its cookie renewals: shared
 * by the session's entries in the session table (its cookie and its renewals). Guarded by the {@link Scheduler}'s lock.
 *
 * <p>{@link #requests} are those executing or waiting in their class's queue: at most max-per-session (but after a
 * reload lowered it). The session's further requests wait in its line, first come first served, holding no thread
 * (PARKED tickets like any waiting request): each time one of the counted requests ends, the line's first moves on
 * to its class's queue, in its place by arrival, and from there to a permit.
 */
final class SessionLoad {
    int requests;
    /** The session's line: its oldest waiting request, the newest, and how many (linked by Ticket.lineNext). */
    Ticket lineHead;
    Ticket lineTail;
    int lined;
    /** The admitted-until of the newest cookie this node issued the session (served, or on its way); 0: none. */
    long newestUntil;
    /** The request carrying a renewal not yet served, else null: its end undoes the renewal unless served. */
    Ticket renewing;
    /** {@link #newestUntil} before the renewal that {@link #renewing} carries. */
    long newestBefore;
}

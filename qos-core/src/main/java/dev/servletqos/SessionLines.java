package dev.servletqos;

import dev.servletqos.Ticket.State;

/**
 * The sessions' lines ({@code admission.max-per-session}) and cookie renewals: a session with max-per-session requests
 * executing or in their class's queue has its further requests wait in its own line ({@link SessionLoad}), first come
 * first served, PARKED and holding no thread; each time one of its counted requests ends, the line's first moves on to
 * its class's queue, in its place by arrival. Each line ticket is also in its class's list of line tickets
 * ({@link Lane#lineHead}, linked by {@link Ticket#prev} and {@link Ticket#next}), for the expiry sweep.
 *
 * <p>Not thread-safe: the {@link Scheduler}'s lock guards it (methods named {@code ...Locked}).
 */
final class SessionLines {

    private final Scheduler scheduler;
    /** {@code admission.max-per-session}; 0 = no limit. Read without the lock by the fast path. */
    private volatile int maxPerSession;
    /** Requests waiting in their sessions' lines, all classes (not in the scheduler's queued count). */
    int lined;
    /** Requests ever moved from a session's line to their class's queue: tells a caller to dispatch. */
    long moves;

    SessionLines(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Takes a policy's {@code admission.max-per-session}; the lines stay ({@link #moveAllOnLocked}). */
    void configureLocked(int maxPerSession) {
        this.maxPerSession = maxPerSession;
    }

    /** {@code admission.max-per-session} in force; 0 = no limit. Thread-safe. */
    int maxPerSession() {
        return maxPerSession;
    }

    /**
     * Whether a request of session {@code load} waits in its session's line: the session has max-per-session requests
     * in flight, or others in its line already (then the line is marked, {@link SessionLoad#LINE}); else the request
     * is counted in flight now ({@link SessionLoad#countOrLineLocked}). The caller undoes either if the request is
     * refused ({@link #refusedLocked}).
     */
    boolean waitsLocked(SessionLoad load) {
        return !load.countOrLineLocked(maxPerSession);
    }

    /**
     * A request placed for session {@code load} was refused: uncounted (its line moves on: returns whether, the caller
     * dispatches), or, when it would have waited in the line ({@code lined}), the line's mark goes if the line is empty.
     */
    boolean refusedLocked(SessionLoad load, boolean lined, long now) {
        if (lined) {
            load.lineEmptiedLocked();
            return false;
        }
        load.addLocked(-1);
        return moveOnLocked(load, now);
    }

    /**
     * Claims the renewal of a session's admission cookie for ticket {@code t}, which presented a cookie valid until
     * {@code presentedUntil}: granted only if the session has no newer cookie on this node, served or on its way,
     * and {@code t} is running or waiting. So one cookie is renewed once, for one of the clients presenting it (a
     * cookie shared by many does not renew for all of them); if the request carrying the renewal ends without being
     * served (refused after waiting, cancelled, declined), the renewal is undone and the next request presenting the
     * cookie may claim it ({@link #endedLocked}).
     *
     * @param until the admitted-until of the renewed cookie
     */
    boolean claimRenewalLocked(SessionLoad load, Ticket t, long presentedUntil, long until) {
        if (load.newestUntil > presentedUntil || (t.state != State.RUNNING && t.state != State.PARKED)) {
            return false;
        }
        load.newestBefore = load.newestUntil;
        load.newestUntil = until;
        load.renewing = t;
        return true;
    }

    /**
     * A ticket left RUNNING or PARKED for good (a class queue's ticket is unlinked by the caller): its session has one
     * request fewer in flight, or in its line, and a renewal it carried is undone unless the request was served
     * ({@code served}: completed, not declined). Then the session's line moves on ({@link #moveOnLocked}, at
     * {@code now}); returns whether it did: the caller dispatches.
     */
    boolean endedLocked(Ticket t, boolean served, long now) {
        SessionLoad load = t.load;
        if (load == null) {
            return false;
        }
        if (t.inLine()) {
            unlineLocked(t, t.lane);
        } else {
            load.addLocked(-1);
        }
        t.load = null;
        if (load.renewing == t) {
            load.renewing = null;
            if (!served) {
                load.newestUntil = load.newestBefore;
            }
        }
        return moveOnLocked(load, now);
    }

    /** Puts ticket {@code t} of class {@code lane} at the end of its session's line; it waits, PARKED. */
    void lineLocked(Ticket t, Lane lane, SessionLoad load) {
        t.load = load;
        t.waiting().inLine = true;
        t.waiting().lineNext = null;
        if (load.lineTail == null) {
            load.lineHead = t;
        } else {
            load.lineTail.waiting().lineNext = t;
        }
        load.lineTail = t;
        load.lined++;
        t.prev = lane.lineTail;
        t.next = null;
        if (lane.lineTail == null) {
            lane.lineHead = t;
        } else {
            lane.lineTail.next = t;
        }
        lane.lineTail = t;
        lane.lined++;
        lined++;
        t.state = State.PARKED;
    }

    /** Takes ticket {@code t} out of its session's line and its class's list of line tickets. */
    private void unlineLocked(Ticket t, Lane lane) {
        SessionLoad load = t.load;
        // a line is short and its first leaves first (moves on, or expires as the oldest): a walk is cheap
        Ticket before = null;
        for (Ticket x = load.lineHead; x != t; x = x.waiting().lineNext) {
            before = x;
        }
        if (before == null) {
            load.lineHead = t.waiting().lineNext;
        } else {
            before.waiting().lineNext = t.waiting().lineNext;
        }
        if (load.lineTail == t) {
            load.lineTail = before;
        }
        t.waiting().lineNext = null;
        load.lined--;
        if (t.prev == null) {
            lane.lineHead = t.next;
        } else {
            t.prev.next = t.next;
        }
        if (t.next == null) {
            lane.lineTail = t.prev;
        } else {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        t.waiting().inLine = false;
        lane.lined--;
        lined--;
        load.lineEmptiedLocked();
    }

    /**
     * While session {@code load} has fewer than max-per-session requests in flight (or no limit, after a reload), its
     * line's first moves on to its class's queue, in its place by arrival (so that the sweep finds it overdue at the
     * queue's head, and a page's requests keep their order), even when that queue is full (it was let wait when it
     * came). Returns whether one moved: the caller dispatches, which may start it at once.
     */
    private boolean moveOnLocked(SessionLoad load, long now) {
        boolean moved = false;
        while (load.lineHead != null && (maxPerSession <= 0 || load.requests() < maxPerSession)) {
            Ticket t = load.lineHead;
            Lane lane = t.lane;
            load.addLocked(1); // counted before the line's mark may go: the fast path counts again after that
            unlineLocked(t, lane);
            t.load = load;
            scheduler.dispatcher().queueByArrivalLocked(t, lane, now);
            moves++;
            moved = true;
        }
        return moved;
    }

    /**
     * After a reload raised {@code admission.max-per-session} (or put none): every session's line of {@code lanes}
     * moves on as far as the limit now lets it.
     */
    void moveAllOnLocked(Lane[] lanes, long now) {
        if (lined == 0) {
            return;
        }
        java.util.Set<SessionLoad> loads = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Lane l : lanes) {
            for (Ticket t = l.lineHead; t != null; t = t.next) {
                loads.add(t.load);
            }
        }
        for (SessionLoad load : loads) {
            moveOnLocked(load, now);
        }
    }

    /**
     * The sessions' lines of {@code lanes} checked against their invariants (for the tests' shared checker): every
     * class's list of line tickets holds its count of PARKED tickets of that class, each in its session's line; each
     * session's line holds its count; and a line waits only while its session has max-per-session requests in flight.
     * Returns what is wrong, or null.
     */
    String problemLocked(Lane[] lanes) {
        // no collections: Lincheck's model checker runs this too, and restores what it can reach
        int total = 0;
        for (Lane l : lanes) {
            int n = 0;
            for (Ticket t = l.lineHead; t != null; t = t.next) {
                n++;
                if (!t.inLine() || t.lane != l || t.state != State.PARKED || t.load == null) {
                    return t + " in " + l.name + "'s line list: inLine " + t.inLine() + ", lane " + t.lane.name;
                }
                SessionLoad load = t.load;
                int k = 0;
                boolean found = false;
                for (Ticket x = load.lineHead; x != null; x = x.waiting().lineNext) {
                    k++;
                    found |= x == t;
                    if (x.load != load || !x.inLine()) {
                        return x + " in a session's line belongs to another";
                    }
                }
                if (!found || k != load.lined) {
                    return "a session's line holds " + k + ", counts " + load.lined + (found ? "" : ", not " + t);
                }
                if (!load.lineSet()) {
                    return "a session's line of " + k + " is not marked: the fast path would count past it";
                }
                if (maxPerSession > 0 && load.requests() < maxPerSession) {
                    return "a session's line of " + k + " waits while it has " + load.requests() + " of "
                            + maxPerSession + " in flight";
                }
            }
            if (n != l.lined) {
                return l.name + " counts " + l.lined + " line tickets, its list holds " + n;
            }
            for (Ticket t = l.head; t != null; t = t.next) {
                if (t.inLine()) {
                    return t + " in " + l.name + "'s queue is marked in a line";
                }
            }
            total += n;
        }
        if (total != lined) {
            return lined + " line tickets counted, the classes hold " + total;
        }
        return null;
    }
}

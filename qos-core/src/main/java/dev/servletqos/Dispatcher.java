package dev.servletqos;

import dev.servletqos.Ticket.State;
import dev.servletqos.control.WaitHistogram;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;

/**
 * Who holds a permit and who waits for one, in the {@link Scheduler}: the permits (max-executing, budgets, reserves,
 * borrowing), the class queues and the guaranteed queue, granting and releasing permits, and picking who is served
 * next ({@link SchedulingPolicy}). Asked by the scheduler under its lock; not thread-safe.
 *
 * <p>Who may start (paper 004 section 4.4, paper 001 section III): a class may start a request while the
 * total is below {@code max-executing}, and either its own count is below its budget, or borrowing is on
 * (work conserving: idle permits of other classes are used). In every case the permits still free after the
 * start must cover the unused reserves of the other classes, so a reserve is never lent; the highest class has one
 * permit by default ({@link QosPolicy#defaultTopReserve()}), kept while max-executing is at least the given
 * reserves plus 2, so that a flood of the lower classes never makes it wait for a release. Waiting requests
 * are released by policy: own-budget starts before borrowed ones; within each, by the scheduling policy.
 * Budgets change non-preemptively: a lowered budget takes effect as requests finish, a raised one drains the
 * queue at once.
 */
final class Dispatcher {

    private final Admission admission;
    private final SessionLines lines;
    /** The scheduler's lanes, highest priority first: the same array, replaced with it ({@link #takePolicyLocked}). */
    private Lane[] lanes;
    // what the policy decides; replaced together when the policy is reloaded
    Scheduling scheduling;
    SchedulingPolicy policy;
    private boolean borrowing;
    /** The reserves the policy gives (not the highest class's default one): the least max-executing can be. */
    int reserves;
    /**
     * The highest class's default reserve ({@link QosPolicy#defaultTopReserve()}; 0: none), kept while max-executing
     * is at least {@code reserves + 2} ({@link #applyLocked}).
     */
    private int defaultReserve;
    /** The reserves in force, every class's ({@link Lane#reserve}): 0 lets {@link #canStart} skip them. */
    private int reserved;
    /** Whether new sessions are admitted by the admission law (and overdue requests served first). */
    boolean autoAdmission;
    int maxExecuting;
    int executing;
    /** Requests waiting now in the class queues and the guaranteed queue (not those in their sessions' lines). */
    int parked;
    /** Guaranteed requests waiting (all classes, FIFO): started before any other waiting request. */
    Ticket guaranteedHead;
    private Ticket guaranteedTail;

    Dispatcher(Admission admission, SessionLines lines) {
        this.admission = admission;
        this.lines = lines;
    }

    /** Takes a policy's scheduling, borrowing and reserves, and its lanes {@code next}. */
    void takePolicyLocked(QosPolicy p, Lane[] next) {
        if (p.scheduling() != scheduling) {
            scheduling = p.scheduling();
            policy = SchedulingPolicy.of(scheduling);
            for (Lane l : next) {
                l.pass = 0; // passes of another policy mean nothing to this one
            }
        }
        borrowing = p.borrowing();
        int sum = 0;
        for (Lane l : next) {
            sum += l.reserve;
        }
        defaultReserve = p.defaultTopReserve();
        reserves = sum - defaultReserve;
        reserved = sum; // until the settings are applied (applyLocked), which a policy is taken with
        lanes = next;
    }

    /** Takes clamped settings' max-executing and admission mode (the lanes take their budgets themselves). */
    void applyLocked(Settings s) {
        maxExecuting = s.maxExecuting();
        if (defaultReserve > 0) {
            // the highest class's default reserve never takes the last permit the other classes could use: with
            // max-executing 1 (and no reserve given), the lower classes would never run
            int keep = maxExecuting >= reserves + defaultReserve + 1 ? defaultReserve : 0;
            lanes[0].reserve = keep;
            reserved = reserves + keep;
        }
        autoAdmission = s.control().admission() == dev.servletqos.policy.ControlPolicy.Admission.AUTO;
    }

    private boolean canStart(Lane lane, boolean mayBorrow) {
        if (executing >= maxExecuting) {
            return false;
        }
        if (lane.executing >= lane.budget && !mayBorrow) {
            return false;
        }
        return reserved == 0 || maxExecuting - executing - 1 >= reservedFor(lane);
    }

    /**
     * The permits kept free for the other classes than {@code lane}'s: their reserves they do not use now, which
     * {@code lane} may never take. Under the lock (and the admission steps).
     */
    int reservedFor(Lane lane) {
        if (reserved == 0) {
            return 0;
        }
        int owed = 0;
        for (Lane other : lanes) {
            if (other != lane && other.reserve > other.executing) {
                owed += other.reserve - other.executing;
            }
        }
        return owed;
    }

    // Which permit a finishing request held does not matter: a class holds max(0, executing - budget)
    // borrowed permits, so the first permit it gives back is a borrowed one and goes to the class that owns it.
    private static boolean ownBudgetLeft(Lane lane) {
        return lane.executing < lane.budget;
    }

    void grantLocked(Ticket t, Lane lane, long now) {
        if (!ownBudgetLeft(lane)) {
            lane.borrowedGrants++;
        }
        lane.executing++;
        executing++;
        lane.grants++;
        policy.granted(lane);
        t.timeNanos = now;
        t.state = State.RUNNING;
    }

    void releaseLocked(Lane lane) {
        lane.executing--;
        executing--;
    }

    void enqueueLocked(Ticket t, Lane lane) {
        t.timeNanos = t.enteredNanos + lane.delayTargetNanos; // the deadline
        t.waiting().queuedNanos = t.enteredNanos;
        if (t.guaranteed) {
            t.prev = guaranteedTail;
            t.next = null;
            if (guaranteedTail == null) {
                guaranteedHead = t;
            } else {
                guaranteedTail.next = t;
            }
            guaranteedTail = t;
            lane.queued++;
            parked++;
            t.state = State.PARKED;
            return;
        }
        if (lane.head == null) {
            policy.becameBusy(lane);
        }
        t.prev = lane.tail;
        t.next = null;
        if (lane.tail == null) {
            lane.head = t;
        } else {
            lane.tail.next = t;
        }
        lane.tail = t;
        lane.queued++;
        parked++;
        t.state = State.PARKED;
    }

    void unlinkLocked(Ticket t, Lane lane) {
        if (t.prev == null) {
            if (t.guaranteed) {
                guaranteedHead = t.next;
            } else {
                lane.head = t.next;
            }
        } else {
            t.prev.next = t.next;
        }
        if (t.next == null) {
            if (t.guaranteed) {
                guaranteedTail = t.prev;
            } else {
                lane.tail = t.prev;
            }
        } else {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        lane.queued--;
        parked--;
        admission.unqueuedLocked(t);
    }

    /** Starts waiting requests while a permit and an eligible class exist; returns the chain to notify. */
    Ticket dispatchLocked(Ticket ready, long now) {
        while (parked > 0 && executing < maxExecuting) {
            Ticket t = startableGuaranteed();
            Lane lane = t != null ? t.lane : null;
            if (lane == null) {
                lane = autoAdmission ? overdue(now) : null;
                if (lane == null) {
                    lane = pick(false);
                }
                if (lane == null && borrowing) {
                    lane = pick(true);
                }
                if (lane == null) {
                    break;
                }
                t = lane.head;
            }
            unlinkLocked(t, lane);
            grantLocked(t, lane, now);
            long waited = Math.max(0, now - t.waiting().queuedNanos);
            lane.waitNanos += waited;
            lane.waitBuckets[WaitHistogram.bucket(waited)]++;
            t.readyNext = ready;
            ready = t;
        }
        return ready;
    }

    /**
     * The first waiting guaranteed request whose class may start now (borrowing allowed, reserves kept), or null:
     * one held back by another class's reserve does not hold back those behind it of classes that may start.
     */
    private Ticket startableGuaranteed() {
        for (Ticket g = guaranteedHead; g != null; g = g.next) {
            if (canStart(g.lane, true)) {
                return g;
            }
        }
        return null;
    }

    /**
     * With automatic admission, an admitted session is promised that it finishes: the class whose oldest waiting
     * request is overdue ({@link #overdueAfterNanos}; the longest past it first) is served before any policy
     * order, on any free permit (reserves still kept), so that a class squeezed out by the classes above it is
     * served before its requests expire. The classes above see that as delay, and their admission laws admit
     * fewer sessions. Null when no request is that old.
     */
    private Lane overdue(long now) {
        Lane best = null;
        long bestOver = 0;
        for (Lane lane : lanes) {
            Ticket h = lane.head;
            if (h == null) {
                continue;
            }
            long over = now - h.enteredNanos - overdueAfterNanos(lane);
            if (over >= 0 && (best == null || over > bestOver) && canStart(lane, true)) {
                best = lane;
                bestOver = over;
            }
        }
        return best;
    }

    /**
     * How long a request of the class waits before it is overdue: half its maximum wait, or three times its delay
     * target if less (750 ms and 3 s for the README's targets). A browser gives up after some seconds whatever the
     * maximum wait (the default, 10 s, is longer than most wait): served only after that, an admitted session's
     * request is work done for nobody, and the session is lost with the back-end calls it already cost (at 4x on
     * the realism suite, basic sessions let in at the step waited behind premium until 5 s, the client's timeout:
     * 0.89 of capacity).
     */
    static long overdueAfterNanos(Lane lane) {
        return Math.min(lane.maxWaitNanos / 2, 3 * lane.delayTargetNanos);
    }

    /** The class to serve next among those with waiting requests that may start, by policy; or null. */
    private Lane pick(boolean borrow) {
        Lane best = null;
        for (Lane lane : lanes) {
            if (lane.head == null) {
                continue;
            }
            boolean own = ownBudgetLeft(lane);
            if (borrow == own || !canStart(lane, borrow)) {
                continue;
            }
            if (best == null) {
                best = lane;
                if (policy.firstWins()) {
                    return best;
                }
            } else if (policy.before(lane, best)) {
                best = lane;
            }
        }
        return best;
    }

    /**
     * Puts ticket {@code t}, leaving its session's line, in its class's queue in its place by arrival (so that the
     * sweep finds it overdue at the queue's head, and a page's requests keep their order), even when that queue is
     * full (it was let wait when it came); its wait for a permit counts from {@code now}.
     */
    void queueByArrivalLocked(Ticket t, Lane lane, long now) {
        t.timeNanos = t.enteredNanos + lane.delayTargetNanos; // the deadline, by arrival as the queue's order
        t.waiting().queuedNanos = now;
        if (lane.head == null) {
            policy.becameBusy(lane);
        }
        // from the head: the ticket came long ago, so few are before it
        Ticket before = null;
        Ticket after = lane.head;
        while (after != null && after.enteredNanos - t.enteredNanos <= 0) {
            before = after;
            after = after.next;
        }
        t.prev = before;
        t.next = after;
        if (before == null) {
            lane.head = t;
        } else {
            before.next = t;
        }
        if (after == null) {
            lane.tail = t;
        } else {
            after.prev = t;
        }
        lane.queued++;
        parked++;
    }

    /**
     * Where an admitted request goes: it starts now, waits in its class's queue (a guaranteed one in the guaranteed
     * queue), or waits in its session's line.
     */
    enum Place {
        START, QUEUE, LINE
    }

    /**
     * Where ticket {@code t} of {@code lane} goes if admitted now. Under the lock. Its session {@code load} (null: none)
     * counts it in flight from here, or marks its line ({@link SessionLines#waitsLocked}); the caller undoes that if
     * the request is refused.
     */
    Place placeLocked(Ticket t, Lane lane, SessionLoad load) {
        if (t.guaranteed) {
            // a guaranteed request that waits could not start (dispatch starts every one that can), so a newcomer
            // that can start takes nothing from it
            return canStart(lane, true) ? Place.START : Place.QUEUE;
        }
        if (load != null && lines.waitsLocked(load)) {
            // the session has max-per-session requests in flight (a new session never has): this one waits in the
            // session's line, behind its others, even with a permit free, so that a cookie shared by many clients
            // gets no more of the server at once than one browser; the class's max-queue bounds the line
            return Place.LINE;
        }
        return lane.head == null && canStart(lane, borrowing) ? Place.START : Place.QUEUE;
    }

    /**
     * Puts admitted ticket {@code t} of {@code lane} where {@code place} says: running, in its queue (counted for its
     * {@code address}, null: none) or in its session's line; its session {@code load} counts it in flight.
     */
    void putLocked(Ticket t, Lane lane, SessionLoad load, String address, Place place, long now) {
        if (place == Place.LINE) {
            lines.lineLocked(t, lane, load);
            return;
        }
        if (place == Place.START) {
            grantLocked(t, lane, now);
            lane.waitBuckets[0]++;
        } else {
            enqueueLocked(t, lane);
            if (!t.guaranteed) {
                admission.queuedLocked(t, address);
            }
        }
        if (load != null && !t.guaranteed) {
            t.load = load; // counted in flight by placeLocked
        }
    }

    /** Permits held now by the classes above {@code index}; under the lock (admission steps). */
    int executingAbove(int index) {
        int n = 0;
        for (int i = 0; i < index; i++) {
            n += lanes[i].executing;
        }
        return n;
    }

    /** Requests waiting now in the classes above {@code index}; under the lock (admission steps). */
    int queuedAbove(int index) {
        int n = 0;
        for (int i = 0; i < index; i++) {
            n += lanes[i].queued;
        }
        return n;
    }

    /**
     * Expires every waiting ticket whose maximum wait has passed, in the sessions' lines, the guaranteed queue and the
     * class queues, each answered with a refusal of {@code rejections}; counts them in {@code count[0]} (null: not
     * counted). Returns the chain of tickets to notify, those a line moved on and a dispatch started included.
     */
    Ticket expireOverdueLocked(long now, int[] count, AdmissionStep.Rejections rejections) {
        Ticket ready = null;
        if (parked == 0 && lines.lined == 0) {
            return null;
        }
        long moves = lines.moves;
        // the sessions' lines first: a request expired below moves its line on, and what moves is not overdue then
        for (Lane lane : lanes) {
            Ticket h;
            while ((h = lane.lineHead) != null && h.enteredNanos + lane.maxWaitNanos - now <= 0) {
                ready = expireLocked(h, lane, ready, count, now, rejections);
            }
        }
        // the guaranteed queue holds several classes, each with its own maximum wait: look at every one
        for (Ticket h = guaranteedHead; h != null; ) {
            Ticket next = h.next;
            Lane lane = h.lane;
            if (h.enteredNanos + lane.maxWaitNanos - now <= 0) {
                ready = expireLocked(h, lane, ready, count, now, rejections);
            }
            h = next;
        }
        for (Lane lane : lanes) {
            // Queues are FIFO with one maximum wait per class, so the overdue ones are at the head.
            Ticket h;
            while ((h = lane.head) != null && h.enteredNanos + lane.maxWaitNanos - now <= 0) {
                ready = expireLocked(h, lane, ready, count, now, rejections);
            }
        }
        // a request moved on from its session's line may start on a free permit
        return lines.moves != moves ? dispatchLocked(ready, now) : ready;
    }

    /** Expires waiting ticket {@code h} of {@code lane}; returns it at the head of the chain to notify. */
    private Ticket expireLocked(Ticket h, Lane lane, Ticket ready, int[] count, long now,
                                AdmissionStep.Rejections rejections) {
        if (!h.inLine()) {
            unlinkLocked(h, lane);
        }
        lines.endedLocked(h, false, now);
        h.rejectWith(rejections.of(Rejection.Reason.EXPIRED));
        h.state = State.EXPIRED;
        lane.expired++;
        h.readyNext = ready;
        if (count != null) {
            count[0]++;
        }
        return h;
    }
}

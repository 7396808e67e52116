package dev.servletqos;

import dev.servletqos.Rejection.Reason;
import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Per-class FIFO queues in front of the worker threads, per-class budgets (concurrency permits), new-session
 * admission, and the counters that reconcile every ticket's outcome. One lock guards all of it, so that a
 * snapshot is consistent and a decision sees one state; the lock is held for a few field updates only and
 * listeners are called after it is released.
 *
 * <p>Who may start (paper 004 section 4.4, paper 001 section III): a class may start a request while the
 * total is below {@code max-executing}, and either its own count is below its budget, or borrowing is on
 * (work conserving: idle permits of other classes are used). In every case the permits still free after the
 * start must cover the unused reserves of the other classes, so a reserve is never lent. Waiting requests
 * are released by policy: own-budget starts before borrowed ones; within each, strict priority, smallest
 * weighted pass (stride scheduling), or earliest deadline. Budgets change non-preemptively: a lowered
 * budget takes effect as requests finish, a raised one drains the queue at once.
 */
final class Scheduler {

    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    /** Stride scheduling: a dispatch advances a class's pass by STRIDE / weight. */
    private static final long STRIDE = 1L << 20;

    private final ReentrantLock lock = new ReentrantLock();
    private final Clock clock;
    private final Scheduling policy;
    private final boolean borrowing;
    private final Lane[] lanes;
    private final Rejection queueFull;
    private final Rejection expired;
    private final Rejection sessionQueued;
    private final Rejection sessionRate;

    private int maxExecuting;
    private int executing;
    private int parked;
    private boolean anyReserve;
    /** Weighted: the pass of the last dispatch, where a class that becomes busy again starts. */
    private long virtualPass;

    /** One class's queue, budget, bucket and counters; guarded by the lock. */
    static final class Lane {
        final String name;
        final int index;
        int budget;
        int minBudget;
        int reserve;
        int weight;
        int maxQueue;
        long maxWaitNanos;
        long delayTargetNanos;
        int totalQueuedTrigger;
        int higherQueuedTrigger;
        final TokenBucket sessions;

        Ticket head;
        Ticket tail;
        int queued;
        int executing;
        long pass;

        long entered;
        long completed;
        long rejected;
        long expired;
        long cancelled;
        long queueFull;
        long sessionsAdmitted;
        long sessionsRefusedQueued;
        long sessionsRefusedRate;
        long borrowedGrants;
        /** Permits granted, at once or after waiting, and the total time the granted requests waited. */
        long grants;
        long waitNanos;

        Lane(ClassPolicy c, int index) {
            this.name = c.name();
            this.index = index;
            this.budget = c.capacity().budget();
            this.minBudget = c.capacity().minBudget();
            this.reserve = c.capacity().reserve();
            this.weight = c.capacity().weight();
            this.maxQueue = c.queue().maxQueue();
            this.maxWaitNanos = c.queue().maxWait().toNanos();
            this.delayTargetNanos = c.delay().target().toNanos();
            this.totalQueuedTrigger = c.admission().totalQueuedTrigger();
            this.higherQueuedTrigger = c.admission().higherQueuedTrigger();
            this.sessions = new TokenBucket(c.admission().sessionRate(), c.admission().sessionBurst());
        }
    }

    Scheduler(QosPolicy policy, Clock clock) {
        this.clock = clock;
        this.policy = policy.scheduling();
        this.borrowing = policy.borrowing();
        this.maxExecuting = policy.maxExecuting();
        List<ClassPolicy> classes = policy.classes();
        this.lanes = new Lane[classes.size()];
        for (int i = 0; i < lanes.length; i++) {
            lanes[i] = new Lane(classes.get(i), i);
            anyReserve |= lanes[i].reserve > 0;
        }
        // Retry-After is whole seconds; round up so that 500ms is not sent as "retry at once".
        Duration ra = policy.retryAfter();
        long retryAfterSeconds = ra.getSeconds() + (ra.getNano() > 0 ? 1 : 0);
        this.queueFull = new Rejection(503, retryAfterSeconds, Reason.QUEUE_FULL);
        this.expired = new Rejection(503, retryAfterSeconds, Reason.EXPIRED);
        this.sessionQueued = new Rejection(policy.rejectStatus(), retryAfterSeconds, Reason.SESSION_QUEUED);
        this.sessionRate = new Rejection(policy.rejectStatus(), retryAfterSeconds, Reason.SESSION_RATE);
    }

    String className(int index) {
        return lanes[index].name;
    }

    Rejection expiredRejection() {
        return expired;
    }

    long maxWaitNanos(int index) {
        return lanes[index].maxWaitNanos;
    }

    /**
     * Enters a request of a known (admitted) session: RUNNING, PARKED or REJECTED (queue full). Never
     * refused by admission.
     */
    Ticket enter(int classIndex, long now) {
        return enter(classIndex, now, false);
    }

    /**
     * Enters the first request of a new session: admission first (triggers, then the session rate), then
     * scheduling. The session counts as admitted only if its request is not rejected.
     */
    Ticket enterNewSession(int classIndex, long now) {
        return enter(classIndex, now, true);
    }

    private Ticket enter(int classIndex, long now, boolean newSession) {
        Ticket t = new Ticket(this, classIndex, now);
        Ticket ready = null;
        lock.lock();
        try {
            Lane lane = lanes[classIndex];
            lane.entered++;
            ready = expireOverdueLocked(now, null);
            decideLocked(t, lane, now, newSession);
        } finally {
            lock.unlock();
        }
        // Whatever was decided for this request, the requests expired on the way must hear of it.
        notifyAll(ready);
        return t;
    }

    private void decideLocked(Ticket t, Lane lane, long now, boolean newSession) {
        if (newSession && !admitLocked(t, lane, now)) {
            return;
        }
        if (lane.head == null && canStart(lane)) {
            grantLocked(t, lane);
        } else if (lane.queued >= lane.maxQueue) {
            lane.rejected++;
            lane.queueFull++;
            t.rejectWith(queueFull);
            t.state = State.REJECTED;
            return;
        } else {
            enqueueLocked(t, lane, now);
        }
        if (newSession) {
            lane.sessionsAdmitted++;
            lane.sessions.take();
        }
    }

    private boolean admitLocked(Ticket t, Lane lane, long now) {
        Rejection refusal = null;
        if (lane.totalQueuedTrigger > 0 && parked >= lane.totalQueuedTrigger) {
            refusal = sessionQueued;
            lane.sessionsRefusedQueued++;
        } else if (lane.higherQueuedTrigger > 0 && queuedAbove(lane.index) >= lane.higherQueuedTrigger) {
            refusal = sessionQueued;
            lane.sessionsRefusedQueued++;
        } else if (!lane.sessions.available(now)) {
            refusal = sessionRate;
            lane.sessionsRefusedRate++;
        }
        if (refusal == null) {
            return true;
        }
        lane.rejected++;
        t.rejectWith(refusal);
        t.state = State.REJECTED;
        return false;
    }

    private int queuedAbove(int index) {
        int n = 0;
        for (int i = 0; i < index; i++) {
            n += lanes[i].queued;
        }
        return n;
    }

    /** Ends a ticket from the application's side: RUNNING -> COMPLETED, PARKED -> CANCELLED. */
    void finish(Ticket t) {
        if (t.state != State.RUNNING && t.state != State.PARKED) {
            return;
        }
        Ticket ready;
        lock.lock();
        try {
            Lane lane = lanes[t.classIndex];
            if (t.state == State.RUNNING) {
                releaseLocked(lane);
                t.state = State.COMPLETED;
                lane.completed++;
            } else if (t.state == State.PARKED) {
                t.claimNotification();
                unlinkLocked(t, lane);
                t.state = State.CANCELLED;
                lane.cancelled++;
            } else {
                return;
            }
            ready = dispatchLocked(null);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
    }

    /** Takes a PARKED ticket out of its queue with the given end state; false if it was no longer parked. */
    boolean remove(Ticket t, State end) {
        if (t.state != State.PARKED) {
            return false;
        }
        lock.lock();
        try {
            if (t.state != State.PARKED) {
                return false;
            }
            Lane lane = lanes[t.classIndex];
            t.claimNotification();
            unlinkLocked(t, lane);
            t.state = end;
            if (end == State.EXPIRED) {
                lane.expired++;
            } else {
                lane.cancelled++;
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** Expires every parked ticket whose maximum wait has passed; returns how many. */
    int expireOverdue(long now) {
        Ticket ready;
        int[] count = new int[1];
        lock.lock();
        try {
            ready = expireOverdueLocked(now, count);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
        return count[0];
    }

    private Ticket expireOverdueLocked(long now, int[] count) {
        Ticket ready = null;
        if (parked == 0) {
            return null;
        }
        for (Lane lane : lanes) {
            // Queues are FIFO with one maximum wait per class, so the overdue ones are at the head.
            Ticket h;
            while ((h = lane.head) != null && h.expiresNanos - now <= 0) {
                unlinkLocked(h, lane);
                h.state = State.EXPIRED;
                lane.expired++;
                h.readyNext = ready;
                ready = h;
                if (count != null) {
                    count[0]++;
                }
            }
        }
        return ready;
    }

    void setBudget(int classIndex, int budget) {
        Ticket ready;
        lock.lock();
        try {
            if (budget < 0 || budget > maxExecuting) {
                throw new IllegalArgumentException("budget of " + lanes[classIndex].name + " = " + budget
                        + ": must be 0.." + maxExecuting + " (max-executing)");
            }
            lanes[classIndex].budget = budget;
            ready = dispatchLocked(null);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
    }

    void setMaxExecuting(int max) {
        Ticket ready;
        lock.lock();
        try {
            int reserves = 0;
            for (Lane l : lanes) {
                reserves += l.reserve;
            }
            if (max < 1 || max < reserves) {
                throw new IllegalArgumentException("max-executing = " + max + ": must be at least 1 and at least "
                        + "the sum of the reserves (" + reserves + ")");
            }
            maxExecuting = max;
            for (Lane l : lanes) {
                l.budget = Math.min(l.budget, max);
            }
            ready = dispatchLocked(null);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
    }

    void setSessionRate(int classIndex, double perSecond, int burst, long now) {
        lock.lock();
        try {
            lanes[classIndex].sessions.configure(perSecond, burst, now);
        } finally {
            lock.unlock();
        }
    }

    private boolean canStart(Lane lane) {
        return canStart(lane, borrowing);
    }

    private boolean canStart(Lane lane, boolean mayBorrow) {
        if (executing >= maxExecuting) {
            return false;
        }
        if (lane.executing >= lane.budget && !mayBorrow) {
            return false;
        }
        if (!anyReserve) {
            return true;
        }
        int free = maxExecuting - executing - 1;
        int owed = 0;
        for (Lane other : lanes) {
            if (other != lane && other.reserve > other.executing) {
                owed += other.reserve - other.executing;
            }
        }
        return free >= owed;
    }

    // Which permit a finishing request held does not matter: a class holds max(0, executing - budget)
    // borrowed permits, so the first permit it gives back is a borrowed one and goes to the class that owns it.
    private static boolean ownBudgetLeft(Lane lane) {
        return lane.executing < lane.budget;
    }

    private void grantLocked(Ticket t, Lane lane) {
        if (!ownBudgetLeft(lane)) {
            lane.borrowedGrants++;
        }
        lane.executing++;
        executing++;
        lane.grants++;
        if (policy == Scheduling.WEIGHTED) {
            virtualPass = Math.max(virtualPass, lane.pass);
            lane.pass += STRIDE / lane.weight;
        }
        t.state = State.RUNNING;
    }

    private void releaseLocked(Lane lane) {
        lane.executing--;
        executing--;
    }

    private void enqueueLocked(Ticket t, Lane lane, long now) {
        t.expiresNanos = now + lane.maxWaitNanos;
        t.deadlineNanos = now + lane.delayTargetNanos;
        if (lane.head == null && policy == Scheduling.WEIGHTED) {
            // A class that was idle does not bank credit for the time it had nothing to run.
            lane.pass = Math.max(lane.pass, virtualPass);
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

    private void unlinkLocked(Ticket t, Lane lane) {
        if (t.prev == null) {
            lane.head = t.next;
        } else {
            t.prev.next = t.next;
        }
        if (t.next == null) {
            lane.tail = t.prev;
        } else {
            t.next.prev = t.prev;
        }
        t.prev = null;
        t.next = null;
        lane.queued--;
        parked--;
    }

    /** Starts waiting requests while a permit and an eligible class exist; returns the chain to notify. */
    private Ticket dispatchLocked(Ticket ready) {
        long now = parked > 0 ? clock.nanoTime() : 0;
        while (parked > 0 && executing < maxExecuting) {
            Lane lane = pick(false);
            if (lane == null && borrowing) {
                lane = pick(true);
            }
            if (lane == null) {
                break;
            }
            Ticket t = lane.head;
            unlinkLocked(t, lane);
            grantLocked(t, lane);
            lane.waitNanos += Math.max(0, now - t.enteredNanos);
            t.readyNext = ready;
            ready = t;
        }
        return ready;
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
                if (policy != Scheduling.WEIGHTED && policy != Scheduling.EARLIEST_DEADLINE) {
                    return best;
                }
            } else if (policy == Scheduling.WEIGHTED ? lane.pass < best.pass
                    : lane.head.deadlineNanos - best.head.deadlineNanos < 0) {
                best = lane;
            }
        }
        return best;
    }

    /**
     * Calls the listeners of a chain of tickets that left their queues; outside the lock. A listener that
     * throws is logged and does not keep the others of the chain from being told.
     */
    private static void notifyAll(Ticket ready) {
        while (ready != null) {
            Ticket next = ready.readyNext;
            ready.readyNext = null;
            try {
                ready.notifyListener();
            } catch (RuntimeException | Error e) {
                LOG.log(System.Logger.Level.ERROR, "servlet-qos: a ticket listener failed for " + ready, e);
            }
            ready = next;
        }
    }

    /** A consistent copy of every counter. */
    EngineSnapshot snapshot(EngineSnapshot.Sessions sessions) {
        lock.lock();
        try {
            List<ClassStats> stats = new ArrayList<>(lanes.length);
            for (Lane l : lanes) {
                stats.add(new ClassStats(l.name, l.budget, l.minBudget, l.reserve, l.weight, l.executing,
                        Math.max(0, l.executing - l.budget), l.queued, l.entered, l.completed, l.rejected, l.expired, l.cancelled,
                        l.queueFull, l.sessionsAdmitted, l.sessionsRefusedQueued, l.sessionsRefusedRate,
                        l.borrowedGrants, l.grants, l.waitNanos, l.sessions.rate(), l.sessions.burst()));
            }
            return new EngineSnapshot(policy, maxExecuting, executing, parked, stats, sessions);
        } finally {
            lock.unlock();
        }
    }
}

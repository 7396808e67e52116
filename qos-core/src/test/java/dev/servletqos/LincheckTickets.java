package dev.servletqos;

import dev.servletqos.Ticket.State;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The tickets of a Lincheck test of the scheduler ({@link SchedulerLincheckTest}, {@link FastPathLincheckTest}), per
 * thread, oldest first, with what each ticket's listener heard; the operations both tests share on a thread's oldest
 * ticket that has not ended, and the check after a run that every listener was told once. A thread's list is touched
 * by its own thread only.
 */
final class LincheckTickets {

    /** Lincheck's thread ids: the parallel threads and the init and post parts. */
    static final int THREAD_SLOTS = 8;

    private final List<List<Tracked>> tickets = new ArrayList<>();

    LincheckTickets() {
        for (int i = 0; i < THREAD_SLOTS; i++) {
            tickets.add(new ArrayList<>());
        }
    }

    /** A ticket and what its listener heard. */
    static final class Tracked implements Ticket.Listener {
        final Ticket ticket;
        final boolean parked;
        final AtomicInteger granted = new AtomicInteger();
        final AtomicInteger expired = new AtomicInteger();
        /** The adapter ended it ({@code cancel()} or {@code expire()} returned true, or complete while parked). */
        volatile boolean endedByAdapter;
        /**
         * Completed by its thread after the engine granted it but before its listener was told: the scheduler tells
         * the listener after its lock, and the completion may overtake that (the listener then hears nothing).
         */
        volatile boolean completedUntold;

        Tracked(Ticket ticket) {
            this.ticket = ticket;
            State s = ticket.state();
            // a ticket's waiting part is made (under the lock, before the grant's volatile write of the state) only
            // when it waits: one that waited in its session's line and was granted by another thread before this
            // read is RUNNING now, but it waited. Reported as RUNNING, no sequential order had it run at once (its
            // session's line held a request ahead of it in the model), and the stress mode failed about once in 300
            // scenarios. A fast-path ticket never waits
            this.parked = s == State.PARKED || s == State.EXPIRED || ticket.waited();
        }

        @Override
        public void granted(Ticket t) {
            granted.incrementAndGet();
        }

        @Override
        public void expired(Ticket t) {
            expired.incrementAndGet();
        }
    }

    static boolean open(State s) {
        return s == State.RUNNING || s == State.PARKED;
    }

    /** The oldest ticket of thread {@code tid} that has not ended, or null. */
    Tracked oldestOpen(int tid) {
        for (Tracked t : tickets.get(tid)) {
            if (open(t.ticket.state())) {
                return t;
            }
        }
        return null;
    }

    /**
     * Tracks a ticket thread {@code tid} entered, listening to it if it waited; what the enter operation returns. Read
     * after the scheduler's lock: a ticket that waited may have been granted meanwhile or expired by a sweep (then it
     * waited: see {@link Tracked}).
     */
    String entered(int tid, Ticket t) {
        Tracked tracked = new Tracked(t);
        tickets.get(tid).add(tracked);
        if (tracked.parked) {
            t.await(tracked);
        }
        return tracked.parked ? "PARKED" : t.state() == State.REJECTED ? "REJECTED" : "RUNNING";
    }

    // Each operation acts on the thread's oldest open ticket. Another thread's sweep may end that ticket between the
    // look-up and the action (which then does nothing): at the linearization point it was not open any more, so the
    // operation goes on to the next one.

    /** Completes the thread's oldest open ticket: its end state, or "none". */
    String complete(int tid) {
        for (Tracked t = oldestOpen(tid); t != null; t = oldestOpen(tid)) {
            boolean wasParked = t.ticket.state() == State.PARKED;
            boolean untold = t.parked && t.granted.get() == 0;
            t.ticket.complete();
            State after = t.ticket.state();
            if (after == State.COMPLETED) {
                t.completedUntold = untold;
                return after.name();
            }
            if (after == State.CANCELLED) {
                t.endedByAdapter = wasParked || t.endedByAdapter;
                return after.name();
            }
        }
        return "none";
    }

    /** Cancels, or expires, the thread's oldest open ticket if it waits: whether it did. */
    boolean endWhileParked(int tid, boolean cancel) {
        for (Tracked t = oldestOpen(tid); t != null; t = oldestOpen(tid)) {
            if (cancel ? t.ticket.cancel() : t.ticket.expire()) {
                t.endedByAdapter = true;
                return true;
            }
            if (open(t.ticket.state())) {
                return false; // it runs
            }
        }
        return false;
    }

    /**
     * After a run: every waiting ticket's listener was told once, of the grant or the expiry, and none of what the
     * adapter did itself; the counters reconcile; the sessions' lines hold their counts.
     */
    void checkToldOnce(Scheduler scheduler) {
        for (List<Tracked> list : tickets) {
            for (Tracked t : list) {
                State s = t.ticket.state();
                int told = t.granted.get() + t.expired.get();
                if (!t.parked || t.endedByAdapter) {
                    check(told == 0, "a listener told of what the adapter did itself", t);
                } else if (t.completedUntold) {
                    check(t.granted.get() <= 1 && t.expired.get() == 0, "a granted ticket's listener", t);
                } else if (s == State.RUNNING || s == State.COMPLETED) {
                    check(t.granted.get() == 1 && t.expired.get() == 0, "a granted ticket's listener", t);
                } else if (s == State.EXPIRED) {
                    check(t.expired.get() == 1 && t.granted.get() == 0, "an expired ticket's listener", t);
                } else {
                    check(told == 0, "a waiting ticket's listener", t);
                }
            }
        }
        for (ClassStats c : scheduler.snapshot(null).classes()) {
            check(c.reconciles(), "counters reconcile: " + c, null);
        }
        Invariants.checkLines(scheduler, "after the run");
    }

    private static void check(boolean ok, String what, Tracked t) {
        if (!ok) {
            throw new IllegalStateException(what + (t == null ? "" : ": " + t.ticket + ", granted " + t.granted
                    + ", expired " + t.expired + ", ended by the adapter " + t.endedByAdapter));
        }
    }
}

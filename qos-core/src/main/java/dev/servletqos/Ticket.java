package dev.servletqos;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One request's handle on the engine, with exactly one outcome. {@link QosEngine#enter} returns it in one of
 * three states:
 * <ul>
 *   <li>{@link State#RUNNING}: a permit is held; run the application, then call {@link #complete()} once the
 *       response is finished (also after an exception or when the application went asynchronous and has
 *       completed);</li>
 *   <li>{@link State#PARKED}: the request waits in its class's queue. Suspend it without holding a thread,
 *       then call {@link #await(Listener)}: the listener learns when a permit is granted (the ticket is then
 *       RUNNING) or when the engine expired it after the class's maximum wait (answer
 *       {@link #rejection()});</li>
 *   <li>{@link State#REJECTED}: answer {@link #rejection()} at once (503 or 429 with {@code Retry-After}).</li>
 * </ul>
 * A parked ticket may also end through {@link #expire()} (the container's own timeout fired) or
 * {@link #cancel()} (the client went away). Two kinds of RUNNING ticket hold no permit: an exempt request's
 * ({@link #exempt()}: one shared ticket per engine, in no class, whose complete and decline do nothing) and an open
 * stream's ({@link #stream()}: a stream candidate that {@link #detach() detached} once its application went
 * asynchronous, counted in its class and among the open streams until it completes, never timed as service). Every
 * method is safe to call from any thread and more than once:
 * whatever happens first decides the outcome, and the permit is released exactly once.
 */
public final class Ticket {

    /** Where a ticket is in its life. */
    public enum State {
        /** Holds a permit: the application runs or may run. */
        RUNNING,
        /** Waits in its class queue (or its session's line) for a permit. */
        PARKED,
        /** Ended: the application finished with it. */
        COMPLETED,
        /** Ended: refused at entry (admission or full queue). */
        REJECTED,
        /** Ended: waited longer than its class's maximum wait. */
        EXPIRED,
        /** Ended: the client went away while it waited. */
        CANCELLED,
        /**
         * Ended: the permit was held but the container declined the request (e.g. no handler took it, or a
         * resume could not be scheduled); counted apart from completed requests.
         */
        DECLINED
    }

    /** Told when a parked ticket leaves its queue on the engine's initiative. Called at most once, never under a lock. */
    public interface Listener {

        /** The ticket now holds a permit: resume the request (on a container thread, never inline). */
        void granted(Ticket ticket);

        /** The ticket waited longer than its maximum wait: answer {@link Ticket#rejection()}. */
        void expired(Ticket ticket);
    }

    private static final VarHandle NOTIFIED;
    private static final VarHandle STATE;

    static {
        try {
            NOTIFIED = MethodHandles.lookup().findVarHandle(Waiting.class, "notified", int.class);
            STATE = MethodHandles.lookup().findVarHandle(Ticket.class, "state", State.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Scheduler scheduler;
    /**
     * The class's lane: set under the scheduler's lock when the ticket enters, and moved by a reload that removes
     * the class (see {@link Scheduler#reload}).
     */
    Lane lane;
    final long enteredNanos;
    /**
     * The request's route ({@link Routes}, below {@value Routes#MAX}): whose service times its own is compared
     * with. A short and the level a byte, so that both share one four-byte slot and the ticket stays small.
     */
    final short route;
    /**
     * The content level the engine decided for this request: 0 (refused new session) .. the class's levels; lowered
     * under the scheduler's lock at entry when a reload gave its class fewer levels meanwhile.
     */
    byte level;

    /**
     * Written under the scheduler's lock, read anywhere; a RUNNING ticket leaves RUNNING by {@link #endRunning} only
     * (the fast path ends it without the lock).
     */
    volatile State state;
    /** Queue links and times, guarded by the scheduler's lock. */
    Ticket prev;
    Ticket next;
    /**
     * While parked: the EDF deadline (arrival + the class's delay target then); once running: when the permit was
     * granted (service time is measured from here). One field, since a ticket is never both: it keeps the ticket
     * small.
     */
    long timeNanos;
    /** Tickets to notify after the scheduler's lock is released; guarded by it until handed over. */
    Ticket readyNext;
    /** While running or parked: its session's requests in flight, when counted; guarded by the scheduler's lock. */
    SessionLoad load;
    /**
     * What only a ticket that waits needs ({@link Waiting}), or null while it never waited: set under the scheduler's
     * lock when it first waits, before it is PARKED, and kept.
     */
    private Waiting waiting;

    private Rejection rejection;
    private String setCookie;
    /**
     * The virtual server of the request ({@link VirtualServers}), or null: the one of the policy it entered under,
     * so that its bytes are counted there after a reload too.
     */
    VirtualServers.Host host;
    /** Within its virtual server's guarantee: never refused, started before requests that are not. */
    boolean guaranteed;
    /** An exempt request's shared ticket ({@link Scheduler#exempt()}): RUNNING for good, in no class, no permit. */
    private final boolean exempt;
    /**
     * A stream candidate ({@code streams.*}: {@code Accept: text/event-stream}, a path of {@code streams.paths}),
     * and of those one of no admitted session: set at entry, before the ticket is published. A candidate runs under
     * a permit like any request until {@link #detach()}.
     */
    boolean candidate;
    boolean anonymousStream;
    /**
     * Detached ({@link Scheduler#detach}): an open stream, running without a permit, counted among the open streams
     * while RUNNING. Written under the scheduler's lock.
     */
    volatile boolean stream;

    Ticket(Scheduler scheduler, long enteredNanos, int route, int level) {
        this(scheduler, enteredNanos, route, level, false);
    }

    private Ticket(Scheduler scheduler, long enteredNanos, int route, int level, boolean exempt) {
        this.scheduler = scheduler;
        this.enteredNanos = enteredNanos;
        this.route = (short) route;
        this.level = (byte) level;
        this.exempt = exempt;
    }

    /** The engine's one ticket for exempt requests: RUNNING for good, at full content (level 1 of 1), in no class. */
    static Ticket exempt(Scheduler scheduler) {
        Ticket t = new Ticket(scheduler, 0, 0, 1, true);
        t.state = State.RUNNING;
        return t;
    }

    /**
     * Whether this is an exempt request's ticket ({@code exempt.<n>.*}): the request bypassed QoS. Its state is
     * RUNNING, it holds no permit, is in no class ({@link #serviceClass()} null) and sets no cookie;
     * {@link #complete()} and {@link #decline()} do nothing. One ticket is shared by every exempt request.
     */
    public boolean exempt() {
        return exempt;
    }

    /**
     * Whether this is an open stream's ticket: a {@link #streamCandidate() stream candidate} that
     * {@link #detach() detached}. It is RUNNING without a permit; its class counts it among its open streams until
     * {@link #complete()} or {@link #decline()}, and its time is not service time.
     */
    public boolean stream() {
        return stream;
    }

    /**
     * Whether the request may become an open stream ({@code streams.*}: its {@code Accept} header names
     * {@code text/event-stream}, or its path is one of {@code streams.paths}). A candidate enters like any request
     * (admission, queue, a permit); only {@link #detach()} makes it a stream.
     */
    public boolean streamCandidate() {
        return candidate;
    }

    /**
     * The application's first pass over a RUNNING request returned while the request stays open (it went
     * asynchronous: an event stream, a long poll): a {@link #streamCandidate() stream candidate} gives its permit
     * back (the next waiting request is granted it) and becomes an open stream ({@link #stream()}) until
     * {@link #complete()} or {@link #decline()} ends it; its time so far is not counted as service time. The
     * adapters call it on the thread that ran the application, after it returned. Returns whether it detached:
     * false for a request that is no candidate, not RUNNING, detached already, or that found
     * {@code streams.max-open} streams open (or, of no admitted session, half of them): such a request keeps its
     * permit until it completes, as any asynchronous request. Thread-safe; idempotent.
     */
    public boolean detach() {
        return candidate && scheduler.detach(this);
    }

    /** The current state; see the class documentation. */
    public State state() {
        return state;
    }

    /**
     * The service class this request is served under: the one it was classified into, or the default class when
     * a reloaded policy removed that one; null for a request a token-bucket rule refused before it was classified.
     */
    public String serviceClass() {
        Lane l = lane;
        return l == null ? null : l.name;
    }

    /** Whether the request is within its virtual server's guarantee ({@code vhost.<name>.*}). */
    public boolean guaranteed() {
        return guaranteed;
    }

    /** A request refused before classification (a token-bucket rule): REJECTED, in no class. */
    static Ticket refused(Scheduler scheduler, long now, Rejection r) {
        Ticket t = new Ticket(scheduler, now, 0, 0);
        t.rejectWith(r);
        t.state = State.REJECTED;
        return t;
    }

    /**
     * The content level to serve this request at (paper 000 section 4.2): from 1 (the lightest content) to the
     * class's {@code levels} (full content; 1 when the class has one level). The engine decides it at entry from
     * the class's live level and the session, so that one session sees one level while the class's level stays
     * the same; an admitted session is never below 1. 0 only for a new session the engine refused for its level
     * or a request a token-bucket rule refused (then the ticket is {@link State#REJECTED}). A request within its
     * virtual server's guarantee is at full content. The adapters put it into the request attribute
     * {@code dev.servletqos.level}.
     */
    public int level() {
        return level;
    }

    /** The number of content levels of this request's class ({@code class.<name>.levels}): full content's level. */
    public int levels() {
        Lane l = lane;
        return l == null ? (exempt ? 1 : 0) : l.levels;
    }

    /**
     * The answer to send for a {@link State#REJECTED} ticket (its refusal), or for an {@link State#EXPIRED}
     * or {@link State#CANCELLED} one (503, could not be served in time); null while the ticket is parked,
     * running or completed.
     */
    public Rejection rejection() {
        State s = state;
        if (s == State.EXPIRED || s == State.CANCELLED) {
            Rejection r = rejection; // set before the state, by the scheduler
            return r != null ? r : scheduler.expiredRejection();
        }
        return s == State.REJECTED ? rejection : null;
    }

    /**
     * The 503 (with {@code Retry-After}) to answer when a request cannot be served after all, whatever its
     * state: e.g. the container gave up on it while the engine was granting it a permit.
     */
    public Rejection busyRejection() {
        return scheduler.expiredRejection();
    }

    /**
     * A {@code Set-Cookie} header value the adapter must add to the response (a newly admitted session's
     * admission cookie, or a renewed one), or null. Set it before the response is committed.
     */
    public String setCookieHeader() {
        return setCookie;
    }

    /** How long a parked ticket may wait before the engine expires it, in nanoseconds. */
    public long maxWaitNanos() {
        return lane.maxWaitNanos;
    }

    /**
     * Starts listening for the end of the wait of a {@link State#PARKED} ticket. Call it once, after the
     * request has been suspended. If the ticket was granted or expired in between, the listener is called
     * at once on this thread.
     */
    public void await(Listener l) {
        if (exempt) {
            l.granted(this); // never parked; the shared ticket keeps no listener
            return;
        }
        Waiting w = waiting; // set in enter(), before it returned the ticket, if it waited
        if (w == null) {
            if (state == State.RUNNING) {
                l.granted(this); // never waited: nobody else tells it
            }
            return;
        }
        w.listener = l;
        notifyListener();
    }

    /**
     * The application finished with this request: releases the permit (a RUNNING ticket becomes COMPLETED)
     * and hands it to the next waiting request. A PARKED ticket becomes CANCELLED. Ended tickets: no-op.
     */
    public void complete() {
        if (!exempt) {
            scheduler.finish(this, -1, false);
        }
    }

    /**
     * {@link #complete()}, telling the engine the size of the response body in bytes (a sensor of the
     * control loop); a negative size means unknown.
     */
    public void complete(long responseBytes) {
        if (!exempt) {
            scheduler.finish(this, responseBytes, false);
        }
    }

    /**
     * The container declined a RUNNING request (nothing served it, or its resume could not be scheduled):
     * releases the permit like {@link #complete()}, but the request is counted as declined, not completed, so
     * that it does not count as service in the control loop's samples. A PARKED ticket becomes CANCELLED;
     * ended tickets: no-op.
     */
    public void decline() {
        if (!exempt) {
            scheduler.finish(this, -1, true);
        }
    }

    /**
     * The container's own wait timeout fired: a PARKED ticket becomes EXPIRED. Returns true if it did (the
     * caller answers {@link #rejection()}), false if the ticket had already left the queue.
     */
    public boolean expire() {
        return scheduler.remove(this, State.EXPIRED);
    }

    /**
     * The client went away while the request waited: a PARKED ticket becomes CANCELLED. Returns true if it
     * did, false if the ticket had already left the queue (then call {@link #complete()} as usual).
     */
    public boolean cancel() {
        return scheduler.remove(this, State.CANCELLED);
    }

    /** Ends a RUNNING ticket with {@code end} by one CAS: false if it was not RUNNING (someone else ended it). */
    boolean endRunning(State end) {
        return STATE.compareAndSet(this, State.RUNNING, end);
    }

    /** Takes the notification for the caller: the listener will not be called. Before the state changes. */
    void claimNotification() {
        NOTIFIED.setVolatile(waiting(), 1);
    }

    /** {@link #waiting}, made if it has none; under the scheduler's lock. */
    Waiting waiting() {
        Waiting w = waiting;
        return w != null ? w : (waiting = new Waiting());
    }

    /** Whether it waits in its session's line ({@link Waiting#inLine}). */
    boolean inLine() {
        Waiting w = waiting;
        return w != null && w.inLine;
    }

    /** Whether it ever waited (in its class's queue or its session's line); for the tests. */
    boolean waited() {
        return waiting != null;
    }

    void rejectWith(Rejection r) {
        this.rejection = r;
    }

    void setCookieHeader(String header) {
        this.setCookie = header;
    }

    /** Called by the scheduler, outside its lock, after this ticket left the queue on the engine's side. */
    void notifyListener() {
        Waiting w = waiting;
        Listener l = w != null ? w.listener : null;
        State s = state;
        if (l == null || s == State.PARKED) {
            return;
        }
        // The scheduler and await() both come here; whoever sees both the listener and the new state first
        // calls it, exactly once.
        if (!NOTIFIED.compareAndSet(w, 0, 1)) {
            return;
        }
        if (s == State.RUNNING) {
            l.granted(this);
        } else if (s == State.EXPIRED) {
            l.expired(this);
        }
    }

    @Override
    public String toString() {
        return "Ticket{" + serviceClass() + ", " + state + "}";
    }

    /**
     * What only a waiting ticket needs, apart from the ticket so that a request that runs at once allocates 80 bytes,
     * not 104 (issue 24): made under the scheduler's lock when the ticket first waits (its class's queue, its
     * session's line), one more allocation for a request that waits.
     */
    static final class Waiting {
        /**
         * When it joined its class's queue, what its wait for a permit is measured from (the control loop's delay):
         * its arrival, or when it left its session's line (a session's wait behind its own requests is not the
         * class's delay). Guarded by the scheduler's lock.
         */
        long queuedNanos;
        /** While queued: the client address it is counted under, when counted; guarded by the scheduler's lock. */
        String address;
        /**
         * While it waits in its session's line ({@link SessionLoad}): the next of the line; and whether it is there
         * (it is then in no class queue: {@link Ticket#prev} and {@link Ticket#next} link its class's line tickets).
         * Guarded by the scheduler's lock.
         */
        Ticket lineNext;
        boolean inLine;
        volatile Listener listener;
        @SuppressWarnings("unused") // accessed through NOTIFIED
        volatile int notified;
    }
}

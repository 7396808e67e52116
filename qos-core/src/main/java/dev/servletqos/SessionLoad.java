package dev.servletqos;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One admitted session's requests in flight, for {@code admission.max-per-session}, and its cookie renewals: shared
 * by the session's entries in the session table (its cookie and its renewals). Guarded by the {@link Scheduler}'s lock,
 * but for {@link #count}, which the lock-free fast path ({@link FastPath}) changes too.
 *
 * <p>{@link #requests()} are those executing or waiting in their class's queue: at most max-per-session (but after a
 * reload lowered it). The session's further requests wait in its line, first come first served, holding no thread
 * (PARKED tickets like any waiting request): each time one of the counted requests ends, the line's first moves on
 * to its class's queue, in its place by arrival, and from there to a permit.
 */
final class SessionLoad extends SessionLoadCount {

    /**
     * Set in {@link #count} while the session's line holds a request (or the scheduler decides one joins it): the fast
     * path then leaves the count alone, so that under the scheduler's lock it changes only there.
     */
    static final int LINE = 1 << 30;
    /**
     * One fast-path request counted but not yet started or given up ({@link #tryCount}, {@link #started}), or ending
     * but not yet uncounted ({@link #tryEnd}, {@link #ended}): the scheduler waits for none to be pending before it
     * decides on the count, so that it never sees one that may go.
     */
    private static final int PENDING = 1 << 20;
    private static final int PENDING_MASK = 0x3FF << 20;
    private static final int REQUESTS = PENDING - 1;
    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(SessionLoadCount.class, "count", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The session's line: its oldest waiting request, the newest, and how many (linked by Ticket.lineNext). */
    Ticket lineHead;
    Ticket lineTail;
    int lined;
    /**
     * The admitted-until of the newest cookie this node issued the session (served, or on its way); 0: none. Written
     * under the lock; volatile for the lock-free check of {@link Scheduler#claimRenewal}, where a stale value only
     * sends the claim on to the lock, or leaves the renewal to the session's next request.
     */
    volatile long newestUntil;
    /** The request carrying a renewal not yet served, else null: its end undoes the renewal unless served. */
    Ticket renewing;
    /** {@link #newestUntil} before the renewal that {@link #renewing} carries. */
    long newestBefore;

    /** The session's requests executing or in their class's queue. */
    int requests() {
        return count & REQUESTS;
    }

    /** Whether {@link #LINE} is set. */
    boolean lineSet() {
        return (count & LINE) != 0;
    }

    /**
     * Counts one more request in flight, pending, if the session has no line and fewer than {@code max} (0: no limit);
     * the fast path's step, without the lock. The caller says next whether it started ({@link #started}).
     */
    boolean tryCount(int max) {
        for (;;) {
            int c = count;
            if ((c & LINE) != 0 || (max > 0 && (c & REQUESTS) >= max) || (c & PENDING_MASK) == PENDING_MASK) {
                return false;
            }
            if (COUNT.compareAndSet(this, c, c + 1 + PENDING)) {
                return true;
            }
        }
    }

    /** The pending request of {@link #tryCount} started (it stays counted), or not (it is uncounted). */
    void started(boolean started) {
        COUNT.getAndAdd(this, started ? -PENDING : -PENDING - 1);
    }

    /**
     * Marks one counted request ending, pending, if the session has no line: the fast path's step before it gives the
     * request's permit back; the caller says next whether it did ({@link #ended}). Without the lock.
     */
    boolean tryEnd() {
        for (;;) {
            int c = count;
            if ((c & LINE) != 0 || (c & PENDING_MASK) == PENDING_MASK) {
                return false;
            }
            if (COUNT.compareAndSet(this, c, c + PENDING)) {
                return true;
            }
        }
    }

    /** The ending request of {@link #tryEnd} gave its permit back (it is uncounted), or not (it stays counted). */
    void ended(boolean released) {
        COUNT.getAndAdd(this, released ? -PENDING - 1 : -PENDING);
    }

    /**
     * Under the scheduler's lock: counts the request in flight (true), or, when the session has a line or {@code max}
     * (0: no limit) requests in flight, sets {@link #LINE} (false: the request waits in the line). One CAS decides,
     * so that the fast path's concurrent counting cannot slip between the check and the change.
     */
    boolean countOrLineLocked(int max) {
        for (;;) {
            int c = count;
            if ((c & PENDING_MASK) != 0) {
                // a fast-path request between its count and its permit, or between giving its permit back and its
                // uncount: it finishes in a few steps (the lease it tries was settled), and counts or not; deciding
                // before would count one that may go (or line a request behind one that gave its permit back already)
                Thread.onSpinWait();
                continue;
            }
            if ((c & LINE) != 0 || lined > 0 || (max > 0 && (c & REQUESTS) >= max)) {
                if (COUNT.compareAndSet(this, c, c | LINE)) {
                    return false;
                }
            } else if (COUNT.compareAndSet(this, c, c + 1)) {
                return true;
            }
        }
    }

    /** Under the scheduler's lock: adds {@code delta} to the requests in flight (the fast path may count meanwhile). */
    void addLocked(int delta) {
        COUNT.getAndAdd(this, delta);
    }

    /** Under the scheduler's lock: clears {@link #LINE} once the line is empty. */
    void lineEmptiedLocked() {
        if (lined == 0) {
            COUNT.getAndBitwiseAnd(this, ~LINE);
        }
    }
}

/**
 * Puts {@link SessionLoad}'s count 64 bytes or more from any other session's (issue 24): two sessions' counts, each
 * changed by CAS four times per request, must not share a cache line, or two threads serving two sessions fight over
 * it, and a garbage collection may put two sessions side by side. The JVM lays out a superclass's fields before a
 * subclass's: the header and 60 bytes of padding, the count at byte 72, then SessionLoad's own 36 bytes (written under
 * the lock only: a line, a renewal), 112 bytes in all: 64 bytes more a session than without the padding (the session
 * table's {@link SessionTable#ENTRY_BYTES} holds them; {@code SessionTableFootprintTest} measures it).
 */
abstract class SessionLoadCount extends SessionLoadBefore {

    /** The requests in flight, those of them pending, and {@link SessionLoad#LINE}; changed atomically only. */
    volatile int count;
}

/**
 * The padding before {@link SessionLoadCount#count}: 60 bytes after a 12-byte header (the int fills the gap the JVM
 * would otherwise fill with a subclass's field, the count).
 */
abstract class SessionLoadBefore {
    int p0;
    long p1, p2, p3, p4, p5, p6, p7;
}

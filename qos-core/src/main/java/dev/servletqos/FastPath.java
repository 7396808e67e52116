package dev.servletqos;

import dev.servletqos.Ticket.State;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The request path without the scheduler's lock (issue 24): an admitted session's request that finds a free permit and
 * nobody waiting starts, and its completion gives the permit back, by a few CAS and no lock.
 *
 * <p>How: while nothing waits (no class queue, no guaranteed queue, no session's line), the scheduler leases one lane
 * (the class of the last request it saw) the permits that lane could take one after another right now, as
 * {@link Dispatcher}'s rules would give them (max-executing, the other classes' unused reserves, its own budget: the
 * fast path never borrows). The lease is two or four words per lane ({@link Lane#fast}, each on a cache line of
 * its own, a thread using the one of its id first, so that two threads do not write one line on every request): a bit
 * saying it holds a share of the lease, the permits of the share still free, and the requests started and completed
 * on it since the scheduler last counted them. A fast start takes a free permit of a share by CAS, a fast completion
 * puts one back; the permits a lease holds (its requests running and its free permits, all shares) stay the same
 * while it lasts, so every start it allows would be allowed under the lock too. A request's session counts it by CAS ({@link SessionLoad#tryCount}), pending until its
 * permit is taken or not, and a completion marks it ending ({@link SessionLoad#tryEnd}), pending until its permit is
 * back: the scheduler waits for no pending count before it decides on a session's count, so it never counts one that
 * then goes, nor lines a request behind one whose permit is free.
 *
 * <p>Every operation under the scheduler's lock first settles ({@link #settleLocked}): it takes the word back by one
 * atomic swap and counts what the fast path did into the lane's counters, so that it decides on the exact state, as
 * before; the fast path's CAS fails from then on, and its requests take the lock. Before it releases the lock it leases
 * again if nothing waits ({@link #leaseLocked}). Hence no lost wake-up: a permit given back by a fast completion is in
 * the word, which the first request to wait takes back before it decides to wait; a completion after that fails its
 * CAS and gives the permit back under the lock, where the dispatch sees the waiting request. The counters reconcile
 * in every snapshot (a snapshot settles too), and a session's count never exceeds max-per-session (one CAS decides;
 * its line is marked in the same word, {@link SessionLoad#LINE}, which stops the fast path for that session).
 *
 * <p>What takes the lock as before: new sessions, stateless requests, stream candidates, requests within a virtual
 * server's guarantee, anything that waits, declined requests, completions at a content level below full, of a
 * session with a line or a renewal not yet served. One completion in {@link Scheduler#SERVICE_SAMPLING} measures its
 * service time after its permit went back, and keeps it in its share ({@link #sample}); the share's samples are
 * counted under the lock by the next locked operation's settle, or by the completion that fills the share
 * ({@link #SAMPLES}) if the lock is free, and by every snapshot. So that two threads share no written memory on the fast path (issue 24), the rest of what it writes is the
 * request's own (its ticket) or its session's ({@link SessionLoad}'s count, on a cache line of its own), and the
 * session table is read without recording the access ({@link SessionTable#lookup}).
 */
final class FastPath {

    /**
     * The shares of a lease, a power of two: 4, or 2 on a machine of fewer than 4 cores (every locked operation takes
     * each share back by an atomic swap, so more shares cost the locked path more than the cores they would spare).
     */
    static final int STRIPES = Runtime.getRuntime().availableProcessors() >= 4 ? 4 : 2;
    /** Longs from one share's word to the next: 128 bytes, two cache lines. */
    private static final int PAD = 16;
    private static final long LEASED = 1L << 63;
    /** The free permits of a share: 18 bits, above the ceiling of max-executing (100000). */
    private static final long ROOM = (1L << 18) - 1;
    /** Where the counts of started and completed requests are; 22 bits each. */
    private static final int STARTED = 18;
    private static final int COMPLETED = 40;
    private static final long COUNT = (1L << 22) - 1;
    /**
     * Service times a share keeps before they are counted under the lock ({@link #sample}): after its word, a count
     * and the samples, within the share's 128 bytes.
     */
    static final int SAMPLES = 8;
    /** A sample: this bit (so that 0 is none), the service time in ns (at most 2^52 - 1: 52 days), the route. */
    private static final long SAMPLE = 1L << 63;
    private static final int ROUTE_BITS = 11;
    private static final long ROUTE = (1L << ROUTE_BITS) - 1;
    private static final long TOOK = (1L << 52) - 1;
    private static final VarHandle FAST = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle LEASE;

    static {
        try {
            LEASE = MethodHandles.lookup().findVarHandle(FastPath.class, "leased", Lane.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Scheduler scheduler;
    private final Dispatcher d;
    private final SessionLines lines;
    private final Clock clock;
    /** The lane that holds the lease, or null; written under the lock. */
    private volatile Lane leased;
    /** The generation of the policy in force ({@link Regime}); written under the lock with the policy. */
    int generation;
    /** The lane leased last (kept while the lease is settled): leased again when nothing says otherwise. */
    private Lane home;

    FastPath(Scheduler scheduler, Dispatcher d, SessionLines lines, Clock clock) {
        this.scheduler = scheduler;
        this.d = d;
        this.lines = lines;
        this.clock = clock;
    }

    /** The key of class {@code index} of policy generation {@code generation} ({@link Lane#leaseKey}). */
    static long key(int generation, int index) {
        return ((long) generation << 32) | (index & 0xFFFF_FFFFL);
    }

    /**
     * Enters a request ({@link Entry}'s values) without the lock if it may: its ticket, RUNNING; or null (take the
     * lock).
     */
    Ticket enter(int classIndex, int generation, int route, int level, boolean newSession, SessionLoad load,
                 int kind, VirtualServers.Host host, boolean guaranteed, long now) {
        Lane lane = leased;
        if (lane == null || newSession || (kind & Entry.STREAM) != 0 || guaranteed
                || lane.leaseKey != key(generation, classIndex)) {
            return null;
        }
        if (load != null && !load.tryCount(lines.maxPerSession())) {
            return null;
        }
        boolean started = tryStart(lane);
        if (load != null) {
            load.started(started);
        }
        if (!started) {
            return null;
        }
        Ticket t = new Ticket(scheduler, now, route, level);
        t.host = host;
        t.lane = lane;
        lane.lowerLevel(t);
        t.timeNanos = now;
        t.load = load;
        t.state = State.RUNNING;
        return t;
    }

    /**
     * Completes RUNNING ticket {@code t} without the lock if it may; false: take the lock. {@code bytes}: the
     * response's size, negative when unknown.
     */
    boolean complete(Ticket t, long bytes) {
        Lane lane = t.lane;
        if (lane == null || word(lane.fast, home()) >= 0 || t.state != State.RUNNING || t.candidate || t.guaranteed
                || t.level != lane.levels) {
            return false;
        }
        SessionLoad load = t.load;
        if (load != null && (load.lineSet() || load.renewing == t)) {
            return false;
        }
        if (!t.endRunning(State.COMPLETED)) {
            return true; // ended meanwhile by another thread: nothing left to do, as for any ended ticket
        }
        // its session marks it ending before its permit goes back, and uncounts it in the same step as it clears the
        // mark: a request of the session that takes the lock meanwhile waits for the mark to go, so that it is never
        // put in the session's line behind a request whose permit is free already (where it would wait while a
        // newcomer of another session takes that permit)
        if (load != null && !load.tryEnd()) {
            finishWithLock(t, bytes); // its line was marked meanwhile: the permit goes back locked, the line moves on
            return true;
        }
        long before = release(lane);
        if (load != null) {
            load.ended(before >= 0);
        }
        if (before < 0) {
            finishWithLock(t, bytes); // the lease was settled meanwhile: the permit goes back locked
            return true;
        }
        t.load = null;
        if (bytes > 0) {
            lane.fastBytes.add(bytes);
        }
        if ((before & (Scheduler.SERVICE_SAMPLING - 1)) == 0 && sample(lane, clock.nanoTime() - t.timeNanos, t.route)
                && scheduler.lock.tryLock()) {
            // its share's samples are counted under the lock, if it is free: they wait for the next one rather than
            // the completion for the lock (nor for the requests that hold it)
            try {
                samplesLocked(lane);
            } finally {
                scheduler.lock.unlock();
            }
        }
        return true;
    }

    /**
     * Keeps the service time {@code took} (ns) of a request of route {@code route} in the current thread's share of
     * {@code lane}'s words, without the lock, for {@link #samplesLocked}: the shared counters ({@link ServiceTimes},
     * the lane's) are written once per {@link #SAMPLES} samples, not on every one, so that two threads do not fight
     * over them (issue 24). Returns whether the share holds {@link #SAMPLES} (count them now). A sample that finds the
     * share full, or whose slot is counted before it is written, is lost: a sample, never a count twice.
     */
    private static boolean sample(Lane lane, long took, int route) {
        long[] words = lane.fast;
        int i = index(home());
        long n = (long) FAST.getAndAdd(words, i + 1, 1L);
        if (n < SAMPLES) {
            FAST.setRelease(words, i + 2 + (int) n, SAMPLE | Math.min(Math.max(0, took), TOOK) << ROUTE_BITS | route);
        }
        return n >= SAMPLES - 1;
    }

    /**
     * Counts the service times the fast path kept in {@code lane}'s shares ({@link #sample}) into the lane (where
     * its requests went, if a reload removed it) and {@link ServiceTimes}. Under the lock.
     */
    void samplesLocked(Lane lane) {
        for (int k = 0; k < STRIPES; k++) {
            samplesLocked(lane, index(k));
        }
    }

    /** {@link #samplesLocked(Lane)} of the share whose word is at {@code i}. */
    private void samplesLocked(Lane lane, int i) {
        long[] words = lane.fast;
        long n = Math.min(SAMPLES, (long) FAST.getAndSet(words, i + 1, 0L));
        for (int j = 0; j < n; j++) {
            long x = (long) FAST.getAndSet(words, i + 2 + j, 0L);
            if (x != 0) {
                scheduler.times.timedLocked(lane.current(), x >>> ROUTE_BITS & TOOK, (int) (x & ROUTE));
            }
        }
    }

    /**
     * {@link #settleLocked()}, and counts the service times the fast path kept ({@link #samplesLocked}) of
     * {@code lanes}: before a snapshot.
     */
    void settleLocked(Lane[] lanes) {
        settleLocked();
        for (Lane lane : lanes) {
            samplesLocked(lane);
        }
    }

    /**
     * The rest of a completion the fast path claimed (COMPLETED) that needs the lock after all (the lease was settled,
     * or its session's line marked, before its permit went back): its permit goes back here, and its session counts it
     * no more (its line moves on); then waiting requests are dispatched.
     */
    private void finishWithLock(Ticket t, long bytes) {
        long now = clock.nanoTime();
        Ticket ready;
        scheduler.lock.lock();
        try {
            settleLocked();
            Lane lane = t.lane.current();
            t.lane = lane;
            lines.endedLocked(t, true, now);
            d.releaseLocked(lane);
            scheduler.completedLocked(t, lane, bytes, now);
            ready = d.dispatchLocked(null, now);
            leaseLocked(null);
        } finally {
            scheduler.lock.unlock();
        }
        Scheduler.notifyAll(ready);
    }

    /** Where the current thread's share is in a lane's words ({@link Lane#fast}). */
    private static int home() {
        return (int) Thread.currentThread().getId() & (STRIPES - 1);
    }

    private static int index(int share) {
        return (share + 1) * PAD; // away from the array's header too
    }

    private static long word(long[] words, int share) {
        return (long) FAST.getVolatile(words, index(share));
    }

    /** A new lane's words ({@link Lane#fast}): no lease. */
    static long[] words() {
        return new long[(STRIPES + 1) * PAD];
    }

    /** Takes a free permit of {@code lane}'s lease, its thread's share first: false when none is free, or no lease. */
    private static boolean tryStart(Lane lane) {
        long[] words = lane.fast;
        int home = home();
        for (int k = 0; k < STRIPES; k++) {
            int i = index((home + k) & (STRIPES - 1));
            for (;;) {
                long w = (long) FAST.getVolatile(words, i);
                if (w >= 0) {
                    return false; // no lease (the shares are settled together)
                }
                if ((w & ROOM) == 0 || (w >>> STARTED & COUNT) == COUNT) {
                    break; // none free here: the next share
                }
                if (FAST.compareAndSet(words, i, w, w - 1 + (1L << STARTED))) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Gives a permit back to {@code lane}'s lease, into its thread's share: the lane's completions before this one
     * as far as this share knows them (so that about one in {@link Scheduler#SERVICE_SAMPLING} is timed, and exactly
     * so on one thread), or -1 when it holds no lease.
     */
    private static long release(Lane lane) {
        long[] words = lane.fast;
        int i = index(home());
        for (;;) {
            long w = (long) FAST.getVolatile(words, i);
            if (w >= 0 || (w >>> COMPLETED & COUNT) == COUNT) {
                return -1;
            }
            // the lane's count is the one the lease was taken with (written before it): no settle since, or the CAS fails
            long before = lane.completed + (w >>> COMPLETED & COUNT);
            if (FAST.compareAndSet(words, i, w, w + 1 + (1L << COMPLETED))) {
                return before;
            }
        }
    }

    /**
     * Takes the lease back, if a lane holds one, and counts what the fast path did under it into the lane's and the
     * dispatcher's counters, and the service times its shares kept; from here the fast path takes the lock. Under the
     * lock, first of every operation.
     */
    void settleLocked() {
        Lane lane = leased;
        if (lane == null) {
            return;
        }
        LEASE.setRelease(this, null); // no fence needed: every word is taken back below, so a stale read fails its CAS
        int started = 0;
        int completed = 0;
        for (int k = 0; k < STRIPES; k++) {
            long w = (long) FAST.getAndSet(lane.fast, index(k), 0L);
            started += (int) (w >>> STARTED & COUNT);
            completed += (int) (w >>> COMPLETED & COUNT);
            if ((long) FAST.getOpaque(lane.fast, index(k) + 1) != 0) {
                // the share's service times too (on the cache line the swap just took): a locked decision (the queue
                // guard's) reads them as if each was counted when it was measured
                samplesLocked(lane, index(k));
            }
        }
        lane.entered += started;
        lane.grants += started;
        lane.waitBuckets[0] += started;
        for (int i = 0; i < started; i++) {
            d.policy.granted(lane);
        }
        lane.completed += completed;
        lane.completedByLevel[lane.levels] += completed; // the fast path completes at full content only
        lane.executing += started - completed;
        d.executing += started - completed;
    }

    /**
     * Leases {@code preferred} (null: the lane leased last) the permits it could take now, when nothing waits; under
     * the lock, last of every operation (after {@link #settleLocked}).
     */
    void leaseLocked(Lane preferred) {
        Lane lane = preferred != null ? preferred : home;
        if (lane == null || d.parked != 0 || lines.lined != 0) {
            return;
        }
        lane = lane.current();
        // its own budget too: a fast start never borrows (a borrowed grant is counted as such, under the lock)
        int room = Math.min(d.maxExecuting - d.executing - d.reservedFor(lane), lane.budget - lane.executing);
        if (room < 0) {
            return; // above a limit lowered meanwhile: nothing starts until enough requests end
        }
        home = lane;
        long key = key(generation, lane.index);
        if (lane.leaseKey != key) {
            lane.leaseKey = key;
        }
        for (int k = 0; k < STRIPES; k++) {
            // published by the release write of leased below (and a CAS that reads it early is just as right)
            FAST.setRelease(lane.fast, index(k), LEASED | (room / STRIPES + (k < room % STRIPES ? 1 : 0)));
        }
        // a release write, not a volatile one: a thread that reads the lane (volatile) sees the words written above,
        // and one that does not yet takes the lock; the fence of a volatile write is a tenth of a locked request
        LEASE.setRelease(this, lane);
    }
}

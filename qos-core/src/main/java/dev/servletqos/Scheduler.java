package dev.servletqos;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Per-class FIFO queues in front of the worker threads, per-class budgets (concurrency permits), and the
 * counters that reconcile every ticket's outcome. One lock guards all of it, so that a snapshot is consistent
 * and a decision sees one state; the lock is held for a few field updates only and listeners are called after
 * it is released. Under that lock the scheduler asks its parts, each with one job: {@link Admission} (every
 * refusal at entry, in order, with the {@link AdmissionStep}s of new sessions), {@link Dispatcher} (permits,
 * queues, who is served next by the {@link SchedulingPolicy}) and {@link SessionLines} ({@code
 * admission.max-per-session}); the scheduler itself enters, ends and expires tickets, counts them per class
 * ({@link Lane}), and puts settings ({@link SettingsClamp}) and reloaded policies ({@link LaneMigration}) in force.
 *
 * <p>The live settings (max-executing, budgets, session rates, delay targets) are one {@link Settings} value,
 * replaced whole by {@link #apply}, which clamps it and dispatches once.
 */
final class Scheduler {

    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    /** The one lock; the fast path ({@link FastPath}) takes it for what it cannot do without. */
    final ReentrantLock lock = new ReentrantLock();
    private final Clock clock;
    /** The lanes, highest priority first; the array is replaced, never changed, so it may be read without the lock. */
    private volatile Lane[] lanes;
    private volatile AdmissionStep.Rejections rejections;
    /**
     * The generation of the policy in force ({@link Regime}), to carry class indexes of an earlier one over; its
     * token-bucket rules (their rates are put in force with the settings) and its virtual servers.
     */
    private Regime regime;
    /** Who may enter: every refusal, in order; guarded by the lock. */
    private final Admission admission = new Admission(this);
    /** The sessions' lines ({@code admission.max-per-session}) and cookie renewals; guarded by the lock. */
    private final SessionLines lines = new SessionLines(this);
    /** Permits and queues: who runs, who waits, who is next; guarded by the lock. */
    private final Dispatcher d = new Dispatcher(admission, lines);
    /** An admitted session's request without the lock, while nothing waits ({@link FastPath}). */
    private final FastPath fast;

    private volatile Settings settings;
    /** The timed completions' service times, per class, per route and all; guarded by the lock. */
    final ServiceTimes times = new ServiceTimes();
    /** The one ticket of every exempt request ({@link #exempt()}), and how many there were (no lock). */
    private final Ticket exemptTicket = Ticket.exempt(this);
    private final java.util.concurrent.atomic.LongAdder exempted = new java.util.concurrent.atomic.LongAdder();
    /** The streams open now ({@link #detach}); guarded by the lock. */
    private final StreamPool streams = new StreamPool();

    /**
     * While nothing waits, one completion in this many (per class) reads the clock to measure its service
     * time: a clock read costs about a fifth of the request path of an admitted session. While requests wait,
     * every completion is timed (the dispatch that follows needs the time anyway). A power of two.
     */
    static final int SERVICE_SAMPLING = 8;
    private static final long NO_TIME = Long.MIN_VALUE;

    Scheduler(Regime regime, Settings initial, Clock clock) {
        this.clock = clock;
        this.fast = new FastPath(this, d, lines, clock);
        QosPolicy policy = regime.policy;
        List<ClassPolicy> classes = policy.classes();
        Lane[] l = new Lane[classes.size()];
        for (int i = 0; i < l.length; i++) {
            l[i] = new Lane(classes.get(i), i);
        }
        long now = clock.nanoTime();
        lock.lock();
        try {
            takePolicyLocked(regime, l);
            applyLocked(clampLocked(initial, Settings.Source.POLICY), now);
        } finally {
            lock.unlock();
        }
    }

    /** Puts a policy's lanes, scheduling, borrowing, refusals and limits in force; under the lock. */
    private void takePolicyLocked(Regime r, Lane[] next) {
        QosPolicy p = r.policy;
        d.takePolicyLocked(p, next);
        rejections = new AdmissionStep.Rejections(p.admission().rejectStatus(), p.admission().retryAfter());
        lines.configureLocked(p.admission().maxPerSession());
        admission.configureLocked(p);
        lanes = next;
        regime = r;
        fast.generation = r.generation;
    }

    /** A refusal for a request that waited its maximum, or could not be served after all: 503. */
    Rejection expiredRejection() {
        return rejections.of(Rejection.Reason.EXPIRED);
    }

    /** The settings in force. */
    Settings settings() {
        return settings;
    }

    /**
     * The sum of the reserves the policy gives: the least max-executing can be. The highest class's default reserve
     * is not counted: it gives way to a lower max-executing.
     */
    int reserves() {
        return d.reserves;
    }

    /** The engine's refusals (admission steps). */
    AdmissionStep.Rejections rejections() {
        return rejections;
    }

    /** Whether new sessions are admitted by the admission law and the queue guard; under the lock. */
    boolean autoAdmission() {
        return d.autoAdmission;
    }

    /** The mean service time of recent completions, nanoseconds; 0 before any was timed. Under the lock. */
    double meanServiceNanos() {
        return times.meanNanos;
    }

    /**
     * The service time the requests waiting in class {@code index} and the classes above it will take, ns: each at
     * its route's recent mean ({@link #meanServiceNanos()} for a route not timed yet, and for a waiting request in
     * no class queue, such as a guaranteed one). Not the engine's mean times their number: a page of 30 cheap
     * assets drew that mean down to two fifths for a moment, and the queue guard then let in sessions whose
     * pages waited behind the class above. Under the lock.
     */
    double queuedWorkNanos(int index) {
        return times.queuedWorkNanos(lanes, index);
    }

    /** {@code work} done on the admission under the lock: tests, and the cluster exchange ({@link ClusterLink}). */
    <T> T locked(java.util.function.Function<Admission, T> work) {
        lock.lock();
        try {
            return work.apply(admission);
        } finally {
            lock.unlock();
        }
    }

    /** The lanes, highest priority first (a shared array: do not modify). */
    Lane[] lanes() {
        return lanes;
    }

    /** The total concurrency in force; under the lock. */
    int maxExecuting() {
        return d.maxExecuting;
    }

    /** Permits held now by the classes above {@code index}; under the lock (admission steps). */
    int executingAbove(int index) {
        return d.executingAbove(index);
    }

    /** Requests waiting now in the classes above {@code index}; under the lock (admission steps). */
    int queuedAbove(int index) {
        return d.queuedAbove(index);
    }

    /** The permits kept free for the classes but {@code lane} ({@link Dispatcher#reservedFor}); under the lock. */
    int reservedFor(Lane lane) {
        return d.reservedFor(lane);
    }

    /** How long a request of the class waits before it is overdue ({@link Dispatcher#overdueAfterNanos}). */
    static long overdueAfterNanos(Lane lane) {
        return Dispatcher.overdueAfterNanos(lane);
    }

    /** The dispatcher, for the sessions' lines (their requests move on into its queues). */
    Dispatcher dispatcher() {
        return d;
    }

    /** Requests waiting now, all classes; under the lock (admission steps). */
    int queued() {
        return d.parked;
    }

    /**
     * Enters request {@code e} at {@code now}: RUNNING, PARKED or REJECTED. Its class indexes are of the policy of its
     * generation ({@link Regime}): one of a policy a reload replaced meanwhile is carried over by the class's name,
     * and its level is lowered to the class's levels if the reload gave it fewer. It meets {@link Admission}'s chain of
     * refusals (a new session counts as admitted only if its request is not rejected; a request of a known, admitted
     * session is never refused by session admission, and never comes at level 0), then is placed: a request of a
     * session with {@code admission.max-per-session} requests executing or in their class's queue (or a line) waits in
     * the session's line, PARKED; another runs at once when its class may start one, else waits in its class's queue.
     * A request within its virtual server's guarantee runs at once when a permit is free (its class's budget aside,
     * the other classes' reserves kept), else waits in the guaranteed queue, which is served before every class's. A
     * stream candidate may become an open stream later ({@link #detach}). An admitted session's request that finds a
     * permit free and nobody waiting takes no lock ({@link FastPath}). Allocates the ticket only: the methods stay
     * under the JIT's limit for hot methods (325 bytes of bytecode), so that the Entry is taken apart in
     * {@link Intake#enter}, not allocated (check with {@code -XX:+PrintInlining} and {@code -prof gc}).
     */
    Ticket enter(Entry e, long now) {
        return enter(now, e.classIndex(), e.sessionClass(), e.generation(), e.route(), e.level(), e.newSession(),
                e.load(), e.address(), e.kind(), e.host(), e.guaranteed());
    }

    /** {@link #enter(Entry, long)} with the entry's values. */
    private Ticket enter(long now, int classIndex, int sessionClass, int generation, int route, int level,
                         boolean newSession, SessionLoad load, String address, int kind, VirtualServers.Host host,
                         boolean guaranteed) {
        Ticket t = fast.enter(classIndex, generation, route, level, newSession, load, kind, host, guaranteed, now);
        if (t != null) {
            return t;
        }
        t = new Ticket(this, now, route, level);
        t.host = host;
        t.guaranteed = guaranteed;
        t.candidate = (kind & Entry.STREAM) != 0;
        t.anonymousStream = (kind & Entry.ANONYMOUS_STREAM) != 0;
        if ((kind & Entry.CREDENTIAL) != 0) {
            address = null; // a credential is never held by its address
        }
        Ticket ready;
        lock.lock();
        try {
            fast.settleLocked();
            // an index of the policy before a reload is carried over by the class's name
            Regime r = regime;
            Lane lane = lanes[r.resolve(generation, classIndex)];
            Lane sessionLane = lanes[r.resolve(generation, sessionClass)];
            lane.lowerLevel(t);
            t.lane = lane;
            lane.entered++;
            ready = d.expireOverdueLocked(now, null, rejections);
            Dispatcher.Place place = d.placeLocked(t, lane, load);
            if (admission.admitLocked(t, sessionLane, newSession, kind, load, address, place, now)) {
                d.putLocked(t, lane, load, address, place, now);
            } else if (load != null && !guaranteed && lines.refusedLocked(load, place == Dispatcher.Place.LINE, now)) {
                ready = d.dispatchLocked(ready, now);
            }
            fast.leaseLocked(lane);
        } finally {
            lock.unlock();
        }
        // Whatever was decided for this request, the requests expired on the way must hear of it.
        notifyAll(ready);
        return t;
    }

    /**
     * Claims the renewal of a session's admission cookie for ticket {@code t}, until {@code until}
     * ({@link SessionLines#claimRenewalLocked}); one renewed already (a client still presents it) is refused lock-free.
     */
    boolean claimRenewal(SessionLoad load, Ticket t, long presentedUntil, long until) {
        if (load.newestUntil > presentedUntil) {
            return false;
        }
        lock.lock();
        try {
            return lines.claimRenewalLocked(load, t, presentedUntil, until);
        } finally {
            lock.unlock();
        }
    }

    /** What is wrong with the sessions' lines ({@link SessionLines#problemLocked}), or null; for the tests. */
    String lineProblem() {
        lock.lock();
        try {
            return lines.problemLocked(lanes);
        } finally {
            lock.unlock();
        }
    }

    /**
     * The ticket of an exempt request ({@code exempt.<n>.*}), counted: one ticket shared by all of them, RUNNING for
     * good, in no class, holding no permit. Takes no lock and allocates nothing.
     */
    Ticket exempt() {
        exempted.increment();
        return exemptTicket;
    }

    /**
     * Makes RUNNING stream candidate {@code t} an open stream ({@link Ticket#detach()}): its permit is given back
     * and the waiting requests dispatched, as any release does, but the request is not ended and its time so far is
     * not timed as service (a stream's life is not the cost of a page, and it must not skew the capacity law's
     * baseline); its session no longer counts it for {@code admission.max-per-session}. It then counts among its
     * class's open streams until it ends ({@link #finish}). Refused (false, the permit kept) when the ticket is not
     * RUNNING or is a stream already, or when {@code streams.max-open} streams of the policy in force are open, or,
     * for a stream of no admitted session, half of them (rounded up): the bound holds also for candidates that
     * passed the check at entry at the same time.
     */
    boolean detach(Ticket t) {
        if (t.state != State.RUNNING || t.stream) {
            return false;
        }
        long now = clock.nanoTime();
        Ticket ready;
        lock.lock();
        try {
            fast.settleLocked();
            if (t.state != State.RUNNING || t.stream || streamsFullLocked(t.anonymousStream)) {
                return false; // nothing changed: leased again below
            }
            Lane lane = t.lane.current();
            t.lane = lane;
            lines.endedLocked(t, true, now); // the session's line moves on: dispatched below
            d.releaseLocked(lane);
            streams.openedLocked(t, lane);
            ready = d.dispatchLocked(null, now);
        } finally {
            fast.leaseLocked(null);
            lock.unlock();
        }
        notifyAll(ready);
        return true;
    }

    /** Whether a stream (of no admitted session: {@code anonymous}) finds the pool full ({@link StreamPool}). */
    boolean streamsFullLocked(boolean anonymous) {
        return streams.fullLocked(regime.front.maxOpenStreams, anonymous);
    }

    /**
     * Ends a ticket from the application's side: RUNNING -> COMPLETED (or DECLINED), PARKED -> CANCELLED.
     *
     * @param bytes    the response's size for a completed request, negative when unknown
     * @param declined the container declined the request (it was not served by the application)
     */
    void finish(Ticket t, long bytes, boolean declined) {
        if (t.state != State.RUNNING && t.state != State.PARKED || !declined && fast.complete(t, bytes)) {
            return;
        }
        Lane lane = t.lane;
        // read without the lock: only a hint of whether to time this completion (see SERVICE_SAMPLING)
        long now = d.parked > 0 || lines.lined > 0 || (!declined && (lane.completed & (SERVICE_SAMPLING - 1)) == 0)
                ? clock.nanoTime() : NO_TIME;
        Ticket ready = null;
        lock.lock();
        try {
            fast.settleLocked();
            if (now == NO_TIME && (d.parked > 0 || lines.lined > 0)) {
                // a request came to wait meanwhile: the dispatch (and a session's line moving on) needs the time
                now = clock.nanoTime();
            }
            if (endLocked(t, bytes, declined, now)) {
                ready = d.dispatchLocked(null, now);
            }
            fast.leaseLocked(null);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
    }

    /** {@link #finish} under the lock, at {@code now} (or NO_TIME): whether a permit or a place came free. Apart: it inlines. */
    private boolean endLocked(Ticket t, long bytes, boolean declined, long now) {
        // read again under the lock: a reload may have moved the ticket (parked) or removed its class (running: the
        // default class took its requests, and this permit)
        Lane lane = t.lane.current();
        t.lane = lane;
        if (t.stream) {
            if (t.state == State.RUNNING) {
                streams.closedLocked(t, lane, declined); // no permit to give back, no service time to measure
            }
            return false;
        }
        if (t.state == State.PARKED && !t.inLine()) {
            d.unlinkLocked(t, lane);
        }
        if (t.state == State.RUNNING) {
            if (!t.endRunning(declined ? State.DECLINED : State.COMPLETED)) {
                return false; // the fast path ended it meanwhile, and gives its permit back itself
            }
            lines.endedLocked(t, !declined, now);
            d.releaseLocked(lane);
            if (declined) {
                lane.declined++;
            } else {
                completedLocked(t, lane, bytes, now);
            }
        } else if (t.state == State.PARKED) {
            lines.endedLocked(t, false, now);
            t.claimNotification();
            t.state = State.CANCELLED;
            lane.cancelled++;
        } else {
            return false;
        }
        return true;
    }

    /** Counts ended ticket {@code t} of {@code lane} COMPLETED, with its service time when {@code now} is a time. */
    void completedLocked(Ticket t, Lane lane, long bytes, long now) {
        lane.completed++;
        lane.completedByLevel[Math.min(t.level, lane.levels)]++;
        if (now != NO_TIME) {
            times.timedLocked(t, lane, now);
        }
        if (bytes > 0) {
            lane.bytes += bytes;
        }
        if (t.guaranteed) {
            VirtualServers.delivered(t.host, bytes, now != NO_TIME ? now : clock.nanoTime());
        }
    }

    /** Takes a PARKED ticket out of its queue with the given end state; false if it was no longer parked. */
    boolean remove(Ticket t, State end) {
        if (t.state != State.PARKED) {
            return false;
        }
        Ticket ready = null;
        lock.lock();
        try {
            if (t.state != State.PARKED) { // no lease while a ticket waits: nothing to settle
                return false;
            }
            Lane lane = t.lane; // a parked ticket's lane is always current (a reload moves it)
            t.claimNotification();
            if (!t.inLine()) {
                d.unlinkLocked(t, lane);
            }
            // a request of a session with a line frees a place in flight: the line's first moves on, at this time
            long now = t.load != null && t.load.lineHead != null ? clock.nanoTime() : NO_TIME;
            if (lines.endedLocked(t, false, now)) {
                ready = d.dispatchLocked(null, now);
            }
            t.rejectWith(rejections.of(Rejection.Reason.EXPIRED)); // one answer per ticket, however often it is asked
            t.state = end;
            if (end == State.EXPIRED) {
                lane.expired++;
            } else {
                lane.cancelled++;
            }
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
        return true;
    }

    /** Expires every parked ticket whose maximum wait has passed; returns how many. */
    int expireOverdue(long now) {
        Ticket ready;
        int[] count = new int[1];
        lock.lock();
        try {
            fast.settleLocked();
            ready = d.expireOverdueLocked(now, count, rejections);
            fast.leaseLocked(null);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
        return count[0];
    }

    /**
     * Puts new settings in force: clamped ({@link #clampLocked}), then swapped whole, then one dispatch so
     * that a raised budget or total starts waiting requests at once. Returns the settings now in force.
     *
     * @throws IllegalArgumentException if the settings do not describe this engine's classes
     */
    Settings apply(Settings proposed, Settings.Source source) {
        Ticket ready;
        Settings applied;
        long now = clock.nanoTime();
        lock.lock();
        try {
            fast.settleLocked();
            applied = clampLocked(proposed, source);
            applyLocked(applied, now);
            ready = d.dispatchLocked(null, now);
            fast.leaseLocked(null);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
        return applied;
    }

    /**
     * Puts a reloaded policy in force, whole, under the lock: its classes (a class the old policy had keeps its
     * lane: its queue in order, its running requests and its counters; a new class starts empty), scheduling,
     * borrowing, refusals, and its settings, which replace the ones in force. The waiting requests of a class the
     * policy no longer has join the default class's queue, in the order they arrived (its maximum wait and delay
     * target apply to them from now), and its running requests count as the default class's: each moves into the
     * default class's counters as entered there, so that every class still reconciles. Guaranteed requests keep
     * their place in the guaranteed queue (one of a removed class changes class the same way). A waiting request
     * keeps its content level, lowered to its class's levels if it has fewer now. The new policy's token-bucket
     * rules and virtual servers (carried over by name, see {@link Regime}), {@code admission.max-per-session} and
     * {@code admission.max-queued-per-address} apply from now; each session's requests in flight and each
     * address's waiting requests stay counted as they were (a request counted under the per-address limit is
     * uncounted when it stops waiting, whatever the limit is then). A class's live content level stays when the
     * class stays with as many levels, a bucket's live rate when its rule stays the same ({@link LaneMigration#keepLive});
     * everything else is the new policy's. Then one dispatch.
     *
     * @return the settings now in force
     */
    Settings reload(Regime next, Settings initial) {
        Ticket ready;
        Settings applied;
        long now = clock.nanoTime();
        lock.lock();
        try {
            fast.settleLocked();
            Lane[] fresh = LaneMigration.lanes(lanes, next, d.guaranteedHead, d.policy);
            initial = LaneMigration.keepLive(initial, settings, regime, next);
            takePolicyLocked(next, fresh);
            LaneMigration.lowerLevels(fresh, d.guaranteedHead);
            // the caller checked the settings against the policy, so the clamp cannot refuse them
            applied = clampLocked(initial, Settings.Source.POLICY);
            applyLocked(applied, now, true); // every bucket takes the new policy's rate
            lines.moveAllOnLocked(lanes, now);
            ready = d.expireOverdueLocked(now, null, rejections);
            ready = d.dispatchLocked(ready, now);
            fast.leaseLocked(null);
        } finally {
            lock.unlock();
        }
        notifyAll(ready);
        return applied;
    }

    /** The settings {@code s} of {@code source} clamped for the policy in force ({@link SettingsClamp}). */
    private Settings clampLocked(Settings s, Settings.Source source) {
        String[] names = new String[lanes.length];
        int[] levels = new int[lanes.length];
        for (int i = 0; i < lanes.length; i++) {
            names[i] = lanes[i].name;
            levels[i] = lanes[i].levels;
        }
        return SettingsClamp.clamp(s, source, names, levels, d.reserves, settings, RequestBuckets.initial(regime.policy));
    }

    private void applyLocked(Settings s, long now) {
        applyLocked(s, now, false);
    }

    /** Puts clamped settings in force; {@code reconfigure}: every session bucket anew (a reloaded policy). */
    private void applyLocked(Settings s, long now, boolean reconfigure) {
        Settings old = reconfigure ? null : settings;
        d.applyLocked(s);
        for (int i = 0; i < lanes.length; i++) {
            Lane l = lanes[i];
            Settings.ClassSettings c = s.get(i);
            l.budget = c.budget();
            l.delayTargetNanos = c.delayTarget().toNanos();
            Settings.ClassSettings was = old == null || old.classes().size() <= i || !old.get(i).name().equals(l.name)
                    ? null : old.get(i);
            if (was == null || was.sessionRate() != c.sessionRate() || was.sessionBurst() != c.sessionBurst()) {
                l.configureSessions(c.sessionRate(), c.sessionBurst(), now);
            }
        }
        regime.buckets.configure(s.buckets(), now);
        settings = s;
    }

    /**
     * Calls the listeners of a chain of tickets that left their queues; outside the lock. A listener that
     * throws is logged and does not keep the others of the chain from being told.
     */
    static void notifyAll(Ticket ready) {
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

    /** A consistent copy of every counter and the settings in force. */
    EngineSnapshot snapshot(EngineSnapshot.Sessions sessions) {
        long now = clock.nanoTime();
        lock.lock();
        try {
            fast.settleLocked(lanes);
            List<ClassStats> stats = new ArrayList<>(lanes.length);
            for (Lane l : lanes) {
                stats.add(l.stats(settings.get(l.index)));
            }
            // the records copy the arrays they are given
            return new EngineSnapshot(d.scheduling, d.maxExecuting, d.executing, d.parked, stats, sessions, settings, now,
                    new EngineSnapshot.Routes(times.routeTimed, times.routeNanos), regime.buckets.stats(now),
                    regime.hosts.stats(), exempted.sum(), streams.open);
        } finally {
            fast.leaseLocked(null);
            lock.unlock();
        }
    }
}

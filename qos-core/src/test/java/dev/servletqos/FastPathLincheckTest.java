package dev.servletqos;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.StressOptions;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

/**
 * Lincheck (issue 24): the scheduler's lock-free fast path ({@link FastPath}) among its locked operations, checked for
 * linearizability against a sequential model of the scheduler by Lincheck's model checker (thread switches at every
 * shared-memory access, CAS and lock) and its stress mode. Unlike {@link SchedulerLincheckTest}, whose requests are all
 * stream candidates (which take the lock), these are admitted sessions' requests, which start and complete without the
 * lock while a permit is free and nobody waits, and take it otherwise. Two classes, strict priority, max-executing 2
 * with the highest class's default reserve (so a basic request starts only while a permit stays free for premium, or
 * premium runs), queues of two, {@code admission.max-per-session} 1. The operations, each by the thread that entered
 * the ticket, on its oldest ticket that has not ended:
 * <ul>
 *   <li>{@code enterPremium}, {@code enterBasic}: a request of the one session all threads share (its requests beyond
 *       the first in flight wait in its line) or of a session of the thread's own (none of its others in flight);</li>
 *   <li>{@code complete}, {@code cancel} and {@code sweep}, as in {@link SchedulerLincheckTest} (the container's
 *       {@code expire} is {@code cancel} with another end state: left to that test);</li>
 *   <li>{@code counts}: a snapshot's requests executing and waiting, all classes: the fast path's starts and
 *       completions are counted in by the snapshot's settle, and must show as one state.</li>
 * </ul>
 * After each run the listeners were told once, the counters reconcile and the lines hold their counts.
 *
 * <p>Each test checks 30 random scenarios (three threads of three operations, two before and one after), the model
 * checker 100 interleavings of each, the stress mode 1000 runs of each (at 50 scenarios both took 140 s on the
 * project's machine shared by four agents, where {@link SchedulerLincheckTest} took 85 s). {@code -Dqos.lincheck.iterations=N
 * -Dqos.lincheck.invocations=M} for more. The test fails if the fast path's lease ignores the reserve (tried by hand:
 * a basic request then starts on premium's permit).
 */
@Param(name = "tid", gen = ThreadIdGen.class)
public class FastPathLincheckTest {

    static final QosPolicy POLICY = PolicyParser.read(new ByteArrayInputStream("""
            classes = premium, basic
            default-class = basic
            max-executing = 2
            class.premium.max-queue = 2
            class.basic.max-queue = 2
            class.premium.max-wait = 10s
            class.basic.max-wait = 10s
            admission.max-per-session = 1
            """.getBytes(StandardCharsets.UTF_8)), "lincheck-fast", Map.of());
    private static final Duration PAST_MAX_WAIT = Duration.ofSeconds(11);
    private static final int THREAD_SLOTS = 8;

    private final FakeClock clock = new FakeClock();
    private final Scheduler scheduler = new Scheduler(Regime.first(POLICY, null), QosEngine.initialSettings(POLICY),
            clock);
    private final SessionLoad shared = new SessionLoad();
    private final long arrival = clock.nanoTime();
    private final List<List<Tracked>> tickets = new ArrayList<>();

    public FastPathLincheckTest() {
        for (int i = 0; i < THREAD_SLOTS; i++) {
            tickets.add(new ArrayList<>());
        }
        // one request through the lock first, as a server's first: it leases the fast path to basic
        scheduler.enter(entry(1, null), arrival).complete();
    }

    private static Entry entry(int c, SessionLoad load) {
        return new Entry(c, c, 0, 0, 1, false, load, null, Entry.CREDENTIAL, null, false);
    }

    private static final class Tracked implements Ticket.Listener {
        final Ticket ticket;
        final boolean parked;
        final AtomicInteger granted = new AtomicInteger();
        final AtomicInteger expired = new AtomicInteger();
        volatile boolean endedByAdapter;
        volatile boolean completedUntold;

        Tracked(Ticket ticket) {
            this.ticket = ticket;
            State s = ticket.state();
            // queuedNanos is set (under the lock, before the grant's volatile write of the state) only for a ticket
            // that joined a queue: one that waited in its session's line and was granted by another thread's
            // completion before this read is RUNNING now, but it waited. Reported as RUNNING, no sequential order had
            // it run at once (its session's line held a request ahead of it in the model), as in
            // SchedulerLincheckTest; a fast-path ticket never joins a queue
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

    private static boolean open(State s) {
        return s == State.RUNNING || s == State.PARKED;
    }

    private Tracked oldestOpen(int tid) {
        for (Tracked t : tickets.get(tid)) {
            if (open(t.ticket.state())) {
                return t;
            }
        }
        return null;
    }

    // entering is two operations, so that a third of the operations enter: the fast path then often has requests of
    // several threads running at once

    @Operation
    public String enterPremium(@Param(name = "tid") int tid, boolean shared) {
        return enter(tid, 0, shared);
    }

    @Operation
    public String enterBasic(@Param(name = "tid") int tid, boolean shared) {
        return enter(tid, 1, shared);
    }

    private String enter(int tid, int c, boolean shared) {
        // a thread's own session has none of its other requests in flight: each enter is a new one
        Ticket t = scheduler.enter(entry(c, shared ? this.shared : new SessionLoad()), arrival);
        Tracked tracked = new Tracked(t);
        tickets.get(tid).add(tracked);
        if (tracked.parked) {
            t.await(tracked);
        }
        return tracked.parked ? "PARKED" : t.state() == State.REJECTED ? "REJECTED" : "RUNNING";
    }

    @Operation
    public String complete(@Param(name = "tid") int tid) {
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

    @Operation
    public boolean cancel(@Param(name = "tid") int tid) {
        return endWhileParked(tid, true);
    }

    private boolean endWhileParked(int tid, boolean cancel) {
        for (Tracked t = oldestOpen(tid); t != null; t = oldestOpen(tid)) {
            if (cancel ? t.ticket.cancel() : t.ticket.expire()) {
                t.endedByAdapter = true;
                return true;
            }
            if (open(t.ticket.state())) {
                return false;
            }
        }
        return false;
    }

    @Operation
    public void sweep() {
        scheduler.expireOverdue(arrival + PAST_MAX_WAIT.toNanos());
    }

    @Operation
    public String counts() {
        EngineSnapshot s = scheduler.snapshot(null);
        for (ClassStats c : s.classes()) {
            if (!c.reconciles()) {
                throw new IllegalStateException("counters do not reconcile: " + c);
            }
        }
        return s.executing() + " executing, " + s.queued() + " queued";
    }

    @Validate
    public void listenersToldOnce() {
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

    @Test
    void modelChecking() {
        new ModelCheckingOptions()
                .iterations(Integer.getInteger("qos.lincheck.iterations", 30))
                .invocationsPerIteration(Integer.getInteger("qos.lincheck.invocations", 100))
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1)
                .sequentialSpecification(Model.class)
                .check(FastPathLincheckTest.class);
    }

    @Test
    void stress() {
        new StressOptions()
                .iterations(Integer.getInteger("qos.lincheck.iterations", 30))
                .invocationsPerIteration(Integer.getInteger("qos.lincheck.invocations", 1000))
                .threads(3)
                .actorsPerThread(3)
                .actorsBefore(2)
                .actorsAfter(1)
                .sequentialSpecification(Model.class)
                .check(FastPathLincheckTest.class);
    }

    /**
     * The sequential model: max-executing 2, premium's default reserve of one permit (a basic request starts only if a
     * permit is left for premium after it, or premium runs one), budgets of 2 with borrowing (no budget binds), no
     * admission step: a request runs when its class may start one and none of its class waits, else waits if its
     * class's queue has room, else is refused; a freed permit goes to the oldest waiting premium request that may
     * start, else the oldest basic one that may. The shared session as in {@link SchedulerLincheckTest}'s model; a
     * thread's own session never has another request in flight.
     */
    public static class Model {
        private static final int MAX = 2;
        private static final int QUEUE = 2;

        private static final class Req {
            final int cls;
            final boolean shared;
            State state;
            boolean inLine;

            Req(int cls, boolean shared, State state) {
                this.cls = cls;
                this.shared = shared;
                this.state = state;
            }
        }

        private final int[] running = new int[2];
        private int counted;
        private final ArrayDeque<Req> line = new ArrayDeque<>();
        private final List<ArrayDeque<Req>> queues = List.of(new ArrayDeque<>(), new ArrayDeque<>());
        private final List<List<Req>> tickets = new ArrayList<>();

        public Model() {
            for (int i = 0; i < THREAD_SLOTS; i++) {
                tickets.add(new ArrayList<>());
            }
        }

        private boolean canStart(int cls) {
            int total = running[0] + running[1];
            if (total >= MAX) {
                return false;
            }
            return cls == 0 || MAX - total - 1 >= Math.max(0, 1 - running[0]);
        }

        private Req oldestOpen(int tid) {
            for (Req r : tickets.get(tid)) {
                if (open(r.state)) {
                    return r;
                }
            }
            return null;
        }

        private void grant() {
            for (;;) {
                int cls = !queues.get(0).isEmpty() && canStart(0) ? 0
                        : !queues.get(1).isEmpty() && canStart(1) ? 1 : -1;
                if (cls < 0) {
                    return;
                }
                Req next = queues.get(cls).poll();
                next.state = State.RUNNING;
                running[cls]++;
            }
        }

        private boolean leaveQueue(Req r, State end) {
            if (r.state != State.PARKED) {
                return false;
            }
            r.state = end;
            if (r.inLine) {
                line.remove(r);
                r.inLine = false;
            } else {
                queues.get(r.cls).remove(r);
                ended(r);
                grant();
            }
            return true;
        }

        private void ended(Req r) {
            if (!r.shared) {
                return;
            }
            counted--;
            while (counted < 1 && !line.isEmpty()) {
                Req next = line.poll();
                next.inLine = false;
                counted++;
                queues.get(next.cls).add(next);
            }
        }

        public String enterPremium(int tid, boolean shared) {
            return enter(tid, 0, shared);
        }

        public String enterBasic(int tid, boolean shared) {
            return enter(tid, 1, shared);
        }

        private String enter(int tid, int cls, boolean shared) {
            Req r;
            if (shared && (counted >= 1 || !line.isEmpty())) {
                if (line.size() >= QUEUE) {
                    r = new Req(cls, true, State.REJECTED);
                } else {
                    r = new Req(cls, true, State.PARKED);
                    r.inLine = true;
                    line.add(r);
                }
            } else if (queues.get(cls).isEmpty() && canStart(cls)) {
                running[cls]++;
                r = new Req(cls, shared, State.RUNNING);
            } else if (queues.get(cls).size() >= QUEUE) {
                r = new Req(cls, shared, State.REJECTED);
            } else {
                r = new Req(cls, shared, State.PARKED);
                queues.get(cls).add(r);
            }
            if (shared && r.state != State.REJECTED && !r.inLine) {
                counted++;
            }
            tickets.get(tid).add(r);
            return r.state.name();
        }

        public String complete(int tid) {
            Req r = oldestOpen(tid);
            if (r == null) {
                return "none";
            }
            if (r.state == State.RUNNING) {
                r.state = State.COMPLETED;
                running[r.cls]--;
                ended(r);
                grant();
            } else {
                leaveQueue(r, State.CANCELLED);
            }
            return r.state.name();
        }

        public boolean cancel(int tid) {
            Req r = oldestOpen(tid);
            return r != null && leaveQueue(r, State.CANCELLED);
        }

        public void sweep() {
            for (Req r : line) {
                r.state = State.EXPIRED;
                r.inLine = false;
            }
            line.clear();
            for (ArrayDeque<Req> q : queues) {
                for (Req r : q) {
                    r.state = State.EXPIRED;
                    if (r.shared) {
                        counted--;
                    }
                }
                q.clear();
            }
        }

        public String counts() {
            return (running[0] + running[1]) + " executing, " + (queues.get(0).size() + queues.get(1).size())
                    + " queued";
        }
    }
}

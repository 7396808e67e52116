package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ExemptRule;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import dev.servletqos.policy.Rule;
import dev.servletqos.policy.VirtualServerPlan;
import dev.servletqos.policy.VirtualServerPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Random sequences of enter, complete, expire (by the engine and by the container), cancel, budget and
 * max-executing changes (down to 1, where the highest class's default reserve gives way), with fixed seeds, checking DESIGN.md's invariants after every step: every ticket has exactly one
 * outcome and the counters reconcile with the tickets the test holds; and the invariants every snapshot must
 * show ({@link Invariants}, shared with the concurrent {@code EngineStressTest}): the total never exceeds
 * max-executing; without borrowing no class runs above its budget (but for requests started before it was
 * lowered); a reserve is never lent; nothing waits while it could run. Listeners are told once; at the end
 * nothing is left.
 */
class InvariantFuzzTest {

    private static final String[] CLASSES = {"premium", "silver", "basic"};

    static List<Object[]> cases() {
        List<Object[]> cases = new ArrayList<>();
        long seed = 1;
        for (Scheduling s : Scheduling.values()) {
            for (int i = 0; i < 6; i++) {
                cases.add(new Object[] {s, seed++});
            }
        }
        return cases;
    }

    @ParameterizedTest(name = "{0} seed {1}")
    @MethodSource("cases")
    void invariantsHoldAfterEveryStep(Scheduling scheduling, long seed) {
        Random random = new Random(seed);
        FakeClock clock = new FakeClock();
        int max = 2 + random.nextInt(6);
        boolean borrowing = random.nextInt(3) > 0;
        QosPolicy.Builder b = QosPolicy.builder().scheduling(scheduling).maxExecuting(max).secret(Engines.SECRET)
                .borrowing(borrowing).higherQueuedTrigger(random.nextInt(4)).totalQueuedTrigger(random.nextInt(8))
                // low, so that sessions often have more requests in flight: the rest wait in their sessions' lines
                .maxPerSession(1 + random.nextInt(2));
        // a virtual server's guaranteed requests run on any free permit, their class's budget aside: with
        // borrowing, where the class budgets are not an invariant (architecture.md)
        boolean guarantees = borrowing && scheduling != Scheduling.FIXED_CAPACITY;
        if (guarantees) {
            b.addVirtualServer(VirtualServerPolicy.of("g", 1 + random.nextInt(10), 500 + random.nextInt(5000),
                    "g.example")).virtualServerPlan(new VirtualServerPlan(0.01, 0.00001, 0.58));
        }
        int reserveLeft = scheduling == Scheduling.SHARED_CAPACITY ? max / 2 : 0;
        for (String name : CLASSES) {
            int budget = 1 + random.nextInt(max);
            int reserve = Math.min(reserveLeft, random.nextInt(budget + 1));
            reserveLeft -= reserve;
            // a reserve of 0 is given or left to the default (the highest class's default reserve)
            ClassPolicy c = ClassPolicy.named(name).withBudget(budget);
            b.addClass((reserve > 0 || random.nextBoolean() ? c.withReserve(reserve) : c)
                    .withWeight(1 + random.nextInt(5)).withMaxQueue(random.nextInt(12))
                    .withMaxWait(Duration.ofMillis(50 + random.nextInt(500)))
                    .withDelayTarget(Duration.ofMillis(10 + random.nextInt(300)))
                    .withSessionRate(random.nextBoolean() ? 0 : 5 + random.nextInt(50)));
            b.addRule(Rule.header(name, "X-Tier", name).asTrusted());
        }
        // exempt probes and streams (issue 22) from a generator of their own, so that each seed's other steps stay
        // as they were: every fifth request is a stream, every twentieth a probe
        Random front = new Random(~seed);
        QosPolicy policy = b.addExempt(ExemptRule.onPaths("/health")).streams(s -> s.withMaxOpen(1 + front.nextInt(20))).build();
        QosEngine engine = QosEngine.create(policy, clock);
        Model model = new Model(engine, policy);
        long probes = 0;

        for (int step = 0; step < 3_000; step++) {
            int op = random.nextInt(100);
            if (op < 40) {
                String c = CLASSES[random.nextInt(CLASSES.length)];
                String session = random.nextInt(3) > 0 ? model.sessionOf(c, random) : null;
                // one in four without a credential: a browser's page (a new session of the default class) or an
                // API caller's (stateless without a cookie)
                int kind = random.nextInt(8);
                TestRequest r = kind == 0 ? TestRequest.get("/") : kind == 1 ? TestRequest.api("/") : request(c);
                if (guarantees && random.nextInt(3) == 0) {
                    r.host("g.example");
                }
                if (session != null) {
                    r.cookie("QOSSESSION", session);
                }
                int front20 = front.nextInt(20);
                if (front20 == 0) {
                    Ticket probe = engine.enter(TestRequest.get("/health").header("X-Tier", c), clock.nanoTime());
                    assertTrue(probe.exempt() && probe.state() == State.RUNNING, probe.toString());
                    probe.complete();
                    probes++;
                    assertEquals(probes, engine.snapshot().exempt());
                } else {
                    if (front20 < 5) {
                        r.header("Accept", "text/event-stream");
                    }
                    Ticket t = engine.enter(r, clock.nanoTime());
                    model.entered(t, session);
                    if (front20 < 3) {
                        // a candidate whose application goes asynchronous on its first pass, when it runs at once
                        model.detach(t);
                    }
                }
            } else if (op < 70) {
                model.completeOne(random);
            } else if (op < 78) {
                clock.advance(Duration.ofMillis(random.nextInt(200)));
                engine.expireOverdue(clock.nanoTime());
            } else if (op < 84) {
                model.containerExpiresOne(random);
            } else if (op < 90) {
                model.cancelOne(random);
            } else if (op < 94) {
                model.setBudget(CLASSES[random.nextInt(CLASSES.length)],
                        random.nextInt(engine.settings().maxExecuting() + 1));
            } else if (op < 95) {
                // down to 1, where the highest class's default reserve gives way, and back
                model.setMaxExecuting(1 + random.nextInt(max + 1));
            } else if (op < 97) {
                int[] budgets = new int[CLASSES.length];
                for (int k = 0; k < budgets.length; k++) {
                    budgets[k] = random.nextInt(max + 5) - 2;
                }
                model.controllerSets(budgets);
            } else {
                clock.advance(Duration.ofMillis(random.nextInt(20)));
            }
            if (front.nextInt(10) == 0) {
                model.detachOne(front); // one granted after waiting, going asynchronous on its resumed pass
            }
            model.check("step " + step);
        }
        model.endEverything(clock);
        EngineSnapshot s = engine.snapshot();
        assertEquals(0, s.executing(), "no permit left: " + s);
        assertEquals(0, s.queued(), "no ticket left: " + s);
        assertEquals(0, s.streams(), "no stream left: " + s);
        assertTrue(probes > 0 && s.classes().stream().mapToLong(ClassStats::completed).sum() > 0, "the run had probes");
        assertTrue(model.detached > 0, "the run had streams");
        for (ClassStats c : s.classes()) {
            assertEquals(c.entered(), c.completed() + c.declined() + c.rejected() + c.expired() + c.cancelled(),
                    c.toString());
        }
        assertTrue(java.util.Arrays.stream(model.linedSeen).sum() > 0, "no request waited in a session's line: " + s
                + " " + policy);
        if (guarantees) {
            EngineSnapshot.HostStats g = s.host("g");
            assertTrue(g.guaranteed() > 0 && g.guaranteed() < g.requests(), "the run had requests within the "
                    + "virtual server's guarantee and beyond it: " + g);
        }
    }

    /** What the test knows about every live ticket, to compare with the engine's counters. */
    private static final class Model implements Ticket.Listener {
        final QosEngine engine;
        final QosPolicy policy;
        final List<Ticket> live = new ArrayList<>();
        final long[] entered;
        final Set<Ticket> notified = Collections.newSetFromMap(new IdentityHashMap<>());
        /** Parked tickets whose listener must be told when the engine (not the test) ends their wait. */
        final Set<Ticket> awaiting = Collections.newSetFromMap(new IdentityHashMap<>());
        final Map<String, List<String>> sessions = new HashMap<>();
        /** The session each live ticket counts against (the admission cookie it presented or was given). */
        final Map<Ticket, String> sessionOfTicket = new IdentityHashMap<>();
        final Invariants invariants;
        /** Per class, the requests seen waiting in their sessions' lines, summed over the checks. */
        final long[] linedSeen = new long[CLASSES.length];

        /** Candidates that detached (became open streams) so far. */
        long detached;

        Model(QosEngine engine, QosPolicy policy) {
            this.engine = engine;
            this.policy = policy;
            this.entered = new long[policy.classes().size()];
            this.invariants = new Invariants(policy, engine.snapshot());
        }

        /** One of the class's sessions, most often one of its first two: so that sessions have many in flight. */
        String sessionOf(String c, Random random) {
            List<String> s = sessions.get(c);
            return s == null || s.isEmpty() ? null
                    : s.get(random.nextInt(random.nextInt(4) > 0 ? Math.min(2, s.size()) : s.size()));
        }

        void entered(Ticket t, String session) {
            entered[policy.classIndex(t.serviceClass())]++;
            if (t.setCookieHeader() != null && sessionsKnown() < 500) {
                sessions.computeIfAbsent(t.serviceClass(), k -> new ArrayList<>())
                        .add(cookieValue(t.setCookieHeader()));
            }
            if (t.state() == State.REJECTED) {
                // 429 only for a session whose line is full (the class's max-queue of its requests wait there)
                assertEquals(t.rejection().reason() == Rejection.Reason.SESSION_LIMIT ? 429 : 503,
                        t.rejection().status(), "refusals are 503 here: " + t.rejection());
                return;
            }
            assertFalse(t.stream(), "no ticket is a stream before it detaches: " + t);
            // a request within its virtual server's guarantee is not counted against its session
            String of = t.guaranteed() ? null : session != null ? session
                    : t.setCookieHeader() != null ? cookieValue(t.setCookieHeader()) : null;
            if (of != null) {
                sessionOfTicket.put(t, of);
            }
            live.add(t);
            if (t.state() == State.PARKED) {
                awaiting.add(t);
                t.await(this);
            }
        }

        private int sessionsKnown() {
            return sessions.values().stream().mapToInt(List::size).sum();
        }

        @Override
        public void granted(Ticket t) {
            assertTrue(notified.add(t), "a listener was told twice about " + t);
            assertEquals(State.RUNNING, t.state());
        }

        @Override
        public void expired(Ticket t) {
            assertTrue(notified.add(t), "a listener was told twice about " + t);
            assertEquals(State.EXPIRED, t.state());
        }

        private Ticket any(Random random, State state) {
            List<Ticket> candidates = new ArrayList<>();
            for (Ticket t : live) {
                if (t.state() == state) {
                    candidates.add(t);
                }
            }
            return candidates.isEmpty() ? null : candidates.get(random.nextInt(candidates.size()));
        }

        void completeOne(Random random) {
            Ticket t = any(random, State.RUNNING);
            if (t != null && random.nextInt(5) == 0) {
                t.decline();
                assertEquals(State.DECLINED, t.state());
            } else if (t != null) {
                t.complete(random.nextInt(10_000));
                assertEquals(State.COMPLETED, t.state());
            }
        }

        /**
         * The adapter's detach once the application went asynchronous: a RUNNING candidate becomes an open stream
         * holding no permit unless the pool is full, anything else is left as it was.
         */
        void detach(Ticket t) {
            EngineSnapshot before = engine.snapshot();
            State was = t.state();
            boolean wasStream = t.stream();
            boolean detached = t.detach();
            EngineSnapshot after = engine.snapshot();
            if (detached) {
                this.detached++;
                // an open stream no longer counts for its session's max-per-session: its line moves on (check)
                sessionOfTicket.remove(t);
                assertTrue(t.streamCandidate() && was == State.RUNNING && !wasStream, t.toString());
                assertTrue(t.stream() && t.state() == State.RUNNING, t.toString());
                assertEquals(before.streams() + 1, after.streams(), "one more stream open");
                assertTrue(before.streams() < policy.streams().maxOpen(), "the pool had room: " + before.streams());
                assertTrue(after.executing() <= before.executing(), "its permit was given back, or handed on");
            } else {
                assertEquals(wasStream, t.stream(), t.toString());
                assertEquals(before.streams(), after.streams());
                assertTrue(!t.streamCandidate() || was != State.RUNNING || wasStream
                        || before.streams() >= (policy.streams().maxOpen() + 1) / 2, "refused with room: " + t + ", "
                        + before.streams() + " open");
            }
        }

        void detachOne(Random random) {
            List<Ticket> candidates = new ArrayList<>();
            for (Ticket t : live) {
                if (t.state() == State.RUNNING && t.streamCandidate() && !t.stream()) {
                    candidates.add(t);
                }
            }
            if (!candidates.isEmpty()) {
                detach(candidates.get(random.nextInt(candidates.size())));
            }
        }

        void containerExpiresOne(Random random) {
            Ticket t = any(random, State.PARKED);
            if (t != null) {
                assertTrue(t.expire());
                awaiting.remove(t);
                assertEquals(State.EXPIRED, t.state());
            }
        }

        void cancelOne(Random random) {
            Ticket t = any(random, State.PARKED);
            if (t != null) {
                assertTrue(t.cancel());
                awaiting.remove(t);
                assertEquals(State.CANCELLED, t.state());
            }
        }

        void setBudget(String c, int b) {
            engine.setBudget(c, b);
            assertEquals(b, engine.settings().get(policy.classIndex(c)).budget());
            invariants.applied(engine.settings());
        }

        /** An operator's max-executing; one below the given reserves is refused and changes nothing. */
        void setMaxExecuting(int m) {
            try {
                engine.setMaxExecuting(m);
            } catch (IllegalArgumentException belowTheReserves) {
                assertTrue(belowTheReserves.getMessage().contains("sum of the reserves"), belowTheReserves.getMessage());
                return;
            }
            assertEquals(m, engine.settings().maxExecuting());
            invariants.applied(engine.settings());
        }

        /** The controller's output, clamped by the engine: never below min-budget, never above the total. */
        void controllerSets(int[] budgets) {
            Settings applied = engine.apply(engine.settings().withBudgets(budgets), Settings.Source.CONTROLLER);
            for (int k = 0; k < budgets.length; k++) {
                int b = applied.get(k).budget();
                assertTrue(b >= applied.get(k).minBudget() && b <= applied.maxExecuting(), applied.toString());
            }
            invariants.applied(applied);
        }

        void check(String where) {
            EngineSnapshot s = engine.snapshot();
            invariants.check(s, where);
            int n = entered.length;
            int[] running = new int[n];
            int[] parked = new int[n];
            int[] streams = new int[n];
            int[] lined = new int[n];
            live.removeIf(t -> t.state() != State.RUNNING && t.state() != State.PARKED);
            sessionOfTicket.keySet().removeIf(t -> t.state() != State.RUNNING && t.state() != State.PARKED);
            for (Ticket t : live) {
                int k = policy.classIndex(t.serviceClass());
                if (t.stream()) {
                    streams[k]++;
                } else if (t.state() == State.RUNNING) {
                    running[k]++;
                } else if (t.inLine()) {
                    lined[k]++;
                } else {
                    parked[k]++;
                }
            }
            // a session has at most max-per-session requests executing or in their class's queue; the rest wait in
            // its line, and only while it has that many
            Map<String, int[]> perSession = new HashMap<>();
            for (Map.Entry<Ticket, String> e : sessionOfTicket.entrySet()) {
                int[] c = perSession.computeIfAbsent(e.getValue(), x -> new int[2]);
                c[e.getKey().inLine() ? 1 : 0]++;
            }
            int cap = policy.admission().maxPerSession();
            for (Map.Entry<String, int[]> e : perSession.entrySet()) {
                int[] c = e.getValue();
                assertTrue(c[0] <= cap && (c[1] == 0 || c[0] == cap), where + ": a session has " + c[0]
                        + " in flight and " + c[1] + " in its line, max-per-session " + cap);
            }
            Invariants.checkLines(engine, where);
            // A request the engine granted or expired must hear of it, or its client waits for nothing.
            for (Ticket t : awaiting) {
                if (t.state() != State.PARKED) {
                    assertTrue(notified.contains(t), where + ": " + t + " left its queue but its listener was never told");
                }
            }
            awaiting.removeIf(t -> t.state() != State.PARKED);
            for (int k = 0; k < n; k++) {
                ClassStats c = s.classes().get(k);
                assertEquals(entered[k], c.entered(), where + ": entered of " + c.name());
                assertEquals(running[k], c.executing(), where + ": executing of " + c.name());
                assertEquals(parked[k], c.queued(), where + ": queued of " + c.name());
                assertEquals(streams[k], c.streams(), where + ": streams of " + c.name());
                assertEquals(lined[k], c.lined(), where + ": lined of " + c.name());
                linedSeen[k] += lined[k];
            }
            assertTrue(s.streams() <= policy.streams().maxOpen(), where + ": " + s.streams() + " streams open");
        }

        void endEverything(FakeClock clock) {
            for (int round = 0; round < 1_000 && !live.isEmpty(); round++) {
                for (Ticket t : new ArrayList<>(live)) {
                    if (t.state() == State.RUNNING) {
                        t.complete();
                    }
                }
                clock.advance(Duration.ofMillis(100));
                engine.expireOverdue(clock.nanoTime());
                check("draining");
            }
        }
    }
}

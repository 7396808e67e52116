package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import dev.servletqos.policy.VirtualServerPlan;
import dev.servletqos.policy.VirtualServerPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * Requests entering, waiting and completing on four threads while a fifth reloads the policy back and forth
 * between one with classes a, b, c and a virtual server (guaranteed requests) and one without b with a
 * token-bucket rule, a's content levels changing with it (and its live level lowered after each reload): no
 * request is lost (every one that waited is granted), every permit comes back, every class's counters reconcile
 * and its completed requests by level add up at the end, and each session's and each address's count of requests
 * in the engine came back to zero (with both caps at 1, each may have one request waiting again).
 */
class PolicyReloadStressTest {

    private static QosPolicy policy(boolean withB, boolean weighted) {
        return policy(withB, weighted, 8, 1000, true);
    }

    /**
     * Classes a, (b,) c with content levels (a's count changes with b), a virtual server while b is there and a
     * token-bucket rule on /search while it is not, and the two caps; {@code topReserve}: a keeps its default
     * reserve (else 0).
     */
    private static QosPolicy policy(boolean withB, boolean weighted, int perSession, int perAddress,
                                    boolean topReserve) {
        QosPolicy.Builder p = QosPolicy.builder().maxExecuting(2).defaultClass("c").secret(Engines.SECRET)
                .scheduling(weighted ? QosPolicy.Scheduling.WEIGHTED : QosPolicy.Scheduling.STRICT_PRIORITY)
                .maxPerSession(perSession).maxQueuedPerAddress(perAddress);
        for (String c : withB ? List.of("a", "b", "c") : List.of("a", "c")) {
            int levels = c.equals("c") ? 1 : c.equals("b") || withB ? 3 : 2;
            ClassPolicy cp = ClassPolicy.named(c).withMaxQueue(100_000).withMaxWait(Duration.ofMinutes(10))
                    .withLevels(levels);
            p.addClass(c.equals("a") && !topReserve ? cp.withReserve(0) : cp);
            p.addRule(Rule.header(c, "X-Tier", c).asTrusted());
        }
        if (withB) {
            p.addVirtualServer(VirtualServerPolicy.of("v", 200, 1e9, "v.example"))
                    .virtualServerPlan(new VirtualServerPlan(0.001, 0, 0.58));
        } else {
            p.addBucket(BucketPolicy.onPaths("search", 500, 1, 20, "/search"));
        }
        return p.build();
    }

    @Test
    void nothingIsLostAndEveryClassReconcilesWhileThePolicyIsReloadedUnderLoad() throws Exception {
        QosEngine engine = QosEngine.create(policy(true, false));
        ConcurrentLinkedQueue<Ticket> running = new ConcurrentLinkedQueue<>();
        Map<Ticket, Boolean> waited = new ConcurrentHashMap<>();
        ConcurrentLinkedQueue<String> sessions = new ConcurrentLinkedQueue<>();
        AtomicLong granted = new AtomicLong();
        AtomicLong expired = new AtomicLong();
        AtomicLong reloads = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Ticket.Listener listener = new Ticket.Listener() {
            @Override
            public void granted(Ticket t) {
                granted.incrementAndGet();
                running.add(t);
            }

            @Override
            public void expired(Ticket t) {
                expired.incrementAndGet();
            }
        };
        long deadline = System.nanoTime() + Duration.ofMillis(1500).toNanos();
        CountDownLatch done = new CountDownLatch(5);
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            long seed = i;
            threads.add(new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                String address = "10.0.0." + seed;
                String[] session = new String[1];
                String[] tiers = {"a", "b", "c", null};
                try {
                    while (System.nanoTime() - deadline < 0) {
                        if (random.nextInt(10) < 6) {
                            String tier = tiers[random.nextInt(tiers.length)];
                            TestRequest r = TestRequest.get(random.nextInt(8) == 0 ? "/search" : "/").from(address);
                            if (random.nextInt(4) == 0) {
                                r.host("v.example");
                            }
                            if (tier != null) {
                                r.header("X-Tier", tier);
                            }
                            if (session[0] != null && random.nextInt(3) == 0) {
                                r.cookie("QOSSESSION", session[0]);
                            }
                            Ticket t = engine.enter(r);
                            if (session[0] == null && t.setCookieHeader() != null) {
                                session[0] = Engines.cookieValue(t.setCookieHeader());
                                sessions.add(session[0]);
                            }
                            Ticket.State state = t.state(); // once: a parked ticket may be granted meanwhile
                            if (state == Ticket.State.RUNNING) {
                                running.add(t);
                            } else if (state == Ticket.State.PARKED) {
                                waited.put(t, Boolean.TRUE);
                                t.await(listener);
                            }
                        } else {
                            Ticket t = running.poll();
                            if (t != null) {
                                t.complete();
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                } finally {
                    done.countDown();
                }
            }, "worker-" + i));
        }
        threads.add(new Thread(() -> {
            try {
                for (int k = 0; System.nanoTime() - deadline < 0; k++) {
                    engine.reload(policy(k % 2 == 1, k % 3 == 2));
                    reloads.incrementAndGet();
                    engine.update(x -> x.withClass(0, x.get(0).withLevel(1.5))); // a's sessions at 1 and 2
                    for (ClassStats c : engine.snapshot().classes()) {
                        if (!c.reconciles()) {
                            throw new AssertionError("after reload " + k + ": " + c);
                        }
                    }
                }
            } catch (Throwable e) {
                failure.compareAndSet(null, e);
            } finally {
                done.countDown();
            }
        }, "reloader"));
        threads.forEach(Thread::start);
        done.await();
        assertEquals(null, failure.get(), () -> String.valueOf(failure.get()));

        // drain: finish what runs; the waiting requests are granted as permits come back
        for (int round = 0; round < 1_000_000; round++) {
            Ticket t = running.poll();
            if (t != null) {
                t.complete();
            } else if (engine.snapshot().queued() == 0) {
                break;
            }
        }
        EngineSnapshot end = engine.snapshot();
        assertEquals(0, end.queued(), end.toString());
        assertEquals(0, end.executing(), end.toString());
        for (ClassStats c : end.classes()) {
            assertEquals(0, c.executing(), c.toString());
            assertTrue(c.reconciles(), c.toString());
        }
        assertEquals(waited.size(), granted.get() + expired.get(), "every request that waited heard its outcome");
        assertEquals(0, expired.get(), "nothing waited ten minutes");
        assertTrue(reloads.get() > 10, "reloads while requests flowed: " + reloads.get());
        assertTrue(waited.size() > 100, "requests waited: " + waited.size());
        for (Ticket t : waited.keySet()) {
            assertEquals(Ticket.State.COMPLETED, t.state(), t.toString());
        }
        for (ClassStats c : end.classes()) {
            long byLevel = 0;
            for (long n : c.completedByLevel()) {
                byLevel += n;
            }
            assertEquals(c.completed(), byLevel, "completed by level add up: " + c);
            assertEquals(0, c.completedAtLevel(0), c.toString());
        }

        // the per-session and per-address counts came back to 0 across every reload: with both caps at 1 and the
        // permits taken, each worker's session and each worker's address may have one request waiting (no reserve:
        // the two blockers of the default class take both permits)
        engine.reload(policy(true, false, 1, 1, false));
        List<Ticket> blockers = List.of(engine.enter(TestRequest.get("/").from("10.9.9.9")),
                engine.enter(TestRequest.get("/").from("10.9.9.9")));
        for (Ticket b : blockers) {
            assertEquals(Ticket.State.RUNNING, b.state());
        }
        List<Ticket> last = new ArrayList<>();
        int n = 0;
        for (String s : sessions) {
            last.add(engine.enter(TestRequest.get("/").cookie("QOSSESSION", s).from("10.8.0." + n++)));
        }
        for (int i = 0; i < 4; i++) {
            last.add(engine.enter(TestRequest.get("/").from("10.0.0." + i)));
        }
        assertTrue(sessions.size() >= 4, "every worker had a session: " + sessions.size());
        for (Ticket t : last) {
            assertEquals(Ticket.State.PARKED, t.state(), () -> String.valueOf(t.rejection()));
        }
        List<Ticket> all = new ArrayList<>(blockers);
        all.addAll(last);
        for (Ticket t : all) {
            t.complete(); // a parked one is cancelled; the counts must come back all the same
        }
        EngineSnapshot after = engine.snapshot();
        assertEquals(0, after.executing() + after.queued(), after.toString());
        for (ClassStats c : after.classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }
}

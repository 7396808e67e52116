package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
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
 * between one with classes a, b, c and one without b: no request is lost (every one that waited is granted), every
 * permit comes back, and every class's counters reconcile at the end.
 */
class PolicyReloadStressTest {

    private static QosPolicy policy(boolean withB, boolean weighted) {
        QosPolicy.Builder p = QosPolicy.builder().maxExecuting(2).defaultClass("c").secret(Engines.SECRET)
                .scheduling(weighted ? QosPolicy.Scheduling.WEIGHTED : QosPolicy.Scheduling.STRICT_PRIORITY);
        for (String c : withB ? List.of("a", "b", "c") : List.of("a", "c")) {
            p.addClass(ClassPolicy.named(c).withMaxQueue(100_000).withMaxWait(Duration.ofMinutes(10)));
            p.addRule(Rule.header(c, "X-Tier", c).asTrusted());
        }
        return p.build();
    }

    @Test
    void nothingIsLostAndEveryClassReconcilesWhileThePolicyIsReloadedUnderLoad() throws Exception {
        QosEngine engine = QosEngine.create(policy(true, false));
        ConcurrentLinkedQueue<Ticket> running = new ConcurrentLinkedQueue<>();
        Map<Ticket, Boolean> waited = new ConcurrentHashMap<>();
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
                String[] tiers = {"a", "b", "c", null};
                try {
                    while (System.nanoTime() - deadline < 0) {
                        if (random.nextInt(10) < 6) {
                            String tier = tiers[random.nextInt(tiers.length)];
                            TestRequest r = TestRequest.get("/");
                            Ticket t = engine.enter(tier == null ? r : r.header("X-Tier", tier));
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
    }
}

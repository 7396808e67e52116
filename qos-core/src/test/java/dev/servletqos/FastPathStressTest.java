package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * The fast path of issue 24 under concurrent load: {@value #WORKERS} threads enter and complete admitted sessions'
 * requests in a tight loop (each its own sessions, and one session all share, so that its line fills), most of them
 * without the lock, while another thread makes requests wait now and then (a class's permits lowered to one, new
 * sessions, requests it cancels or lets expire) and takes snapshots, each of which takes the lease back. It proves that
 * every snapshot reconciles and never shows more running than the settings in force since the last one allow,
 * that no waiting request's listener is told twice, that the engine's counts are the outcomes the threads saw, and
 * that afterwards nothing runs, waits or stays counted in a session. {@code -Dqos.stress.millis=N} for a longer run
 * (default {@value #DEFAULT_MILLIS} ms).
 */
class FastPathStressTest {

    static final long DEFAULT_MILLIS = 1_500;
    static final int WORKERS = 3;
    private static final int MAX_PER_SESSION = 2;

    private final FakeClock clock = new FakeClock();
    private final QosPolicy policy = policy(Scheduling.STRICT_PRIORITY, 6, ClassPolicy.named("premium"),
            ClassPolicy.named("basic")).admission(a -> a.withMaxPerSession(MAX_PER_SESSION)).build();
    private final QosEngine engine = QosEngine.create(policy, clock);
    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final LongAdder completed = new LongAdder();
    private final LongAdder ended = new LongAdder(); // rejected, expired, cancelled
    private final LongAdder parked = new LongAdder();

    private String admit(String c) {
        Ticket first = engine.enter(request(c), clock.nanoTime());
        first.complete();
        completed.increment();
        return cookieValue(first.setCookieHeader());
    }

    /** Counts the listener's calls: exactly one per waiting ticket the adapter did not end itself. */
    private final class Once implements Ticket.Listener {
        final AtomicInteger calls = new AtomicInteger();
        /** The test ended the ticket itself ({@code cancel()} or {@code expire()} returned true): never told. */
        volatile boolean byAdapter;

        @Override
        public void granted(Ticket t) {
            calls.incrementAndGet();
        }

        @Override
        public void expired(Ticket t) {
            calls.incrementAndGet();
        }
    }

    /** Waits if PARKED, with a listener; the listener, or null. */
    private Once await(Ticket t, ConcurrentLinkedQueue<Once> waited) {
        if (t.state() != State.PARKED) {
            return null;
        }
        Once l = new Once();
        waited.add(l);
        parked.increment();
        t.await(l);
        return l;
    }

    private void end(Ticket t, Once l, boolean cancel) {
        if (l != null && t.state() == State.PARKED && (cancel ? t.cancel() : t.expire())) {
            l.byAdapter = true;
            ended.increment();
            return;
        }
        t.complete();
        State s = t.state();
        if (s == State.COMPLETED) {
            completed.increment();
        } else if (s == State.EXPIRED || s == State.CANCELLED) {
            ended.increment();
        } else {
            failures.add("complete() left " + t);
        }
    }

    @Test
    void admittedRequestsOnTheFastPathKeepEveryInvariantWhileOthersWait() throws Exception {
        long millis = Long.getLong("qos.stress.millis", DEFAULT_MILLIS);
        String shared = admit("basic");
        List<String[]> own = new ArrayList<>();
        for (int i = 0; i < WORKERS; i++) {
            own.add(new String[] {admit("basic"), admit("premium")});
        }
        ConcurrentLinkedQueue<Once> waited = new ConcurrentLinkedQueue<>();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(WORKERS + 1);
        List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < WORKERS; w++) {
            String[] mine = own.get(w);
            long seed = w;
            threads.add(new Thread(() -> {
                SplittableRandom random = new SplittableRandom(seed);
                List<Ticket> open = new ArrayList<>();
                List<Once> heard = new ArrayList<>();
                try {
                    while (!stop.get()) {
                        int pick = random.nextInt(8);
                        String cookie = pick == 0 ? shared : mine[pick == 1 ? 1 : 0];
                        Ticket t = engine.enter(TestRequest.get("/").cookie("QOSSESSION", cookie), clock.nanoTime());
                        if (t.state() == State.REJECTED) {
                            ended.increment();
                            continue;
                        }
                        heard.add(await(t, waited));
                        open.add(t);
                        // most end at once; some stay a little, so that requests of one thread overlap
                        while (open.size() > random.nextInt(3)) {
                            end(open.remove(0), heard.remove(0), random.nextInt(16) == 0);
                        }
                    }
                    while (!open.isEmpty()) {
                        end(open.remove(0), heard.remove(0), false);
                    }
                } catch (RuntimeException | Error e) {
                    failures.add(e.toString());
                } finally {
                    done.countDown();
                }
            }, "fast-" + w));
        }
        threads.add(new Thread(() -> {
            SplittableRandom random = new SplittableRandom(99);
            try {
                while (!stop.get()) {
                    int step = random.nextInt(4);
                    if (step == 0) {
                        // fewer permits: the workers' requests wait, the lease is settled and not given again
                        engine.setMaxExecuting(1 + random.nextInt(6));
                    } else if (step == 1) {
                        Ticket t = engine.enter(request(random.nextBoolean() ? "basic" : "premium"), clock.nanoTime());
                        if (t.state() == State.REJECTED) {
                            ended.increment();
                            continue;
                        }
                        end(t, await(t, waited), random.nextBoolean());
                    } else {
                        EngineSnapshot s = engine.snapshot();
                        for (ClassStats c : s.classes()) {
                            if (!c.reconciles()) {
                                failures.add("does not reconcile: " + c);
                            }
                        }
                        // max-executing only falls and rises between 1 and 6: never more than 6 run
                        if (s.executing() > 6 || s.executing() < 0) {
                            failures.add("executing " + s.executing() + " with max-executing at most 6");
                        }
                        String lines = engine.scheduler().lineProblem();
                        if (lines != null) {
                            failures.add(lines);
                        }
                    }
                }
                engine.setMaxExecuting(6);
            } catch (RuntimeException | Error e) {
                failures.add(e.toString());
            } finally {
                done.countDown();
            }
        }, "disturber"));
        threads.forEach(Thread::start);
        CountDownLatch timer = new CountDownLatch(1);
        timer.await(millis, java.util.concurrent.TimeUnit.MILLISECONDS);
        stop.set(true);
        assertTrue(done.await(60, java.util.concurrent.TimeUnit.SECONDS), "the threads stopped");
        assertTrue(failures.isEmpty(), () -> String.join("\n", failures));
        EngineSnapshot end = engine.snapshot();
        assertEquals(0, end.executing(), "nothing runs");
        assertEquals(0, end.queued(), "nothing waits");
        long entered = 0;
        long outcomes = 0;
        for (ClassStats c : end.classes()) {
            assertTrue(c.reconciles(), c.toString());
            assertEquals(0, c.lined());
            entered += c.entered();
            outcomes += c.completed() + c.rejected() + c.expired() + c.cancelled() + c.declined();
        }
        assertEquals(entered, outcomes);
        assertEquals(completed.sum() + ended.sum(), outcomes, "the engine's outcomes are those the threads saw");
        assertTrue(parked.sum() > 0, "requests waited during the run");
        for (Once l : waited) {
            // told at most once; never when the test ended it; not at all when its thread completed it after the grant
            // but before the granting thread told it (listeners are told after the lock)
            assertTrue(l.calls.get() <= (l.byAdapter ? 0 : 1), "a waiting request's listener told twice, or told "
                    + "of what the test did itself");
        }
        // every session's count is back at zero: max-per-session of its requests start at once, none in a line
        List<String> sessions = new ArrayList<>();
        sessions.add(shared);
        own.forEach(o -> sessions.add(o[0]));
        for (String cookie : sessions) {
            List<Ticket> now = new ArrayList<>();
            for (int i = 0; i < MAX_PER_SESSION; i++) {
                now.add(engine.enter(TestRequest.get("/").cookie("QOSSESSION", cookie), clock.nanoTime()));
            }
            for (Ticket t : now) {
                assertEquals(State.RUNNING, t.state(), "a session counted a request left over");
                t.complete();
            }
        }
    }
}

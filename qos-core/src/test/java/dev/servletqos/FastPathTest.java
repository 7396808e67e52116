package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The lock-free fast path of issue 24 ({@link FastPath}) as a user sees it: an admitted session's request that finds a
 * permit free and nobody waiting starts and ends while another thread holds the scheduler's lock; anything that waits
 * takes the lease back, so a permit a fast completion gave back goes to the request that came to wait, the highest
 * class's reserve is kept, and a session's requests beyond {@code admission.max-per-session} wait in its line.
 * {@link FastPathLincheckTest} checks the same paths for linearizability, {@link FastPathStressTest} under load.
 */
class FastPathTest {

    private final FakeClock clock = new FakeClock();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    /** One thread for a session's requests: its share of the lease counts its completions (one in eight timed). */
    private final ExecutorService requests = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        pool.shutdownNow();
        requests.shutdownNow();
    }

    private QosEngine engine(int maxExecuting, int maxPerSession) {
        QosPolicy p = policy(Scheduling.STRICT_PRIORITY, maxExecuting, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).admission(a -> a.withMaxPerSession(maxPerSession)).build();
        return QosEngine.create(p, clock);
    }

    /** A new session of {@code c}, its first request completed: the cookie of its later requests. */
    private String admit(QosEngine engine, String c) {
        Ticket first = engine.enter(request(c), clock.nanoTime());
        assertEquals(State.RUNNING, first.state());
        first.complete();
        return cookieValue(first.setCookieHeader());
    }

    private Ticket enter(QosEngine engine, String cookie) {
        Ticket t = engine.enter(TestRequest.get("/").cookie("QOSSESSION", cookie), clock.nanoTime());
        if (t.state() == State.PARKED) {
            t.await(new Engines.Recorder());
        }
        return t;
    }

    /** Holds the engine's scheduler lock on another thread until {@code release} opens; returns once it holds it. */
    private Future<?> holdLock(QosEngine engine, CountDownLatch release) throws InterruptedException {
        CountDownLatch held = new CountDownLatch(1);
        Future<?> holder = pool.submit(() -> {
            engine.scheduler().lock.lock();
            try {
                held.countDown();
                release.await();
            } finally {
                engine.scheduler().lock.unlock();
            }
            return null;
        });
        assertTrue(held.await(10, TimeUnit.SECONDS));
        return holder;
    }

    @Test
    void anAdmittedSessionsRequestStartsAndEndsWhileAnotherThreadHoldsTheLock() throws Exception {
        QosEngine engine = engine(8, 8);
        // the class's first completion, timed under the lock
        String cookie = requests.submit(() -> admit(engine, "basic")).get(30, TimeUnit.SECONDS);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = holdLock(engine, release);
        // seven requests, one after the other: the 2nd to 8th completions of the class, none of them timed (one in
        // SERVICE_SAMPLING is: the 9th)
        Future<List<State>> run = requests.submit(() -> {
            List<State> states = new ArrayList<>();
            for (int i = 0; i < Scheduler.SERVICE_SAMPLING - 1; i++) {
                Ticket t = enter(engine, cookie);
                states.add(t.state());
                t.complete();
                states.add(t.state());
            }
            return states;
        });
        List<State> states = run.get(30, TimeUnit.SECONDS); // would wait for ever behind the lock
        assertFalse(engine.scheduler().lock.hasQueuedThreads(), "nobody waited for the lock");
        for (int i = 0; i < states.size(); i += 2) {
            assertEquals(State.RUNNING, states.get(i));
            assertEquals(State.COMPLETED, states.get(i + 1));
        }
        release.countDown();
        holder.get(10, TimeUnit.SECONDS);
        ClassStats basic = engine.snapshot().classes().get(1);
        assertEquals(Scheduler.SERVICE_SAMPLING, basic.entered());
        assertEquals(Scheduler.SERVICE_SAMPLING, basic.completed());
        assertEquals(0, basic.executing());
        assertTrue(basic.reconciles(), basic.toString());
    }

    @Test
    void aPermitAFastCompletionGivesBackGoesToTheRequestThatCameToWait() {
        QosEngine engine = engine(1, 8);
        String a = admit(engine, "basic");
        String b = admit(engine, "basic");
        Ticket first = enter(engine, a); // on the lease: the only permit
        assertEquals(State.RUNNING, first.state());
        Ticket second = enter(engine, b);
        assertEquals(State.PARKED, second.state(), "no permit free: it waits, and the lease is taken back");
        first.complete();
        assertEquals(State.RUNNING, second.state(), "granted the permit the first gave back");
        second.complete();
        EngineSnapshot s = engine.snapshot();
        assertEquals(0, s.executing());
        assertEquals(0, s.queued());
        assertEquals(4, s.classes().get(1).completed());
    }

    @Test
    void theHighestClasssReserveIsNotLeasedToTheClassBelow() {
        QosEngine engine = engine(2, 8);
        String basic = admit(engine, "basic");
        String premium = admit(engine, "premium");
        Ticket b1 = enter(engine, basic);
        assertEquals(State.RUNNING, b1.state());
        Ticket b2 = enter(engine, basic);
        assertEquals(State.PARKED, b2.state(), "the second permit is premium's reserve");
        Ticket p = enter(engine, premium);
        assertEquals(State.RUNNING, p.state());
        p.complete();
        assertEquals(State.PARKED, b2.state(), "premium's reserve came back: still not basic's");
        b1.complete();
        assertEquals(State.RUNNING, b2.state());
        b2.complete();
        assertTrue(engine.snapshot().classes().stream().allMatch(ClassStats::reconciles));
    }

    @Test
    void aSessionsRequestsBeyondMaxPerSessionWaitInItsLineAndMoveOnAsOneEnds() {
        QosEngine engine = engine(8, 2);
        String cookie = admit(engine, "basic");
        Ticket one = enter(engine, cookie);
        Ticket two = enter(engine, cookie);
        Ticket three = enter(engine, cookie);
        assertEquals(State.RUNNING, one.state());
        assertEquals(State.RUNNING, two.state());
        assertEquals(State.PARKED, three.state(), "a third of the session waits in its line, permits free");
        assertEquals(1, engine.snapshot().classes().get(1).lined());
        two.complete();
        assertEquals(State.RUNNING, three.state(), "moved on as the second ended");
        one.complete();
        three.complete();
        Ticket four = enter(engine, cookie);
        Ticket five = enter(engine, cookie);
        assertEquals(State.RUNNING, four.state(), "the session counts nothing left over");
        assertEquals(State.RUNNING, five.state());
        four.complete();
        five.complete();
        assertEquals(null, engine.scheduler().lineProblem());
    }

    @Test
    void fastCompletionsServiceTimesReachTheSnapshotAlsoWhileAnotherThreadHoldsTheLock() throws Exception {
        QosEngine engine = engine(8, 8);
        Duration took = Duration.ofMillis(3);
        // the class's first completion, timed under the lock (it took no time)
        String cookie = requests.submit(() -> admit(engine, "basic")).get(30, TimeUnit.SECONDS);
        CountDownLatch release = new CountDownLatch(1);
        Future<?> holder = holdLock(engine, release);
        // 3 * 8 requests of 3 ms each on the fast path: three of them timed, kept by the thread's share of the lease
        Callable<Void> eightRequests = () -> {
            for (int i = 0; i < Scheduler.SERVICE_SAMPLING; i++) {
                Ticket t = enter(engine, cookie);
                assertEquals(State.RUNNING, t.state());
                clock.advance(took);
                t.complete();
                assertEquals(State.COMPLETED, t.state());
            }
            return null;
        };
        for (int i = 0; i < 3; i++) {
            requests.submit(eightRequests).get(30, TimeUnit.SECONDS);
        }
        assertFalse(engine.scheduler().lock.hasQueuedThreads(), "nobody waited for the lock");
        release.countDown();
        holder.get(10, TimeUnit.SECONDS);
        ClassStats basic = engine.snapshot().classes().get(1);
        assertEquals(1 + 3, basic.serviceTimed(), "the lock-free completions' samples counted at the snapshot");
        assertEquals(3 * took.toNanos(), basic.serviceNanos());
        // 9 * 8 more with the lock free: the share counts its samples itself when it holds FastPath.SAMPLES
        for (int i = 0; i < 9; i++) {
            requests.submit(eightRequests).get(30, TimeUnit.SECONDS);
        }
        basic = engine.snapshot().classes().get(1);
        assertEquals(1 + 12, basic.serviceTimed(), "one in " + Scheduler.SERVICE_SAMPLING + " timed, none lost");
        assertEquals(12 * took.toNanos(), basic.serviceNanos());
        assertEquals(1 + 12 * Scheduler.SERVICE_SAMPLING, basic.completed());
        assertTrue(basic.reconciles(), basic.toString());
    }
}

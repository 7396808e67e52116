package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The engine's periodic work survives any throwable on the seam the valve and the filter use (a
 * {@link ScheduledExecutorService}, which ends a fixed-delay task for good after one throw): an {@link Error}
 * such as an {@code OutOfMemoryError} under overload is counted and the task runs again at its next period.
 */
class PeriodicSurvivalTest {

    private final ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void shutDown() {
        executor.shutdownNow();
    }

    @Test
    void aTaskThatThrowsAnErrorRunsAgainAtItsNextPeriod() throws InterruptedException {
        LongAdder failures = new LongAdder();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch fiveRuns = new CountDownLatch(5);
        Periodic.surviving(Periodic.on(executor), "test", failures).schedule(() -> {
            int n = runs.incrementAndGet();
            fiveRuns.countDown();
            if (n <= 2) {
                throw new OutOfMemoryError("simulated, run " + n);
            }
        }, Duration.ofMillis(10));
        assertTrue(fiveRuns.await(30, TimeUnit.SECONDS), "the task went on after two Errors: " + runs.get() + " runs");
        assertEquals(2, failures.sum());
    }

    @Test
    void theControlLoopOfAnEngineOnAnExecutorSurvivesAnOutOfMemoryError() throws InterruptedException {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse("""
                classes = premium, basic
                default-class = basic
                control.period = 100ms
                """), new FakeClock());
        AtomicInteger calls = new AtomicInteger();
        CountDownLatch afterFailures = new CountDownLatch(3);
        engine.overrideControlLaw((sample, current) -> {
            if (calls.incrementAndGet() <= 3) {
                throw new OutOfMemoryError("simulated under overload");
            }
            afterFailures.countDown();
            return current;
        });
        engine.start(Periodic.on(executor));
        try {
            assertTrue(afterFailures.await(30, TimeUnit.SECONDS),
                    "the control loop ran again after three Errors: " + calls.get() + " calls");
            assertEquals(3, engine.periodicFailures(), "each failed run counted once");
            assertTrue(engine.controlStatus().periods() >= 3, "periods went on");
        } finally {
            engine.stop();
        }
    }
}

package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.EngineSnapshot;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The engine's counters against the simulator's: they reconcile in every snapshot during an overloaded run
 * (refusals, expiries, retries, a slowdown, renewed admission cookies), agree with what the clients saw,
 * and drain to zero when the load stops. Session admission works through the cookie: the engine admits
 * each session once, and no request of an admitted session is refused by admission.
 */
class ReconciliationTest {

    @Test
    void engineCountersReconcileThroughoutAndDrainToZero() {
        List<String> problems = new ArrayList<>();
        int[] checks = new int[1];
        SimResult r = Simulation.of(Scenarios.busyPolicy(), Scenarios.busyWorkload()).seed(17)
                .onStart((engine, periodic) -> periodic.schedule(() -> {
                    checks[0]++;
                    EngineSnapshot s = engine.snapshot();
                    if (s.executing() > s.maxExecuting()) {
                        problems.add("executing " + s.executing() + " > " + s.maxExecuting());
                    }
                    s.classes().forEach(c -> {
                        if (!c.reconciles()) {
                            problems.add("does not reconcile: " + c);
                        }
                    });
                }, Duration.ofMillis(250)))
                .run();

        assertTrue(checks[0] >= 1200, "checked every 250 ms of simulated time: " + checks[0]);
        assertEquals(List.of(), problems);
        assertTrue(r.drained(), r.toString());
        for (String c : r.classes()) {
            ClassTotals t = r.totals(c);
            SimEngine.EngineCounts e = r.engineCounts(c);
            assertTrue(e.reconciles(), c + ": " + e);
            assertEquals(0, e.executing(), c + " executing at the end");
            assertEquals(0, e.queued(), c + " queued at the end");
            assertEquals(0, e.cancelled(), c);
            assertEquals(t.arrivals(), e.entered(), c + " entered");
            assertEquals(t.completions(), e.completed(), c + " completed");
            assertEquals(t.rejections(), e.rejected(), c + " rejected");
            assertEquals(t.expirations(), e.expired(), c + " expired");
            assertEquals(t.grants(), e.grants(), c + " grants");
            assertEquals(t.queueDelaySeconds(), e.waitNanos() / 1e9, 1e-6 * t.queueDelaySeconds(), c + " waits");
            // sessions: admitted once each, through the cookie; refused ones are refused at their first request
            assertEquals(t.sessionsStarted() - t.sessionsRefused(), e.sessionsAdmitted(), c + " admitted");
            assertEquals(t.sessionRefusals(), e.sessionsRefused(), c + " refused by admission");
            assertEquals(0, t.laterAdmissionRefusals(), c + ": an admitted session is never refused by admission");
            assertEquals(t.sessionsStarted(), t.sessionsCompleted() + t.sessionsRefused() + t.sessionsFailed(),
                    c + ": every session ends once");
            assertEquals(t.arrivals(), t.completions() + t.rejections() + t.expirations(), c + ": every request");
        }
        ClassTotals basic = r.totals("basic");
        assertTrue(basic.sessionRefusals() > 50 && basic.sessionsCompleted() > 100, "basic: " + basic);
        assertTrue(r.totals("premium").sessionsCompleted() > 200, "premium: " + r.totals("premium"));
    }
}

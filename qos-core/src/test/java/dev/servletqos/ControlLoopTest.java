package dev.servletqos;

import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.control.ControlLaw;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The engine's periodic work on the Periodic seam, and the control loop's shell around a law. */
class ControlLoopTest {

    private static final Duration SWEEP = Duration.ofMillis(QosEngine.SWEEP_MILLIS);
    private static final Duration PERIOD = Duration.ofSeconds(1);

    private final FakeClock clock = new FakeClock();
    private final ManualPeriodic periodic = new ManualPeriodic();
    private final QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4,
            ClassPolicy.named("premium").withMaxWait(Duration.ofMillis(250)),
            ClassPolicy.named("basic")).build(), clock);

    @Test
    void theExpirySweepRunsOnTheSeamUntilStopped() {
        engine.start(periodic);
        assertThrows(IllegalStateException.class, () -> engine.start(periodic));
        List<Ticket> running = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            running.add(engine.enter(request("basic"), clock.nanoTime()));
        }
        running.add(engine.enter(request("premium"), clock.nanoTime())); // on premium's reserved permit
        Ticket waiting = engine.enter(request("premium"), clock.nanoTime());
        Engines.Recorder r = new Engines.Recorder();
        waiting.await(r);
        periodic.tick(clock, SWEEP);
        periodic.tick(clock, SWEEP);
        assertEquals(State.PARKED, waiting.state());
        periodic.tick(clock, SWEEP);
        assertEquals(State.EXPIRED, waiting.state(), "expired by the sweep at its maximum wait");
        assertEquals(List.of(waiting), r.expired);
        engine.stop();
        assertTrue(periodic.live(SWEEP).isEmpty() && periodic.live(PERIOD).isEmpty(), "stop cancels every task");
        running.forEach(Ticket::complete);
    }

    @Test
    void aLawsBudgetsAreAppliedAsTheControllersEachPeriod() {
        engine.start(periodic);
        List<Integer> seenBudgets = new ArrayList<>();
        engine.overrideControlLaw((sample, current) -> {
            seenBudgets.add(sample.get(0).budget());
            return current.withBudgets(3, 1);
        });
        periodic.tick(clock, PERIOD);
        assertEquals(Settings.Source.CONTROLLER, engine.settings().source());
        assertEquals(3, engine.snapshot().get("premium").budget());
        assertEquals(1, engine.snapshot().get("basic").budget());
        periodic.tick(clock, PERIOD);
        assertEquals(List.of(4, 3), seenBudgets, "each period's sample shows the budgets in force");
        ControlStatus st = engine.controlStatus();
        assertEquals(2, st.periods());
        assertEquals(0, st.failures());
        assertTrue(st.overridden());
        assertEquals(1.0, st.lastSample().seconds(), 1e-9);
    }

    @Test
    void aFailingLawKeepsTheLastGoodSettingsAndIsCounted() {
        engine.start(periodic);
        engine.overrideControlLaw((sample, current) -> current.withBudgets(2, 2));
        periodic.tick(clock, PERIOD);
        Settings good = engine.settings();
        ControlLaw throwing = (sample, current) -> {
            throw new ArithmeticException("boom");
        };
        engine.overrideControlLaw(throwing);
        periodic.tick(clock, PERIOD);
        periodic.tick(clock, PERIOD);
        engine.overrideControlLaw((sample, current) -> current.withClass(1,
                current.get(1).withSessionRate(Double.NaN, 1)));
        periodic.tick(clock, PERIOD);
        engine.overrideControlLaw((sample, current) -> null);
        periodic.tick(clock, PERIOD);
        assertSame(good, engine.settings(), "nothing a failing law returned was applied");
        ControlStatus st = engine.controlStatus();
        assertEquals(4, st.failures());
        assertEquals(5, st.periods() + 0, st.toString());
        assertTrue(st.lastFailure().contains("returned no settings"), st.lastFailure());
        // requests go on being served
        Ticket t = engine.enter(request("premium"), clock.nanoTime());
        assertEquals(State.RUNNING, t.state());
        t.complete();
    }

    @Test
    void aNewPeriodReschedulesTheLoopAtOnce() {
        engine.start(periodic);
        assertEquals(1, periodic.live(PERIOD).size());
        Settings s = engine.settings();
        engine.apply(s.withControl(s.control().withPeriod(Duration.ofMillis(500))), Settings.Source.OPERATOR);
        assertTrue(periodic.live(PERIOD).isEmpty());
        assertEquals(1, periodic.live(Duration.ofMillis(500)).size());
        engine.stop();
    }

    @Test
    void withModeOffTheLoopOnlyMeasures() {
        engine.start(periodic);
        Ticket t = engine.enter(request("premium"), clock.nanoTime());
        periodic.tick(clock, PERIOD);
        t.complete();
        ControlStatus st = engine.controlStatus();
        assertEquals(ControlPolicy.Mode.OFF, st.mode());
        assertEquals(Settings.Source.POLICY, engine.settings().source(), "off: no change, not even the source");
        assertEquals(1.0, st.lastSample().get("premium").arrivals(), 1e-9);
        assertNull(st.lastFailure());
    }

    @Test
    void controlSettingsOutOfRangeAreRefusedAndTheLoopGoesOn() {
        engine.start(periodic);
        Settings before = engine.settings();
        ControlPolicy bad = before.control().withMode(ControlPolicy.Mode.ABSOLUTE)
                .withAbsolute(new ControlPolicy.Gains(Double.NaN, 0.3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> engine.apply(before.withControl(bad), Settings.Source.OPERATOR));
        assertTrue(e.getMessage().contains("control.absolute.gain"), e.getMessage());
        assertSame(before, engine.settings(), "a refused change changes nothing");
        periodic.tick(clock, PERIOD);
        assertEquals(1, engine.controlStatus().periods());
        assertEquals(0, engine.controlStatus().failures());
    }
}

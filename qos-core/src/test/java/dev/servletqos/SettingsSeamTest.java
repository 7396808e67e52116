package dev.servletqos;

import dev.servletqos.policy.ClassPolicy;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.QosPolicy.Scheduling;
import dev.servletqos.Ticket.State;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The live settings: one value, swapped whole, clamped in one place, with who set it last. */
class SettingsSeamTest {

    private final FakeClock clock = new FakeClock();
    private final QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4,
            ClassPolicy.named("premium").withBudget(2).withMinBudget(1),
            ClassPolicy.named("basic").withBudget(2).withMinBudget(1)).borrowing(false).build(), clock);

    private List<Ticket> enter(String c, int n) {
        List<Ticket> l = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Ticket t = engine.enter(request(c), clock.nanoTime());
            if (t.state() == State.PARKED) {
                t.await(new Engines.Recorder());
            }
            l.add(t);
        }
        return l;
    }

    @Test
    void theSnapshotSaysWhichSettingsAreInForceAndWhoSetThem() {
        assertEquals(Settings.Source.POLICY, engine.snapshot().settings().source());
        assertEquals(List.of(2, 2), List.of(engine.settings().get(0).budget(), engine.settings().get(1).budget()));
        engine.setBudget("basic", 1);
        EngineSnapshot s = engine.snapshot();
        assertEquals(Settings.Source.OPERATOR, s.settings().source());
        assertEquals(1, s.get("basic").budget());
        engine.apply(engine.settings().withBudgets(3, 1), Settings.Source.CONTROLLER);
        assertEquals(Settings.Source.CONTROLLER, engine.snapshot().settings().source());
        assertEquals(3, engine.snapshot().get("premium").budget());
    }

    @Test
    void aSwapThatRaisesBudgetsStartsWaitingRequestsInOneDispatch() {
        List<Ticket> basic = enter("basic", 5);
        assertEquals(2, engine.snapshot().get("basic").executing());
        assertEquals(3, engine.snapshot().get("basic").queued());
        // budgets and total raised together: all five run at once
        engine.apply(engine.settings().withMaxExecuting(6).withBudgets(1, 5), Settings.Source.OPERATOR);
        assertEquals(5, engine.snapshot().get("basic").executing());
        assertEquals(0, engine.snapshot().queued());
        basic.forEach(Ticket::complete);
    }

    @Test
    void theControllerIsClampedToMinBudgetAndTheTotalTheOperatorIsNot() {
        Settings applied = engine.apply(engine.settings().withBudgets(-5, 99), Settings.Source.CONTROLLER);
        assertEquals(1, applied.get(0).budget(), "the controller never goes below min-budget");
        assertEquals(4, applied.get(1).budget(), "nor above max-executing");
        applied = engine.apply(engine.settings().withBudgets(0, 2), Settings.Source.OPERATOR);
        assertEquals(0, applied.get(0).budget(), "an operator may close a class");
        assertThrows(IllegalArgumentException.class, () -> engine.setBudget("basic", 5));
        assertEquals(2, engine.settings().get(1).budget(), "a refused change changes nothing");
    }

    @Test
    void aLoweredTotalLowersBudgetsNonPreemptively() {
        List<Ticket> premium = enter("premium", 2);
        engine.setMaxExecuting(1);
        assertEquals(1, engine.settings().get(0).budget());
        assertEquals(2, engine.snapshot().get("premium").executing(), "running requests are not cut off");
        premium.get(0).complete();
        Ticket waiting = enter("premium", 1).get(0);
        assertEquals(State.PARKED, waiting.state(), "one still runs, the total is 1");
        premium.get(1).complete();
        assertEquals(State.RUNNING, waiting.state());
        waiting.complete();
    }

    @Test
    void settingsOfAnotherEngineAreRefused() {
        Settings other = new Settings(4, 100, List.of(engine.settings().get(1), engine.settings().get(0)),
                engine.settings().control(), Settings.Source.OPERATOR);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> engine.apply(other, Settings.Source.OPERATOR));
        assertTrue(e.getMessage().contains("basic"), e.getMessage());
    }

    @Test
    void sessionRatesAreSetThroughTheSameSeam() {
        engine.setSessionRate("basic", 2.5, 3);
        assertEquals(2.5, engine.settings().get(1).sessionRate());
        assertEquals(2.5, engine.snapshot().get("basic").sessionRate());
        assertEquals(3, engine.snapshot().get("basic").sessionBurst());
        assertThrows(IllegalArgumentException.class, () -> engine.setSessionRate("basic", Double.NaN, 1));
        assertEquals(Duration.ofSeconds(1), engine.settings().control().period());
    }
}

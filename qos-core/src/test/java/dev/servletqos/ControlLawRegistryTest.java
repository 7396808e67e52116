package dev.servletqos;

import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.servletqos.control.ControlLaw;
import dev.servletqos.control.ControlLawRegistry;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Control laws are registered by stage and mode: an embedder's law runs in the chain beside the built-in ones. */
class ControlLawRegistryTest {

    private static final Duration PERIOD = Duration.ofSeconds(1);

    private final FakeClock clock = new FakeClock();
    private final ManualPeriodic periodic = new ManualPeriodic();

    private static QosPolicy absolute() {
        return policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium"),
                ClassPolicy.named("basic").withDelayTarget(Duration.ofMillis(100)))
                .control(ControlPolicy.DEFAULTS.withMode(ControlPolicy.Mode.ABSOLUTE)).build();
    }

    @Test
    void anOutsideLawRunsInTheChainAfterTheBuiltInLawBeforeIt() {
        QosEngine engine = QosEngine.create(absolute(), clock);
        List<int[]> seen = new ArrayList<>();
        engine.controlLaws().addAfter(ControlLawRegistry.BUDGETS, "probe", (control, p) -> (sample, current) -> {
            seen.add(current.budgets());
            return current.withClass(1, current.get(1).withSessionRate(7, 7));
        });
        engine.start(periodic);
        List<Ticket> running = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            running.add(engine.enter(request("basic"), clock.nanoTime()));
        }
        List<Ticket> waiting = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            waiting.add(engine.enter(request("basic"), clock.nanoTime()));
        }
        int[] before = engine.settings().budgets();
        periodic.tick(clock, PERIOD);

        assertEquals(1, seen.size(), "the outside law ran once in the period");
        assertArrayEquals(engine.settings().budgets(), seen.get(0),
                "it was given the budgets the absolute delay law set, which the engine applied");
        assertFalse(Arrays.equals(before, seen.get(0)),
                "the absolute delay law moved the budgets: basic waited past its delay target");
        assertEquals(7, engine.settings().get(1).sessionRate(), 1e-9, "the outside law's output applied too");
        assertEquals(0, engine.controlStatus().failures());
        engine.stop();
        running.forEach(Ticket::complete);
        waiting.forEach(Ticket::cancel);
    }

    @Test
    void aLawRegisteredForAModeReplacesOnlyThatModesLaw() {
        QosEngine engine = QosEngine.create(absolute(), clock);
        List<String> ran = new ArrayList<>();
        ControlLaw mine = (sample, current) -> {
            ran.add("mine");
            return current;
        };
        engine.controlLaws().register(ControlLawRegistry.BUDGETS, ControlPolicy.Mode.ABSOLUTE.key(), (c, p) -> mine);
        engine.start(periodic);
        periodic.tick(clock, PERIOD);
        assertEquals(List.of("mine"), ran, "control.mode = absolute now runs the registered law");
        Settings s = engine.settings();
        engine.apply(s.withControl(s.control().withMode(ControlPolicy.Mode.RELATIVE)), Settings.Source.OPERATOR);
        periodic.tick(clock, PERIOD);
        assertEquals(List.of("mine"), ran, "relative keeps its built-in law");
        assertEquals(0, engine.controlStatus().failures());
        engine.stop();
    }

    @Test
    void theBuiltInStagesRunInOrderAndAnAddedOneTakesItsPlace() {
        ControlLawRegistry r = ControlLawRegistry.builtIn();
        assertEquals(List.of("capacity", "budgets", "admission", "degradation", "buckets"), r.stages());
        long version = r.version();
        ControlLaw probe = (sample, current) -> current;
        r.addAfter(ControlLawRegistry.ADMISSION, "probe", (c, p) -> probe);
        assertEquals(List.of("capacity", "budgets", "admission", "probe", "degradation", "buckets"), r.stages());
        assertEquals(version + 1, r.version(), "the loop sees the change");
        QosPolicy p = QosPolicy.builder().addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic"))
                .control(ControlPolicy.DEFAULTS.withMode(ControlPolicy.Mode.ABSOLUTE)).build();
        List<ControlLaw> chain = r.laws(p.control(), p);
        List<String> builtIn = new ArrayList<>();
        for (ControlLaw l : chain.subList(0, 3)) {
            builtIn.add(l.getClass().getSimpleName());
        }
        assertEquals(List.of("CapacityLaw", "AbsoluteDelayLaw", "AdmissionLaw"), builtIn,
                "capacity and admission are auto without max-executing; no degradation, no bucket");
        assertSame(probe, chain.get(3));
        assertEquals(4, chain.size());
        assertThrows(IllegalArgumentException.class, () -> r.addAfter("nonesuch", "x", (c, q) -> null));
        assertThrows(IllegalArgumentException.class, () -> r.addAfter(null, "probe", (c, q) -> null));
    }
}

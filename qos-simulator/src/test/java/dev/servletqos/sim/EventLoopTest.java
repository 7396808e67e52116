package dev.servletqos.sim;

import static dev.servletqos.sim.Scenarios.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.Periodic;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The event loop orders by time, then by scheduling order; its {@link Periodic} runs tasks at simulated
 * times until cancelled; hooks change the engine's settings mid-run and the recorded budget shows it.
 */
class EventLoopTest {

    @Test
    void eventsRunInTimeOrderAndTiesInSchedulingOrder() {
        EventLoop loop = new EventLoop(new SimClock());
        List<String> log = new ArrayList<>();
        loop.at(20, () -> log.add("b@" + loop.now()));
        loop.atEndOf(10, () -> log.add("end@" + loop.now()));
        loop.at(10, () -> {
            log.add("a1@" + loop.now());
            loop.after(0, () -> log.add("a3@" + loop.now()));
        });
        loop.at(10, () -> log.add("a2@" + loop.now()));
        loop.at(30, () -> log.add("c@" + loop.now())).cancel();
        loop.runUntil(100, () -> false);
        assertEquals(List.of("a1@10", "a2@10", "a3@10", "end@10", "b@20"), log);
        assertEquals(20, loop.now());
        assertThrows(IllegalStateException.class, () -> loop.clock().moveTo(5));
    }

    @Test
    void periodicRunsEveryPeriodUntilCancelled() {
        EventLoop loop = new EventLoop(new SimClock());
        List<Long> runs = new ArrayList<>();
        Periodic.Cancellable[] handle = new Periodic.Cancellable[1];
        handle[0] = loop.schedule(() -> {
            runs.add(loop.now());
            if (runs.size() == 3) {
                handle[0].cancel();
            }
        }, Duration.ofMillis(250));
        Periodic.Cancellable never = loop.schedule(() -> runs.add(-1L), Duration.ofMillis(100));
        never.cancel();
        loop.runUntil(10_000_000_000L, () -> false);
        assertEquals(List.of(250_000_000L, 500_000_000L, 750_000_000L), runs);
    }

    @Test
    void hooksChangeTheEngineAtSimulatedTimes() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 10, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).build();
        Workload w = Workload.builder().duration(s(60))
                .add(ClassLoad.open("premium", 5)).add(ClassLoad.open("basic", 5)).build();
        List<Double> ticks = new ArrayList<>();
        SimResult r = Simulation.of(policy, w)
                .at(s(20), e -> e.setBudget("basic", 3))
                .onStart((engine, periodic) -> periodic.schedule(() -> {
                    ticks.add(engine.engine().clock().nanoTime() / 1e9 - SimClock.ORIGIN_NANOS / 1e9);
                    int b = engine.snapshot().get("premium").budget();
                    engine.setBudget("premium", Math.max(1, b - 1));
                }, Duration.ofSeconds(10)))
                .run();
        ClassSeries basic = r.series("basic");
        assertEquals(10, basic.value(Metric.BUDGET, 18));
        assertEquals(3, basic.value(Metric.BUDGET, 19), "changed at 20 s, seen at the end of the period 19..20");
        assertEquals(List.of(10.0, 20.0, 30.0, 40.0, 50.0, 60.0), ticks.subList(0, 6));
        ClassSeries premium = r.series("premium");
        assertEquals(10, premium.value(Metric.BUDGET, 8));
        assertEquals(9, premium.value(Metric.BUDGET, 9));
        assertEquals(5, premium.value(Metric.BUDGET, 49));
    }
}

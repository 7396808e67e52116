package dev.servletqos.sim;

import static dev.servletqos.sim.Scenarios.ms;
import static dev.servletqos.sim.Scenarios.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import org.junit.jupiter.api.Test;

/**
 * Strict priority with two classes overloaded (paper 004): premium (30 % of capacity) keeps a small queue
 * delay while basic (100 % of capacity on its own) queues up to its maximum wait; and the same load through
 * one shared FIFO class delays everybody, so the difference is the engine's scheduling.
 */
class StrictPriorityTest {

    private static final int PERMITS = 8;

    private static Workload overload(String premiumClass, String basicClass) {
        // capacity: 8 permits / 100 ms = 80 requests/s; premium 24/s, basic 80/s
        return Workload.builder().duration(s(300))
                .add(ClassLoad.open("premium", 24).header(premiumClass).session(SessionProfile.single(ms(100))))
                .add(ClassLoad.open("basic", 80).header(basicClass).session(SessionProfile.single(ms(100))))
                .build();
    }

    @Test
    void premiumDelayStaysSmallWhileBasicDelayGrows() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, PERMITS,
                ClassPolicy.named("premium"),
                ClassPolicy.named("basic").withMaxQueue(2000).withMaxWait(s(20))).build();
        SimResult r = Simulation.run(policy, overload("premium", "basic"), 5);
        ClassSeries premium = r.series("premium");
        ClassSeries basic = r.series("basic");

        double premiumMean = r.totals("premium").meanQueueDelay();
        assertTrue(premiumMean < 0.02, "premium waits at most for the next completion: " + premiumMean);
        for (int i = 0; i < premium.periods(); i++) {
            double p95 = premium.value(Metric.QUEUE_DELAY_P95, i);
            assertTrue(Double.isNaN(p95) || p95 < 0.25, "premium p95 in period " + i + ": " + p95);
        }
        assertEquals(0, r.totals("premium").expirations() + r.totals("premium").rejections());

        double early = basic.mean(Metric.QUEUE_DELAY_MEAN, 0, 20);
        double late = basic.mean(Metric.QUEUE_DELAY_MEAN, 200, 300);
        assertTrue(late > 10, "basic's queue fills up to its maximum wait: " + late);
        assertTrue(late > 5 * early, "basic's delay grows: " + early + " -> " + late);
        assertTrue(late > 100 * premiumMean, "basic " + late + " vs premium " + premiumMean);
        assertTrue(r.totals("basic").expirations() > 1000, "basic's excess expires: " + r.totals("basic"));
        // the permits are shared out by priority: premium gets what it asks for, basic the rest (~56/s)
        assertEquals(24, premium.rate(Metric.COMPLETIONS, 50, 300), 1.5);
        assertEquals(56, basic.rate(Metric.COMPLETIONS, 50, 300), 2.5);
    }

    @Test
    void withoutClassesEverybodyWaits() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, PERMITS,
                ClassPolicy.named("all").withMaxQueue(4000).withMaxWait(s(20))).build();
        SimResult r = Simulation.run(policy, overload("all", "all"), 5);
        double premium = r.series("premium").mean(Metric.QUEUE_DELAY_MEAN, 200, 300);
        assertTrue(premium > 10, "in one FIFO premium waits as long as basic: " + premium);
    }
}

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
 * A backend that slows down by 2x from 100 s to 200 s, under Poisson arrivals at 48/s on 8 permits with
 * 100 ms of work each: service times double, the permits' throughput halves (8 / 200 ms = 40/s), the queue
 * grows by the difference, 8 requests a second, and drains after the backend recovers.
 */
class BackendSlowdownTest {

    private static SimResult run(ServerModel server) {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 8,
                ClassPolicy.named("web").withMaxQueue(100_000).withMaxWait(s(3600))).build();
        Workload w = Workload.builder().duration(s(300)).server(server)
                .add(ClassLoad.open("web", 48).session(SessionProfile.single(ms(100)))).build();
        return Simulation.run(policy, w, 9);
    }

    @Test
    void serviceTimeDoublesAndTheQueueGrowsThenDrains() {
        // deterministic work, so that the service times are exact: 100 ms, 200 ms while slow
        SimResult r = run(ServerModel.defaults().service(Distribution.deterministic()).slowdown(s(100), s(200), 2));
        ClassSeries web = r.series("web");

        assertEquals(0.1, web.mean(Metric.SERVICE_TIME_MEAN, 0, 100), 1e-6, "at full speed");
        assertEquals(0.2, web.mean(Metric.SERVICE_TIME_MEAN, 101, 200), 1e-6, "while the backend is 2x slower");
        assertEquals(0.1, web.mean(Metric.SERVICE_TIME_MEAN, 201, 300), 1e-6, "after recovery");
        // a request running across a change of speed: its work done at one speed, the rest at the other
        double across = web.value(Metric.SERVICE_TIME_MEAN, 100);
        assertTrue(across > 0.1 && across < 0.2, "requests started before 100 s: " + across);

        assertEquals(40, web.rate(Metric.COMPLETIONS, 110, 200), 0.5, "throughput of 8 permits at 200 ms");
        double backlog = web.value(Metric.QUEUED, 199);
        assertEquals(8 * 100, backlog, 120, "the queue grows by 48 - 40 = 8 requests a second");
        double delayBefore = web.mean(Metric.QUEUE_DELAY_MEAN, 20, 100);
        double delayLate = web.mean(Metric.QUEUE_DELAY_MEAN, 195, 200);
        assertTrue(delayBefore < 0.02, "M/D/8 at rho 0.6 hardly waits: " + delayBefore);
        // a request arriving near 200 s waits for the backlog ahead of it, served at 40/s
        assertEquals(backlog / 40, delayLate, 0.15 * backlog / 40, "queueing while slow");
        // after 200 s the backlog drains at 80 - 48 = 32/s: gone after some 25 s
        assertTrue(web.value(Metric.QUEUED, 215) > 100, "still draining at 216 s");
        assertTrue(web.mean(Metric.QUEUE_DELAY_MEAN, 240, 300) < 0.02, "drained after recovery");
    }

    @Test
    void heavyTailedServiceDoublesOnAverage() {
        SimResult r = run(ServerModel.defaults().service(Distribution.lognormal(1.5)).slowdown(s(100), s(200), 2));
        ClassSeries web = r.series("web");
        double before = web.mean(Metric.SERVICE_TIME_MEAN, 0, 100);
        double during = web.mean(Metric.SERVICE_TIME_MEAN, 110, 200);
        assertEquals(0.1, before, 0.01);
        assertEquals(0.2, during, 0.02);
        assertTrue(web.mean(Metric.QUEUE_DELAY_MEAN, 180, 200) > 20 * web.mean(Metric.QUEUE_DELAY_MEAN, 20, 100));
    }

    @Test
    void withoutTheSlowdownNothingChanges() {
        SimResult r = run(ServerModel.defaults().service(Distribution.deterministic()));
        ClassSeries web = r.series("web");
        assertEquals(0.1, web.mean(Metric.SERVICE_TIME_MEAN, 101, 200), 1e-6);
        assertTrue(web.mean(Metric.QUEUE_DELAY_MEAN, 110, 200) < 0.02);
    }
}

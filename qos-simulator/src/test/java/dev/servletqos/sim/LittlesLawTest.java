package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import org.junit.jupiter.api.Test;

/**
 * Little's law, L = lambda W, on the recorded series: the time averages the recorder integrates (queue,
 * permits held, requests in the system) against the per-request times it sums. Over a whole run that starts
 * and ends empty it is an identity; over a window in steady state it holds up to the requests crossing the
 * window's edges.
 */
class LittlesLawTest {

    @Test
    void holdsExactlyOverTheWholeRun() {
        SimResult r = Simulation.run(Scenarios.busyPolicy(), Scenarios.busyWorkload(), 7);
        assertTrue(r.drained());
        double end = r.endSeconds();
        for (String c : r.classes()) {
            ClassSeries s = r.series(c);
            ClassTotals t = r.totals(c);
            // sum over periods of (time average x period) = integral over the run
            double queueArea = s.mean(Metric.QUEUED_MEAN, 0, end) * end;
            double busyArea = s.mean(Metric.BUSY_MEAN, 0, end) * end;
            double systemArea = s.mean(Metric.IN_SYSTEM_MEAN, 0, end) * end;
            double queueTimes = t.queueDelaySeconds() + t.expiredWaitSeconds();
            double holdTimes = t.responseSeconds() - t.queueDelaySeconds();
            assertEquals(queueTimes, queueArea, 1e-6 * Math.max(1, queueTimes), c + ": queue");
            assertEquals(holdTimes, busyArea, 1e-6 * holdTimes, c + ": permits held");
            assertEquals(queueTimes + holdTimes, systemArea, 1e-6 * systemArea, c + ": in the system");
            assertTrue(queueTimes > 1 && holdTimes > 1, c + " was busy");
        }
    }

    @Test
    void holdsOnASteadyStateWindow() {
        QosPolicy policy = SimEngine.policy(Scheduling.WEIGHTED, 10, ClassPolicy.named("premium").withWeight(3),
                ClassPolicy.named("basic")).build();
        SimResult r = Simulation.run(policy, Workload.builder().duration(Scenarios.s(600))
                .server(ServerModel.defaults().service(Distribution.lognormal(1.5)).processorSharing(6))
                .add(ClassLoad.closed("premium", 30).thinkBetweenSessions(Scenarios.s(2))
                        .session(SessionProfile.of(5, Scenarios.ms(60), Scenarios.s(1))))
                .add(ClassLoad.open("basic", 8).session(SessionProfile.of(3, Scenarios.ms(100), Scenarios.s(1))))
                .build(), 3);
        for (String c : r.classes()) {
            ClassSeries s = r.series(c);
            double from = 100;
            double to = 600;
            double l = s.mean(Metric.IN_SYSTEM_MEAN, from, to);
            double lambda = s.rate(Metric.COMPLETIONS, from, to);
            double w = s.mean(Metric.RESPONSE_TIME_MEAN, from, to);
            assertEquals(l, lambda * w, 0.03 * l, c + ": L = lambda W in the system");
            double lq = s.mean(Metric.QUEUED_MEAN, from, to);
            double wq = s.mean(Metric.QUEUE_DELAY_MEAN, from, to);
            double grants = s.rate(Metric.GRANTS, from, to);
            assertEquals(lq, grants * wq, 0.05 * lq + 1e-3, c + ": Lq = lambda Wq in the queue");
            // the engine's queue sampled at the end of each period agrees with the simulator's time average
            assertEquals(lq, s.mean(Metric.QUEUED, from, to), 0.15 * lq + 0.05, c + ": engine's queue");
        }
    }
}

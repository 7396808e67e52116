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
 * The server model's options on a saturated server (a closed population with no think time keeps every
 * permit busy): processor sharing stretches service by the concurrency over the cores, a worker limit below
 * the permits caps the throughput, heavy-tailed service keeps its mean.
 */
class ServerModelTest {

    private static SimResult saturated(int permits, ServerModel server) {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, permits,
                ClassPolicy.named("load").withMaxQueue(10_000).withMaxWait(s(3600))).build();
        Workload w = Workload.builder().duration(s(200)).server(server)
                .add(ClassLoad.closed("load", 40).thinkBetweenSessions(java.time.Duration.ZERO)
                        .session(SessionProfile.single(ms(100))))
                .build();
        return Simulation.run(policy, w, 31);
    }

    @Test
    void withoutProcessorSharingEveryPermitRunsAtFullSpeed() {
        SimResult r = saturated(8, ServerModel.defaults().service(Distribution.deterministic()));
        ClassSeries s = r.series("load");
        assertEquals(0.1, s.mean(Metric.SERVICE_TIME_MEAN, 20, 200), 1e-6);
        assertEquals(80, s.rate(Metric.COMPLETIONS, 20, 200), 0.5);
    }

    @Test
    void processorSharingSlowsEveryRequestWhenPermitsExceedCores() {
        SimResult r = saturated(8, ServerModel.defaults().service(Distribution.deterministic()).processorSharing(2));
        ClassSeries s = r.series("load");
        // 8 requests share 2 cores: each runs at 1/4 speed
        assertEquals(0.4, s.mean(Metric.SERVICE_TIME_MEAN, 20, 200), 1e-3);
        assertEquals(20, s.rate(Metric.COMPLETIONS, 20, 200), 0.3, "2 cores / 100 ms");
        assertEquals(8, s.mean(Metric.BUSY_MEAN, 20, 200), 0.01);
    }

    @Test
    void processorSharingWithFewerPermitsThanCoresIsFullSpeed() {
        SimResult r = saturated(2, ServerModel.defaults().service(Distribution.deterministic()).processorSharing(4));
        assertEquals(0.1, r.series("load").mean(Metric.SERVICE_TIME_MEAN, 20, 200), 1e-6);
    }

    @Test
    void workersBelowThePermitsCapThroughputAndAddToResponseTime() {
        SimResult r = saturated(8, ServerModel.defaults().service(Distribution.deterministic()).workers(4));
        ClassSeries s = r.series("load");
        assertEquals(40, s.rate(Metric.COMPLETIONS, 20, 200), 0.5, "4 workers / 100 ms");
        assertEquals(0.1, s.mean(Metric.SERVICE_TIME_MEAN, 20, 200), 1e-6);
        // a permit is held while waiting for a worker: 8 held, 4 served, response = 8 / 40 per second
        double wait = s.mean(Metric.RESPONSE_TIME_MEAN, 20, 200) - s.mean(Metric.QUEUE_DELAY_MEAN, 20, 200);
        assertEquals(0.2, wait, 0.01, "permit to completion");
    }

    @Test
    void heavyTailedServiceKeepsItsMean() {
        for (Distribution d : new Distribution[] {Distribution.lognormal(3), Distribution.boundedPareto(1.2, 1000)}) {
            SimResult r = saturated(8, ServerModel.defaults().service(d));
            ClassTotals t = r.totals("load");
            assertEquals(0.1, t.meanServiceTime(), 0.012, d + " over " + t.completions() + " requests");
        }
    }

    @Test
    void distributionsHaveTheirMeansAndShapes() {
        java.util.SplittableRandom random = new java.util.SplittableRandom(5);
        int n = 400_000;
        for (Distribution d : new Distribution[] {Distribution.exponential(), Distribution.deterministic(),
                Distribution.lognormal(0.5), Distribution.lognormal(2), Distribution.boundedPareto(1.5, 100),
                Distribution.boundedPareto(1, 50)}) {
            double sum = 0;
            double sum2 = 0;
            double min = Double.MAX_VALUE;
            double max = 0;
            for (int i = 0; i < n; i++) {
                double x = d.sample(2.0, random);
                sum += x;
                sum2 += x * x;
                min = Math.min(min, x);
                max = Math.max(max, x);
            }
            double mean = sum / n;
            assertEquals(2.0, mean, 0.03, d + " mean");
            double cv = Math.sqrt(Math.max(0, sum2 / n - mean * mean)) / mean;
            if (d.toString().startsWith("lognormal(cv=0.5")) {
                assertEquals(0.5, cv, 0.02, d + " cv");
            } else if (d.toString().equals("exponential")) {
                assertEquals(1.0, cv, 0.02, d + " cv");
            } else if (d.toString().startsWith("boundedPareto(alpha=1.5")) {
                assertTrue(max / min <= 100 + 1e-6 && max / min > 50, d + " range " + min + ".." + max);
            }
            assertTrue(min >= 0, d + " min");
        }
    }
}

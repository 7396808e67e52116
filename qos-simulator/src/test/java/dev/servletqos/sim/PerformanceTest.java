package dev.servletqos.sim;

import static dev.servletqos.sim.Scenarios.ms;
import static dev.servletqos.sim.Scenarios.s;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import org.junit.jupiter.api.Test;

/**
 * A 300-second run at about 100 requests a second must take well under a second. Measured as the run's CPU
 * time (the machine is shared, so wall-clock time says more about the neighbours), after one warm-up run.
 */
class PerformanceTest {

    @Test
    void threeHundredSimulatedSecondsAtAHundredRequestsASecondTakeWellUnderASecond() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 10, ClassPolicy.named("premium"),
                ClassPolicy.named("basic").withMaxWait(s(5))).build();
        Workload w = Workload.builder().duration(s(300))
                .server(ServerModel.defaults().service(Distribution.lognormal(2)).processorSharing(8))
                .add(ClassLoad.closed("premium", 100).thinkBetweenSessions(s(4))
                        .session(SessionProfile.of(6, ms(40), s(2))))
                .add(ClassLoad.open("basic", 12).session(SessionProfile.of(4, ms(60), s(1))))
                .build();
        Simulation.run(policy, w, 1);
        SimResult r = Simulation.run(policy, w, 2);
        long requests = r.totals("premium").arrivals() + r.totals("basic").arrivals();
        System.out.printf(java.util.Locale.ROOT, "300 s simulated, %d requests (%.0f/s), %d events: %.0f ms CPU,"
                + " %.0f ms real%n", requests, requests / r.loadSeconds(), r.events(), r.cpuMillis(), r.realMillis());
        assertTrue(requests / r.loadSeconds() > 90, "about 100 requests/s: " + requests);
        double ms = r.cpuMillis() >= 0 ? r.cpuMillis() : r.realMillis();
        assertTrue(ms < 1000, "took " + ms + " ms");
    }
}

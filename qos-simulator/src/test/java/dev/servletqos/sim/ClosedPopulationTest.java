package dev.servletqos.sim;

import static dev.servletqos.sim.Scenarios.ms;
import static dev.servletqos.sim.Scenarios.s;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import org.junit.jupiter.api.Test;

/**
 * Closed populations as in paper 001: users run sessions back to back, so the offered load is the population
 * over the cycle time. With spare capacity, doubling the population doubles the load; on a saturated server
 * the throughput stays at capacity and the delay absorbs the extra users.
 */
class ClosedPopulationTest {

    private static Workload doubling(int users, SessionProfile session, java.time.Duration between) {
        return Workload.builder().duration(s(600))
                .add(ClassLoad.closed("users", users).thinkBetweenSessions(between).session(session)
                        .populationAt(s(300), 2 * users))
                .build();
    }

    @Test
    void doublingThePopulationDoublesTheOfferedLoad() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 16, ClassPolicy.named("users")).build();
        // a cycle: 5 requests of 20 ms, 4 thinks of 2 s, 5 s between sessions: ~13 s, about 0.38 requests/s a user
        SimResult r = Simulation.run(policy, doubling(50, SessionProfile.of(5, ms(20), s(2)), s(5)), 21);
        ClassSeries u = r.series("users");

        // period i covers (i, i + 1] s: the change at 300 s is in period 299
        assertEquals(50, u.value(Metric.USERS, 298));
        assertEquals(100, u.value(Metric.USERS, 299));
        assertEquals(100, u.value(Metric.USERS, 599));
        double before = u.rate(Metric.ARRIVALS, 100, 300);
        double after = u.rate(Metric.ARRIVALS, 400, 600);
        assertEquals(50 * 5 / 13.0, before, 0.08 * before, "requests/s of 50 users");
        assertEquals(2.0, after / before, 0.12, "arrivals " + before + " -> " + after + " per second");
        double sessionsBefore = u.rate(Metric.SESSIONS_STARTED, 100, 300);
        double sessionsAfter = u.rate(Metric.SESSIONS_STARTED, 400, 600);
        assertEquals(2.0, sessionsAfter / sessionsBefore, 0.15, "sessions per second");
    }

    @Test
    void onASaturatedServerMoreUsersMeanLongerDelaysNotMoreThroughput() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 1,
                ClassPolicy.named("users").withMaxQueue(10_000).withMaxWait(s(3600))).build();
        // 1 permit at 200 ms: 5 requests/s; 50 single-request users thinking 1 s would offer ~50/s
        SimResult r = Simulation.run(policy, doubling(50, SessionProfile.single(ms(200)), s(1)), 22);
        ClassSeries u = r.series("users");

        assertEquals(5, u.rate(Metric.COMPLETIONS, 100, 300), 0.25);
        assertEquals(5, u.rate(Metric.COMPLETIONS, 400, 600), 0.25);
        // N = X (Z + W + S): W = N / X - Z - S
        assertEquals(50 / 5.0 - 1 - 0.2, u.mean(Metric.QUEUE_DELAY_MEAN, 100, 300), 1.0);
        assertEquals(100 / 5.0 - 1 - 0.2, u.mean(Metric.QUEUE_DELAY_MEAN, 400, 600), 1.5);
    }

    @Test
    void aShrinkingPopulationLeavesAsSessionsEnd() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 16, ClassPolicy.named("users")).build();
        Workload w = Workload.builder().duration(s(200))
                .add(ClassLoad.closed("users", 40).session(SessionProfile.of(3, ms(20), s(1)))
                        .populationAt(s(100), 10))
                .build();
        SimResult r = Simulation.run(policy, w, 23);
        ClassSeries u = r.series("users");
        assertEquals(40, u.value(Metric.USERS, 99));
        assertEquals(10, u.value(Metric.USERS, 150));
        assertEquals(0.25, u.rate(Metric.ARRIVALS, 120, 200) / u.rate(Metric.ARRIVALS, 20, 100), 0.05);
    }
}

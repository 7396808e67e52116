package dev.servletqos.sim;

import static dev.servletqos.sim.Scenarios.ms;
import static dev.servletqos.sim.Scenarios.s;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import org.junit.jupiter.api.Test;

/** Open arrivals follow their rate: constant, a step, a ramp; sessions bring their later requests. */
class ArrivalsTest {

    @Test
    void rateFunctionIsPiecewiseLinear() {
        Rate r = Rate.constant(10).step(s(100), 30).ramp(s(200), s(300), 0);
        assertEquals(10, r.at(0));
        assertEquals(10, r.at(99.9));
        assertEquals(30, r.at(100));
        assertEquals(30, r.at(199));
        assertEquals(15, r.at(250), 1e-9);
        assertEquals(0, r.at(300));
        assertEquals(0, r.at(1000));
        assertEquals(30, r.max());
        assertEquals(10 * 100 + 30 * 100 + 15 * 100, r.expected(0, 300), 1e-6);
        assertThrows(IllegalArgumentException.class, () -> r.step(s(50), 1));
    }

    @Test
    void sessionArrivalsFollowStepsAndRamps() {
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 100, ClassPolicy.named("web")).build();
        Rate rate = Rate.constant(20).step(s(200), 60).ramp(s(400), s(600), 0);
        Workload w = Workload.builder().duration(s(600))
                .add(ClassLoad.open("web", rate).session(SessionProfile.of(3, ms(10), s(1)))).build();
        SimResult r = Simulation.run(policy, w, 4);
        ClassSeries web = r.series("web");
        for (double[] window : new double[][] {{0, 200}, {200, 400}, {400, 500}, {500, 600}}) {
            double expected = rate.expected(window[0], window[1]);
            double got = web.sum(Metric.SESSIONS_STARTED, window[0], window[1]);
            assertEquals(expected, got, 4 * Math.sqrt(expected), "sessions in " + window[0] + ".." + window[1]);
        }
        ClassTotals t = r.totals("web");
        assertEquals(3 * t.sessionsStarted(), t.arrivals(), "three requests per session");
        assertEquals(t.sessionsStarted(), t.sessionsCompleted());
    }
}

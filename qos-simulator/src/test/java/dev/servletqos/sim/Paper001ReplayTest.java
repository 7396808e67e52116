package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * Paper 001's Workload D on the open-loop server (figure 3(c)(d)): fixed process budgets that suit the first
 * half of the run fail when class 0's population doubles at 870 s: class 0's delay climbs to class 1's and
 * the delay ratio collapses. The closed-loop counterpart (figure 3(a)(b)) is for the delay controllers.
 */
class Paper001ReplayTest {

    @Test
    void openLoopBudgetsFailWhenClassZeroDoubles() {
        SimResult r = Simulation.run(Paper001.policy(64, 64).build(), Paper001.workloadD(), 1);
        ClassSeries c0 = r.series(Paper001.name(0));
        ClassSeries c1 = r.series(Paper001.name(1));

        double w0Before = c0.mean(Metric.QUEUE_DELAY_MEAN, 150, 870);
        double w1Before = c1.mean(Metric.QUEUE_DELAY_MEAN, 150, 870);
        double w0After = c0.mean(Metric.QUEUE_DELAY_MEAN, 1100, 1800);
        double w1After = c1.mean(Metric.QUEUE_DELAY_MEAN, 1100, 1800);
        System.out.printf(java.util.Locale.ROOT, "workload D open loop: W0 %.1f -> %.1f s, W1 %.1f -> %.1f s; %s%n",
                w0Before, w0After, w1Before, w1After, r);

        // a class of N users on B processes: N = X (Z + W + S) with X = B / S, so W = N S / B - Z - S
        assertEquals(200 * 10.0 / 64 - 15, w1Before, 3, "class 1: 200 users on 64 processes");
        assertEquals(200 * 10.0 / 64 - 15, w1After, 3, "class 1 unchanged");
        assertTrue(w0Before < 3, "class 0: 100 users hardly wait on 64 processes: " + w0Before);
        assertEquals(200 * 10.0 / 64 - 15, w0After, 3, "class 0: 200 users now");
        assertTrue(w1Before / w0Before > 5 && w1After / w0After < 1.5, "the delay ratio W1/W0 collapses");
        assertEquals(100, c0.value(Metric.USERS, 85));
        assertEquals(200, c0.value(Metric.USERS, 88));
        assertEquals(64, c0.value(Metric.BUDGET, 100));
    }
}

package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class UtilizationEstimatorTest {

    /** One class that completed {@code r} requests/s with {@code w} bytes/s and refused {@code d}; busy share given. */
    static ClassSample cls(double r, double w, double d, double share) {
        return new ClassSample("c", 8, r + d, r, r, d, 0, WaitHistogram.empty(), 0.01, w, share * 16, share, 0, 0, 0,
                0);
    }

    static Sample sample(double cpu, ClassSample... classes) {
        return new Sample(1, 16, cpu, List.of(classes));
    }

    @Test
    void convergesToTheCostsOfSyntheticData() {
        double a = 0.002;       // 2 ms of utilization per request/s
        double b = 4e-8;        // 40 ms per MB
        double c = 0.0004;      // 0.4 ms per refusal, given
        Random random = new Random(3);
        UtilizationEstimator e = new UtilizationEstimator(UtilizationSource.CPU, c);
        for (int i = 0; i < 200; i++) {
            double r = 20 + 150 * random.nextDouble();
            double w = r * (5_000 + 60_000 * random.nextDouble());
            double d = random.nextDouble() < 0.5 ? 0 : 300 * random.nextDouble();
            double u = a * r + b * w + c * d + 0.005 * random.nextGaussian();
            e.update(sample(u, cls(r, w, d, 0.3)));
        }
        System.out.printf("fitted a %.5f (2e-3), b %.3e (4e-8)%n", e.a(), e.b());
        assertEquals(a, e.a(), 0.05 * a);
        assertEquals(b, e.b(), 0.05 * b);
        assertEquals(c, e.c());
        // a class's utilization by the model counts its refusals at c
        assertEquals(a * 100 + b * 2e6 + c * 50, e.utilization(cls(100, 2e6, 50, 0.3)), 0.01);
        assertEquals(UtilizationSource.CPU, e.source());
    }

    @Test
    void followsCostsThatChange() {
        Random random = new Random(5);
        UtilizationEstimator e = new UtilizationEstimator(UtilizationSource.CPU, 0);
        for (int i = 0; i < 300; i++) {
            double a = i < 150 ? 0.002 : 0.004; // every request twice as dear from period 150
            double r = 20 + 100 * random.nextDouble();
            double w = r * (5_000 + 60_000 * random.nextDouble());
            e.update(sample(a * r + 2e-8 * w, cls(r, w, 0, 0.3)));
        }
        assertEquals(0.004, e.a(), 0.0002);
        assertEquals(2e-8, e.b(), 0.2e-8);
    }

    @Test
    void costsAreNeverNegative() {
        Random random = new Random(9);
        UtilizationEstimator e = new UtilizationEstimator(UtilizationSource.CPU, 0);
        for (int i = 0; i < 100; i++) {
            double r = 50 + 10 * random.nextDouble();
            // bytes proportional to requests: a and b are not told apart, and noise would push one below 0
            e.update(sample(0.003 * r + 0.02 * random.nextGaussian(), cls(r, r * 10_000, 0, 0.3)));
            assertTrue(e.a() >= 0 && e.b() >= 0 && e.c() >= 0, e.a() + " " + e.b() + " " + e.c());
        }
        // what matters is the prediction at the operating point
        assertEquals(0.003 * 55, e.utilization(cls(55, 550_000, 0, 0.3)), 0.01);
    }

    @Test
    void autoTakesTheBusierResourceAndSwitchesWithAMargin() {
        UtilizationEstimator e = new UtilizationEstimator(UtilizationSource.AUTO, 0);
        e.update(sample(Double.NaN, cls(10, 1000, 0, 0.5)));
        assertEquals(UtilizationSource.OCCUPANCY, e.source(), "no CPU load known");
        assertEquals(0.5, e.measured(), 1e-9);
        UtilizationEstimator f = new UtilizationEstimator(UtilizationSource.AUTO, 0);
        f.update(sample(0.6, cls(10, 1000, 0, 0.5)));
        assertEquals(UtilizationSource.CPU, f.source());
        for (int i = 0; i < 10; i++) {
            f.update(sample(0.6, cls(10, 1000, 0, 0.65)));
        }
        assertEquals(UtilizationSource.CPU, f.source(), "occupancy busier by less than the margin");
        for (int i = 0; i < 10; i++) {
            f.update(sample(0.3, cls(10, 1000, 0, 0.9)));
        }
        assertEquals(UtilizationSource.OCCUPANCY, f.source());
        assertEquals(0.9, f.measured(), 1e-9);
        assertEquals(1, f.switches());
    }
}

package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings.ClassSettings;
import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy.Mode;
import dev.servletqos.policy.ControlPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;

/** Settings, samples and simulated plants typed in by hand, for the control law tests. */
final class Fixtures {

    static final double PERIOD = 5;

    private Fixtures() {
    }

    static ClassSettings cls(String name, int budget, int minBudget, double targetSeconds) {
        return new ClassSettings(name, budget, minBudget, 0, 1, Duration.ofNanos(Math.round(targetSeconds * 1e9)));
    }

    static Settings settings(int maxExecuting, double quantile, ClassSettings... classes) {
        ControlPolicy control = ControlPolicy.DEFAULTS.withMode(Mode.ABSOLUTE).withPeriod(Duration.ofSeconds(5))
                .withDelayQuantile(quantile);
        return new Settings(maxExecuting, 100_000, List.of(classes), control, Settings.Source.POLICY);
    }

    /** A class whose granted requests waited {@code delay} seconds each (mean and histogram agree). */
    static ClassSample measured(String name, int budget, double delay) {
        long[] counts = new long[WaitHistogram.BUCKETS];
        counts[WaitHistogram.bucket(Math.round(Math.max(0, delay) * 1e9))] = 10;
        return new ClassSample(name, budget, 2, 2, 2, 0, delay, WaitHistogram.of(counts), 0.1, 1000, budget,
                0.5, 3, budget, 0, 0);
    }

    /** A class none of whose requests was granted, with {@code queued} waiting at the end. */
    static ClassSample ungranted(String name, int budget, int queued) {
        return new ClassSample(name, budget, 0, 0, 0, 0, Double.NaN, WaitHistogram.empty(), Double.NaN, 0, 0, 0,
                queued, 0, 0, 0);
    }

    static Sample sample(int maxExecuting, ClassSample... classes) {
        return new Sample(PERIOD, maxExecuting, Double.NaN, List.of(classes));
    }

    /**
     * A plant of paper 001's eq. 6 plus a constant: {@code y(m) = a1 y(m-1) + a2 y(m-2) + b1 u(m-1) + b2 u(m-2)
     * + c}, where {@code u(m-1)} is the input in force during the period whose output is {@code y(m)}; outputs
     * below {@code floor} are reported (and remembered) as {@code floor}, as a delay cannot be negative.
     */
    static final class Plant {
        final double a1;
        final double a2;
        final double b1;
        final double b2;
        double c;
        final double floor;
        private double y1;
        private double y2;
        private double u1;

        Plant(double a1, double a2, double b1, double b2, double c, double floor) {
            this.a1 = a1;
            this.a2 = a2;
            this.b1 = b1;
            this.b2 = b2;
            this.c = c;
            this.floor = floor;
        }

        /** Starts the plant at rest with input {@code u} (its steady state for that input). */
        Plant atRest(double u) {
            double y = Math.max(floor, steady(u));
            y1 = y;
            y2 = y;
            u1 = u;
            return this;
        }

        /** The output at rest for input {@code u}. */
        double steady(double u) {
            return ((b1 + b2) * u + c) / (1 - a1 - a2);
        }

        /** One period with input {@code u} in force; returns the output measured at its end. */
        double step(double u, double noise) {
            double y = Math.max(floor, a1 * y1 + a2 * y2 + b1 * u + b2 * u1 + c + noise);
            y2 = y1;
            y1 = y;
            u1 = u;
            return y;
        }

        double last() {
            return y1;
        }
    }

    /** What every law's output must satisfy whatever it was fed. */
    static void assertBudgetsValid(Settings out, boolean sumIsTotal) {
        int[] b = out.budgets();
        int sum = 0;
        for (int k = 0; k < b.length; k++) {
            ClassSettings c = out.get(k);
            assertTrue(b[k] >= Math.min(c.minBudget(), out.maxExecuting()), c.name() + " below its minimum: "
                    + Arrays.toString(b));
            assertTrue(b[k] <= out.maxExecuting(), c.name() + " above the total: " + Arrays.toString(b));
            sum += b[k];
        }
        if (sumIsTotal) {
            assertEquals(out.maxExecuting(), sum, "budgets must share the whole total: " + Arrays.toString(b));
        } else {
            assertTrue(sum <= out.maxExecuting(), "budgets exceed the total: " + Arrays.toString(b));
        }
    }

    static void assertReadingsFinite(ObservableLaw law) {
        for (LoopReading r : law.readings()) {
            assertTrue(Double.isFinite(r.output()), "output not finite: " + r);
        }
    }
}

package dev.servletqos.control;

import static dev.servletqos.control.Fixtures.assertBudgetsValid;
import static dev.servletqos.control.Fixtures.cls;
import static dev.servletqos.control.Fixtures.measured;
import static dev.servletqos.control.Fixtures.sample;
import static dev.servletqos.control.Fixtures.settings;
import static dev.servletqos.control.Fixtures.ungranted;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings;
import dev.servletqos.control.Fixtures.Plant;
import dev.servletqos.policy.ControlPolicy.Gains;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** PRBS excitation, recursive least squares and the identification law, on plants whose parameters are known. */
class SystemIdentificationTest {

    private static void assertModel(SecondOrderModel expected, SecondOrderModel actual, double tolerance) {
        String both = "expected " + expected + ", fitted " + actual;
        assertEquals(expected.a1(), actual.a1(), tolerance, both);
        assertEquals(expected.a2(), actual.a2(), tolerance, both);
        assertEquals(expected.b1(), actual.b1(), tolerance, both);
        assertEquals(expected.b2(), actual.b2(), tolerance, both);
    }

    @Test
    void prbsIsReproducibleBalancedAndUncorrelated() {
        Prbs a = new Prbs(17);
        Prbs b = new Prbs(17);
        Prbs c = new Prbs(18);
        int n = 20_000;
        int[] bits = new int[n];
        boolean differs = false;
        for (int i = 0; i < n; i++) {
            boolean x = a.nextBit();
            assertEquals(x, b.nextBit());
            differs |= x != c.nextBit();
            bits[i] = x ? 1 : -1;
        }
        assertTrue(differs, "another seed, another sequence");
        for (int lag = 0; lag <= 5; lag++) {
            double sum = 0;
            for (int i = lag; i < n; i++) {
                sum += bits[i] * bits[i - lag];
            }
            double correlation = sum / (n - lag);
            if (lag == 0) {
                assertEquals(1, correlation, 0);
            } else {
                assertEquals(0, correlation, 0.03, "autocorrelation at lag " + lag);
            }
        }
        double mean = 0;
        for (int x : bits) {
            mean += x;
        }
        assertEquals(0, mean / n, 0.03, "as many ones as zeros");
        Prbs zero = new Prbs(0);
        int threes = 0;
        for (int i = 0; i < 100; i++) {
            threes += zero.next(1, 3) == 3 ? 1 : 0;
        }
        assertTrue(threes > 30 && threes < 70, "seed 0 is not a stuck register: " + threes);
    }

    @Test
    void recursiveLeastSquaresSolvesAnExactLinearModel() {
        RecursiveLeastSquares rls = new RecursiveLeastSquares(2, 1, 0, 1e6);
        Random random = new Random(3);
        for (int i = 0; i < 50; i++) {
            double x1 = random.nextGaussian();
            double x2 = random.nextGaussian();
            rls.update(new double[] {x1, x2}, 2 * x1 - 3 * x2);
        }
        assertArrayEquals(new double[] {2, -3}, rls.parameters(), 1e-6);
        assertEquals(Double.NaN, rls.update(new double[] {Double.NaN, 1}, 1));
        assertEquals(Double.NaN, rls.update(new double[] {1, 1}, Double.POSITIVE_INFINITY));
        assertEquals(50, rls.updates(), "non-finite samples are ignored");
        assertArrayEquals(new double[] {2, -3}, rls.parameters(), 1e-6);
        assertThrows(IllegalArgumentException.class, () -> new RecursiveLeastSquares(2, 0, 1, 10));
        assertThrows(IllegalArgumentException.class, () -> new RecursiveLeastSquares(2, 1, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new RecursiveLeastSquares(0, 1, 1, 10));
        assertThrows(IllegalArgumentException.class, () -> rls.update(new double[3], 1));
    }

    @Test
    void forgettingFollowsAPlantThatChanges() {
        RecursiveLeastSquares remembering = RecursiveLeastSquares.paper(1);
        RecursiveLeastSquares forgetting = new RecursiveLeastSquares(1, 0.9, 1, 10);
        Random random = new Random(4);
        for (int i = 0; i < 400; i++) {
            double gain = i < 200 ? 1 : 3;
            double x = random.nextGaussian();
            remembering.update(new double[] {x}, gain * x);
            forgetting.update(new double[] {x}, gain * x);
        }
        assertEquals(3, forgetting.parameters()[0], 1e-3);
        assertTrue(remembering.parameters()[0] < 2.5, "without forgetting the old plant still weighs");
        // without excitation, the covariance of a forgetting estimator stops growing at its cap
        for (int i = 0; i < 100_000; i++) {
            forgetting.update(new double[] {0}, 0);
        }
        forgetting.update(new double[] {1}, 3);
        assertEquals(3, forgetting.parameters()[0], 1e-3);
    }

    @Test
    void recoversThePapersRelativeModelFromNoisyPrbsData() {
        SecondOrderModel truth = SecondOrderModel.PAPER_RELATIVE;
        Plant plant = new Plant(truth.a1(), truth.a2(), truth.b1(), truth.b2(), 0, Double.NEGATIVE_INFINITY)
                .atRest(1);
        Prbs prbs = new Prbs(2001);
        Random noise = new Random(5);
        ArxIdentifier fit = new ArxIdentifier(false);
        for (int m = 0; m < 300; m++) {
            double u = prbs.next(1, 3);
            fit.add(u, plant.step(u, noise.nextGaussian() * 0.1));
        }
        assertModel(truth, fit.model(), 0.05);
        assertTrue(fit.rSquared() >= 0.8, "R^2 " + fit.rSquared());
        assertEquals(298, fit.samples());
    }

    @Test
    void aGapRestartsTheHistory() {
        ArxIdentifier fit = new ArxIdentifier(false);
        for (int m = 0; m < 5; m++) {
            fit.add(m, m * 0.5);
        }
        assertEquals(3, fit.samples());
        fit.add(1, Double.NaN);
        fit.add(1, 1);
        fit.add(2, 1);
        assertEquals(3, fit.samples());
        fit.add(3, 1);
        assertEquals(4, fit.samples());
    }

    @Test
    void aConstantTermAvoidsTheBiasOfFittingDifferences() {
        // a delay plant with a constant and noise on the output of 0.05 s, against 0.75 s between the levels
        Plant plant = goldPlant().atRest(6);
        Prbs prbs = new Prbs(11);
        Random noise = new Random(12);
        ArxIdentifier levels = new ArxIdentifier(true);
        ArxIdentifier differences = new ArxIdentifier(false);
        double lastU = Double.NaN;
        double lastY = Double.NaN;
        for (int m = 0; m < 2000; m++) {
            double u = prbs.next(3, 8);
            double y = plant.step(u, noise.nextGaussian() * 0.05);
            levels.add(u, y);
            differences.add(u - lastU, y - lastY);
            lastU = u;
            lastY = y;
        }
        SecondOrderModel truth = new SecondOrderModel(plant.a1, plant.a2, plant.b1, plant.b2);
        assertModel(truth, levels.model(), 0.03);
        assertEquals(plant.c, levels.offset(), 0.05);
        assertTrue(Math.abs(differences.model().a1() - truth.a1()) > 0.06, "paper 001's differences: "
                + differences.model());
        assertEquals(0, differences.offset(), 0);
    }

    /** Class 0's delay (s) from its budget (permits); 6 permits hold it at 0.5 s. */
    private static Plant goldPlant() {
        return new Plant(0.2, -0.05, -0.10, -0.05, 1.325, 0);
    }

    @Test
    void identificationLawFindsTheAbsolutePlantAndItsGainsBeatTheDefaults() {
        Plant gold = goldPlant().atRest(6);
        Plant silver = new Plant(0.5, 0, -0.1, 0, 2, 0).atRest(8);
        Random noise = new Random(6);
        Settings s = settings(16, 0, cls("gold", 6, 1, 0.5), cls("silver", 10, 1, 2.0));
        IdentificationLaw law = IdentificationLaw.absolute(0, 3, 8, 42);
        assertThrows(IllegalStateException.class, law::result);
        for (int m = 0; m < 300; m++) {
            double g = gold.step(s.get(0).budget(), noise.nextGaussian() * 0.02);
            double v = silver.step(s.get(1).budget(), 0);
            s = law.next(sample(16, measured("gold", s.get(0).budget(), g), measured("silver", 0, v)), s);
            assertBudgetsValid(s, true);
            assertTrue(s.get(0).budget() == 3 || s.get(0).budget() == 8, "the input toggles between two levels");
            assertEquals("gold", law.readings().get(0).name());
        }
        IdentificationReport report = law.result();
        assertModel(new SecondOrderModel(0.2, -0.05, -0.10, -0.05), report.model(), 0.05);
        assertTrue(report.rSquared() >= 0.8, "R^2 " + report.rSquared());
        assertEquals(298, report.samples(), "each row needs the two periods before it");
        assertTrue(report.design().stable() && report.design().robust(), report.toString());
        assertTrue(report.gains().gain() < 0, "more delay needs more budget: " + report.gains());
        assertEquals(report.design().settlingPeriods(), report.settlingPeriods());
        assertEquals(3, report.poles().size());

        int identified = periodsToSettle(report.gains());
        int defaults = periodsToSettle(ControlLaws.DEFAULT_ABSOLUTE);
        assertTrue(identified < defaults, "identified gains settle in " + identified + " periods, defaults in "
                + defaults);
    }

    /** Periods until gold's delay is within 2 % of its target for good, from 12 permits, on the noiseless plant. */
    private static int periodsToSettle(Gains gains) {
        Plant gold = goldPlant().atRest(12);
        Settings s = settings(16, 0, cls("gold", 12, 1, 0.5));
        ObservableLaw law = ControlLaws.absolute(gains, true);
        int lastOff = -1;
        for (int m = 0; m < 200; m++) {
            double d = gold.step(s.get(0).budget(), 0);
            s = law.next(sample(16, measured("gold", s.get(0).budget(), d)), s);
            if (Math.abs(d - 0.5) > 0.01) {
                lastOff = m;
            }
        }
        assertEquals(6, s.get(0).budget());
        return lastOff + 1;
    }

    @Test
    void identificationLawFindsTheRelativePlant() {
        // a server whose delay ratio silver/gold follows paper 001's workload-A model in the budget ratio
        SecondOrderModel truth = SecondOrderModel.PAPER_RELATIVE;
        Plant ratio = new Plant(truth.a1(), truth.a2(), truth.b1(), truth.b2(), 0, 0.1).atRest(1);
        Random noise = new Random(8);
        Settings s = settings(32, 0, cls("gold", 16, 1, 1), cls("silver", 16, 1, 2));
        IdentificationLaw law = IdentificationLaw.relative(0, 1, 3, 99);
        for (int m = 0; m < 300; m++) {
            double u = (double) s.get(0).budget() / s.get(1).budget();
            double y = ratio.step(u, noise.nextGaussian() * 0.1);
            s = law.next(sample(32, measured("gold", s.get(0).budget(), 0.5),
                    measured("silver", s.get(1).budget(), 0.5 * y)), s);
            assertBudgetsValid(s, true);
            double applied = law.readings().get(0).output();
            assertTrue(applied == 1 || applied == 3, "budgets 16:16 or 24:8, not " + applied);
        }
        IdentificationReport report = law.result();
        assertModel(truth, report.model(), 0.06);
        assertTrue(report.rSquared() >= 0.8, "R^2 " + report.rSquared());
        GainDesign paper = GainDesigner.evaluate(report.model(), ControlLaws.DEFAULT_RELATIVE);
        assertTrue(report.design().robust());
        assertTrue(report.design().spectralRadius() <= paper.spectralRadius(), report + " vs " + paper);
    }

    @Test
    void periodsWithoutAMeasurementAreGaps() {
        Settings s = settings(16, 0, cls("gold", 6, 1, 0.5), cls("silver", 10, 1, 2.0));
        IdentificationLaw law = IdentificationLaw.absolute(0, 3, 8, 1);
        for (int m = 0; m < 20; m++) {
            ClassSample gold = m == 10 ? ungranted("gold", 0, 2) : measured("gold", 0, 1 + 0.1 * (m % 3));
            s = law.next(sample(16, gold, measured("silver", 0, 1)), s);
            assertBudgetsValid(s, true);
        }
        // 20 periods, rows from the 3rd; the gap at 10 costs the rows of 10 to 12
        assertEquals(15, law.result().samples());
        assertTrue(Double.isNaN(law.readings().get(0).reference()));
    }

    @Test
    void rejectsExperimentsThatCannotRun() {
        assertThrows(IllegalArgumentException.class, () -> IdentificationLaw.absolute(-1, 1, 2, 0));
        assertThrows(IllegalArgumentException.class, () -> IdentificationLaw.absolute(0, 5, 5, 0));
        assertThrows(IllegalArgumentException.class, () -> IdentificationLaw.relative(0, 0, 3, 0));
        assertThrows(IllegalArgumentException.class, () -> IdentificationLaw.relative(0, 3, 1, 0));
        IdentificationLaw pair = IdentificationLaw.relative(1, 1, 3, 0);
        Settings two = settings(16, 0, cls("gold", 8, 1, 1), cls("silver", 8, 1, 2));
        assertThrows(IllegalArgumentException.class,
                () -> pair.next(sample(16, measured("gold", 8, 1), measured("silver", 8, 2)), two));
        assertFalse(IdentificationLaw.absolute(1, 1, 3, 0).readings().iterator().hasNext());
    }
}

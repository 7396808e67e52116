package dev.servletqos.control;

import static dev.servletqos.control.Fixtures.assertBudgetsValid;
import static dev.servletqos.control.Fixtures.assertReadingsFinite;
import static dev.servletqos.control.Fixtures.cls;
import static dev.servletqos.control.Fixtures.measured;
import static dev.servletqos.control.Fixtures.sample;
import static dev.servletqos.control.Fixtures.settings;
import static dev.servletqos.control.Fixtures.ungranted;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings;
import dev.servletqos.Settings.ClassSettings;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The relative delay law (paper 001 eq. 1 on delay ratios, budgets normalised to the total), fed numbers. */
class RelativeDelayLawTest {

    /**
     * A server in which each class's delay follows {@code work / budget} with a lag of one period:
     * {@code C(m) = (C(m-1) + work / B) / 2}. So the delay ratio of two classes of equal work settles at the
     * inverse of their budget ratio.
     */
    private static final class Server {
        final double[] work;
        final double[] delay;

        Server(double... work) {
            this.work = work;
            this.delay = new double[work.length];
        }

        Sample run(Settings s) {
            ClassSample[] cs = new ClassSample[work.length];
            for (int k = 0; k < work.length; k++) {
                int b = s.get(k).budget();
                delay[k] = (delay[k] + work[k] / Math.max(b, 0.5)) / 2;
                cs[k] = measured(s.get(k).name(), b, delay[k]);
            }
            return sample(s.maxExecuting(), cs);
        }
    }

    private static Settings run(ObservableLaw law, Settings s, Server server, int periods) {
        for (int m = 0; m < periods; m++) {
            s = law.next(server.run(s), s);
            assertBudgetsValid(s, true);
            assertReadingsFinite(law);
        }
        return s;
    }

    @Test
    void delayRatioOfTwoClassesConvergesToTheRatioOfTheirTargets() {
        Settings s = settings(30, 0, cls("gold", 15, 1, 1.0), cls("silver", 15, 1, 2.0));
        Server server = new Server(6, 6);
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        s = run(law, s, server, 80);
        assertArrayEquals(new int[] {20, 10}, s.budgets());
        assertEquals(2.0, server.delay[1] / server.delay[0], 1e-3);
        LoopReading r = law.readings().get(0);
        assertEquals("silver", r.name(), "a pair's reading is named after its lower class");
        assertEquals(2.0, r.reference(), 1e-12);
        assertEquals(2.0, r.measured(), 1e-3);
        assertEquals(2.0, r.output(), 0.1, "any ratio this close to 2 gives the budgets 20:10");
        assertFalse(r.saturated());
    }

    @Test
    void threeClassesSettleAtOneToTwoToFour() {
        Settings s = settings(35, 0, cls("gold", 12, 1, 1), cls("silver", 12, 1, 2), cls("bronze", 11, 1, 4));
        Server server = new Server(6, 6, 6);
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        s = run(law, s, server, 150);
        assertArrayEquals(new int[] {20, 10, 5}, s.budgets());
        assertEquals(2.0, server.delay[1] / server.delay[0], 1e-3);
        assertEquals(2.0, server.delay[2] / server.delay[1], 1e-3);
        assertEquals(List.of("silver", "bronze"), law.readings().stream().map(LoopReading::name).toList());
    }

    @Test
    void aClassWithNoRequestsLeavesItsRatioAlone() {
        Settings s = settings(35, 0, cls("gold", 12, 1, 1), cls("silver", 12, 1, 2), cls("bronze", 11, 1, 4));
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        s = law.next(sample(35, measured("gold", 12, 0.5), measured("silver", 12, 0.6), measured("bronze", 11, 3)),
                s);
        double bronzeRatio = law.readings().get(1).output();
        double goldRatio = law.readings().get(0).output();
        for (int m = 0; m < 5; m++) {
            s = law.next(sample(35, measured("gold", 12, 0.5), measured("silver", 12, 0.6),
                    ungranted("bronze", 11, 0)), s);
            LoopReading bronze = law.readings().get(1);
            assertEquals(bronzeRatio, bronze.output(), 0, "the idle pair's ratio holds");
            assertTrue(Double.isNaN(bronze.measured()) && Double.isNaN(bronze.error()));
            assertBudgetsValid(s, true);
        }
        assertTrue(law.readings().get(0).output() > goldRatio, "the active pair goes on moving");
    }

    @Test
    void twoClassesThatDoNotQueueAtAllHoldTheirRatio() {
        Settings s = settings(20, 0, cls("gold", 10, 1, 1), cls("silver", 10, 1, 2));
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        assertSame(s, law.next(sample(20, measured("gold", 10, 0), measured("silver", 10, 0.0005)), s));
        assertTrue(Double.isNaN(law.readings().get(0).measured()));
        assertEquals(1.0, law.readings().get(0).output(), 0);
    }

    @Test
    void aLowerClassWaitingWithNothingGrantedGetsMorePermits() {
        // silver's one permit is held by a long request all along: nothing granted, five waiting
        Settings s = settings(20, 0, cls("gold", 19, 0, 1), cls("silver", 1, 0, 2));
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        int periods = 0;
        while (s.get(1).budget() <= 1 && periods++ < 40) {
            s = law.next(sample(20, measured("gold", s.get(0).budget(), 0.2), ungranted("silver", 1, 5)), s);
            assertEquals(4.0, law.readings().get(0).measured(), 0, "taken as twice the reference");
        }
        assertTrue(s.get(1).budget() > 1 && periods < 40, periods + " periods: " + Arrays.toString(s.budgets()));
    }

    @Test
    void aPairPinnedAtAMinimumBudgetDoesNotWindUp() {
        // silver needs so little that the reference asks for under one permit for it; its minimum is 5
        Settings s = settings(30, 0, cls("gold", 15, 1, 1), cls("silver", 15, 5, 2));
        Server server = new Server(6, 0.3);
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        s = run(law, s, server, 60);
        assertArrayEquals(new int[] {25, 5}, s.budgets());
        LoopReading r = law.readings().get(0);
        assertTrue(r.saturated(), r.toString());
        assertTrue(r.output() < 8, "the ratio stays near the 25:5 in force, not at its bound of 30: " + r);
    }

    @Test
    void normalisationKeepsTheTotalAndTheMinimums() {
        assertArrayEquals(new int[] {20, 10}, Budgets.proportional(new double[] {2, 1}, new int[] {1, 1}, 30));
        assertArrayEquals(new int[] {4, 3, 3}, Budgets.proportional(new double[] {1, 1, 1}, new int[] {0, 0, 0}, 10));
        assertArrayEquals(new int[] {15, 5}, Budgets.proportional(new double[] {100, 1}, new int[] {0, 5}, 20));
        assertArrayEquals(new int[] {14, 3, 3}, Budgets.proportional(new double[] {1e6, 1, 1}, new int[] {1, 3, 3},
                20));
        assertArrayEquals(new int[] {2, 1, 0}, Budgets.proportional(new double[] {1, 1, 1}, new int[] {2, 2, 2}, 3));
        assertArrayEquals(new int[] {5, 5}, Budgets.proportional(new double[] {0, Double.NaN}, new int[] {0, 0}, 10));
        assertArrayEquals(new int[0], Budgets.proportional(new double[0], new int[0], 10));
    }

    @Test
    void budgetsAlwaysSumToTheTotalAndRespectMinimumsWhateverTheSamples() {
        double[] odd = {Double.NaN, Double.POSITIVE_INFINITY, -1, 0, 1e-9, 1e300, 0.3, 7};
        Random random = new Random(7);
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        Settings s = settings(17, 0, cls("gold", 6, 1, 0.5), cls("silver", 6, 3, 1.0), cls("bronze", 5, 0, 4));
        for (int m = 0; m < 3000; m++) {
            if (m == 1500) {
                s = s.withMaxExecuting(40);
            }
            List<ClassSample> cs = new ArrayList<>();
            for (ClassSettings c : s.classes()) {
                cs.add(switch (random.nextInt(3)) {
                    case 0 -> ungranted(c.name(), c.budget(), random.nextInt(3));
                    case 1 -> new ClassSample(c.name(), c.budget(), 1, 1, 1, 0, odd[random.nextInt(odd.length)],
                            WaitHistogram.empty(), Double.NaN, 0, 0, 0, random.nextInt(3), 0, 0, 0);
                    default -> measured(c.name(), c.budget(), random.nextDouble() * 3);
                });
            }
            s = law.next(new Sample(5, s.maxExecuting(), Double.NaN, cs), s);
            assertBudgetsValid(s, true);
            assertReadingsFinite(law);
        }
    }

    @Test
    void oneClassIsLeftAsItIs() {
        Settings s = settings(10, 0, cls("gold", 7, 1, 1));
        ObservableLaw law = ControlLaws.relative(ControlLaws.DEFAULT_RELATIVE);
        assertSame(s, law.next(sample(10, measured("gold", 7, 3)), s));
        assertTrue(law.readings().isEmpty());
    }
}

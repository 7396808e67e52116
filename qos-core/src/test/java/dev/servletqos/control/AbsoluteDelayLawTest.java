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
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings;
import dev.servletqos.control.Fixtures.Plant;
import dev.servletqos.policy.ControlPolicy.Gains;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The absolute delay law (paper 001 eq. 1, priority grants, anti-windup), fed numbers from simulated plants. */
class AbsoluteDelayLawTest {

    /** Delay (s) of a class from its budget (permits): settles at {@code target} when the budget is {@code at}. */
    private static Plant plantReaching(double target, int at) {
        double a1 = 0.2;
        double a2 = -0.05;
        double b1 = -0.10;
        double b2 = -0.05;
        double c = target * (1 - a1 - a2) - (b1 + b2) * at;
        return new Plant(a1, a2, b1, b2, c, 0);
    }

    /** One period: each plant runs on its class's budget in force; the law answers. */
    private static Settings step(ObservableLaw law, Settings s, Plant... plants) {
        ClassSample[] cs = new ClassSample[plants.length];
        for (int k = 0; k < plants.length; k++) {
            int b = s.get(k).budget();
            cs[k] = measured(s.get(k).name(), b, plants[k].step(b, 0));
        }
        Settings out = law.next(sample(s.maxExecuting(), cs), s);
        assertBudgetsValid(out, false);
        assertReadingsFinite(law);
        return out;
    }

    @Test
    void delayReachesItsTargetWithNoSteadyStateError() {
        Plant gold = plantReaching(0.5, 6).atRest(12);
        Settings s = settings(16, 0, cls("gold", 12, 1, 0.5));
        ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        int settledAt = -1;
        for (int m = 0; m < 80; m++) {
            s = step(law, s, gold);
            if (settledAt < 0 && Math.abs(gold.last() - 0.5) < 0.01) {
                settledAt = m;
            }
        }
        assertTrue(settledAt >= 0 && settledAt < 50, "settled at period " + settledAt);
        for (int m = 0; m < 20; m++) {
            s = step(law, s, gold);
            assertEquals(6, s.get(0).budget());
            assertEquals(0.5, gold.last(), 1e-4);
        }
        LoopReading r = law.readings().get(0);
        assertEquals("gold", r.name());
        assertEquals(0.5, r.reference(), 1e-12);
        assertEquals(r.reference() - r.measured(), r.error(), 1e-12);
        assertEquals(6, r.output());
        assertFalse(r.saturated());
    }

    @Test
    void whenTheTotalIsShortTheLowestClassMissesItsTargetAndTheHighestKeepsIt() {
        Plant gold = plantReaching(0.5, 10).atRest(8);
        Plant silver = plantReaching(1.0, 10).atRest(8);
        Settings s = settings(16, 0, cls("gold", 8, 1, 0.5), cls("silver", 8, 1, 1.0));
        ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        for (int m = 0; m < 120; m++) {
            s = step(law, s, gold, silver);
        }
        assertArrayEquals(new int[] {10, 6}, s.budgets());
        assertEquals(0.5, gold.last(), 1e-3);
        assertTrue(silver.last() > 1.5, "silver's target is the one violated: " + silver.last());
        List<LoopReading> r = law.readings();
        assertFalse(r.get(0).saturated(), r.toString());
        assertTrue(r.get(1).saturated(), "silver asks for more than is left: " + r);
    }

    @Test
    void lowerClassesKeepTheirMinimumBudgetsWhenAHigherClassWantsEverything() {
        Plant gold = plantReaching(0.5, 30).atRest(6);
        Plant silver = plantReaching(1.0, 4).atRest(5);
        Plant bronze = plantReaching(2.0, 4).atRest(5);
        Settings s = settings(16, 0, cls("gold", 6, 1, 0.5), cls("silver", 5, 2, 1.0), cls("bronze", 5, 3, 2.0));
        ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        for (int m = 0; m < 100; m++) {
            s = step(law, s, gold, silver, bronze);
            assertTrue(s.get(1).budget() >= 2 && s.get(2).budget() >= 3, Arrays.toString(s.budgets()));
        }
        assertArrayEquals(new int[] {11, 2, 3}, s.budgets());
        assertTrue(law.readings().get(0).saturated());
    }

    @Test
    void priorityGrantsFollowPaperOrder() {
        int[] mins = {1, 2, 3};
        assertArrayEquals(new int[] {10, 3, 3}, Budgets.byPriority(new double[] {10, 10, 10}, mins, 16));
        assertArrayEquals(new int[] {11, 2, 3}, Budgets.byPriority(new double[] {40, 40, 40}, mins, 16));
        assertArrayEquals(new int[] {1, 2, 3}, Budgets.byPriority(new double[] {-5, Double.NaN, 0}, mins, 16));
        assertArrayEquals(new int[] {4, 5, 3}, Budgets.byPriority(new double[] {4.4, 4.6, 3}, mins, 16));
        // minimums that do not fit are met from the top down
        assertArrayEquals(new int[] {1, 2, 1}, Budgets.byPriority(new double[] {9, 9, 9}, mins, 4));
        assertArrayEquals(new int[] {0, 0, 0}, Budgets.byPriority(new double[] {9, 9, 9}, mins, 0));
    }

    /**
     * Gold needs more than the total for 30 periods, then its load drops so that 6 permits meet its target.
     * Returns the periods after the drop until its budget first falls below what it held while saturated, and
     * until its delay is back within 5 % of its target for good.
     */
    private static int[] recoveryAfterSaturation(boolean antiWindup) {
        Plant gold = plantReaching(0.5, 6).atRest(6);
        Plant silver = plantReaching(2.0, 4).atRest(4);
        double lowLoad = gold.c;
        double highLoad = plantReaching(0.5, 40).c;
        Settings s = settings(16, 0, cls("gold", 6, 1, 0.5), cls("silver", 4, 1, 2.0));
        ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, antiWindup);
        gold.c = highLoad;
        for (int m = 0; m < 30; m++) {
            s = step(law, s, gold, silver);
        }
        assertEquals(15, s.get(0).budget(), "gold holds all but silver's minimum while saturated");
        assertTrue(law.readings().get(0).saturated());
        gold.c = lowLoad;
        int firstDown = -1;
        int lastOff = -1;
        for (int m = 0; m < 400; m++) {
            s = step(law, s, gold, silver);
            if (firstDown < 0 && s.get(0).budget() < 15) {
                firstDown = m + 1;
            }
            if (Math.abs(gold.last() - 0.5) > 0.025) {
                lastOff = m;
            }
        }
        assertEquals(6, s.get(0).budget());
        return new int[] {firstDown, lastOff + 1};
    }

    @Test
    void antiWindupRecoversQuicklyAfterSaturationAndWithoutItRecoveryLags() {
        int[] with = recoveryAfterSaturation(true);
        int[] without = recoveryAfterSaturation(false);
        // 30 periods at about -4.4 s of error wind the demand up by some 90 permits, which an error of at most
        // +0.5 s (the delay cannot go below 0) unwinds at 0.35 permits a period
        assertEquals(1, with[0], "with anti-windup the budget falls in the first period after the load drops");
        assertTrue(without[0] > 200, "without, it stays at its bound while the demand unwinds: " + without[0]);
        assertTrue(with[1] <= 30, "with anti-windup the delay is back at target after " + with[1] + " periods");
        assertTrue(without[1] >= with[1] + 200, "without: " + without[1] + " periods, with: " + with[1]);
    }

    @Test
    void aClassWithNothingGrantedAndNothingWaitingHoldsItsBudgetAndDoesNotIntegrate() {
        Settings start = settings(16, 0, cls("gold", 8, 1, 0.5), cls("silver", 4, 1, 1.0));
        ObservableLaw interrupted = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        ObservableLaw continuous = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        Settings a = interrupted.next(sample(16, measured("gold", 8, 0.9), measured("silver", 4, 1.5)), start);
        Settings b = continuous.next(sample(16, measured("gold", 8, 0.9), measured("silver", 4, 1.5)), start);
        assertArrayEquals(a.budgets(), b.budgets());
        int silverBefore = a.get(1).budget();
        for (int m = 0; m < 5; m++) {
            a = interrupted.next(sample(16, measured("gold", a.get(0).budget(), 0.7), ungranted("silver", 0, 0)), a);
            assertEquals(silverBefore, a.get(1).budget(), "idle silver holds its budget");
            assertTrue(Double.isNaN(interrupted.readings().get(1).measured()));
        }
        // silver's PI resumes where it stopped: the same step as if the idle periods had not been there
        a = interrupted.next(sample(16, measured("gold", a.get(0).budget(), 0.5), measured("silver", 4, 1.2)), a);
        b = continuous.next(sample(16, measured("gold", b.get(0).budget(), 0.5), measured("silver", 4, 1.2)), b);
        assertEquals(b.get(1).budget(), a.get(1).budget());
    }

    @Test
    void aClassWithRequestsWaitingButNoneGrantedGetsMoreBudget() {
        Settings s = settings(16, 0, cls("gold", 10, 1, 0.5), cls("silver", 0, 0, 1.0));
        ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        Settings out = law.next(sample(16, measured("gold", 10, 0.5), ungranted("silver", 0, 7)), s);
        assertTrue(out.get(1).budget() > 0, Arrays.toString(out.budgets()));
        LoopReading r = law.readings().get(1);
        assertEquals(-Fixtures.PERIOD, r.error(), 1e-12);
    }

    @Test
    void measuresTheConfiguredQuantile() {
        long[] counts = new long[WaitHistogram.BUCKETS];
        counts[0] = 90;
        counts[WaitHistogram.bucket(2_000_000_000L)] = 10;
        ClassSample c = new ClassSample("gold", 8, 1, 1, 1, 0, 0.2, WaitHistogram.of(counts), 0.1, 0, 4, 0.5, 0, 4, 0, 0);
        ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        law.next(sample(16, c), settings(16, 0.95, cls("gold", 8, 1, 0.5)));
        assertEquals(c.delay(0.95), law.readings().get(0).measured(), 1e-12);
        assertTrue(law.readings().get(0).measured() > 1.5);
        law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        law.next(sample(16, c), settings(16, 0, cls("gold", 8, 1, 0.5)));
        assertEquals(0.2, law.readings().get(0).measured(), 1e-12);
    }

    @Test
    void unchangedBudgetsReturnTheSettingsInForce() {
        Settings s = settings(16, 0, cls("gold", 6, 1, 0.5));
        ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, true);
        assertSame(s, law.next(sample(16, measured("gold", 6, 0.5)), s));
        Settings out = law.next(sample(16, measured("gold", 6, 3.0)), s);
        assertEquals(Settings.Source.CONTROLLER, out.source());
    }

    @Test
    void nonFiniteNumbersNeverGiveNonFiniteOrOutOfRangeBudgets() {
        double[] odd = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, -1, 0, 1e300, 0.3};
        Random random = new Random(42);
        for (boolean antiWindup : new boolean[] {true, false}) {
            ObservableLaw law = ControlLaws.absolute(ControlLaws.DEFAULT_ABSOLUTE, antiWindup);
            Settings s = settings(16, 0, cls("gold", 8, 1, 0.5), cls("silver", 4, 2, 1.0), cls("bronze", 4, 0, 2));
            for (int m = 0; m < 2000; m++) {
                List<ClassSample> cs = new ArrayList<>();
                for (int k = 0; k < 3; k++) {
                    String name = s.get(k).name();
                    int b = s.get(k).budget();
                    cs.add(switch (random.nextInt(3)) {
                        case 0 -> ungranted(name, b, random.nextInt(3));
                        case 1 -> new ClassSample(name, b, 1, 1, 1, 0, odd[random.nextInt(odd.length)],
                                WaitHistogram.empty(), Double.NaN, 0, 0, 0, random.nextInt(3), 0, 0, 0);
                        default -> measured(name, b, random.nextDouble() * 5);
                    });
                }
                double seconds = random.nextInt(10) == 0 ? odd[random.nextInt(odd.length)] : 5;
                s = law.next(new Sample(seconds, 16, Double.NaN, cs), s);
                assertBudgetsValid(s, false);
                assertReadingsFinite(law);
            }
        }
    }

    @Test
    void rejectsGainsThatAreNotNumbers() {
        assertThrows(IllegalArgumentException.class, () -> ControlLaws.absolute(new Gains(Double.NaN, 0.3), true));
        assertThrows(IllegalArgumentException.class, () -> ControlLaws.relative(new Gains(0.3, Double.NaN)));
    }
}

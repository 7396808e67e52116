package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings;
import dev.servletqos.Settings.ClassSettings;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.ControlPolicy.Degradation;
import dev.servletqos.policy.ControlPolicy.DegradationLaw;
import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class UtilizationLawTest {

    static final Degradation PI = Degradation.DEFAULTS.withLaw(DegradationLaw.PI).withSource(UtilizationSource.CPU);

    static ClassSettings cls(String name, int levels) {
        return new ClassSettings(name, 8, 0, 0, 1, Duration.ofSeconds(1), levels, levels);
    }

    static Settings settings(ClassSettings... classes) {
        return new Settings(16, 200, List.of(classes), ControlPolicy.DEFAULTS.withDegradation(PI),
                Settings.Source.POLICY);
    }

    /** The engine's clamp: the level to [0, M]. */
    static Settings clamp(Settings s) {
        Settings out = s;
        for (int k = 0; k < s.classes().size(); k++) {
            ClassSettings c = s.get(k);
            out = out.withClass(k, c.withLevel(Math.max(0, Math.min(c.levels(), c.level()))));
        }
        return out;
    }

    /** Runs {@code periods} periods; returns the plant's utilization (without noise) after each. */
    static List<Double> run(LevelLaw law, ContentPlant plant, Settings[] s, int periods) {
        List<Double> u = new ArrayList<>();
        for (int i = 0; i < periods; i++) {
            Sample sample = plant.sample(s[0]);
            s[0] = clamp(law.next(sample, s[0]));
            u.add(plant.utilization(s[0]));
            if (Boolean.getBoolean("trace")) {
                UtilizationStatus st = law.utilization();
                System.out.printf("u %.3f meas %.3f est %.3f a %.5f b %.3e c %.5f m %s%n", u.get(u.size() - 1),
                        st.measured(), st.estimated(), st.a(), st.b(), st.c(), st.classes());
            }
        }
        return u;
    }

    @Test
    void gainsFollowTheGainMarginRule() {
        // paper 000 eqs. 6-8: phase pi/6 at the oscillation frequency, wT/2 + pi/6 = pi
        assertEquals(5 * Math.PI / 3, UtilizationLaw.OMEGA_T, 1e-12);
        assertEquals(5 * Math.PI / 3 / Math.sqrt(3), UtilizationLaw.KI_T, 1e-12);
        double p = 0.8;
        double kp = UtilizationLaw.proportionalGain(p, 4);
        // the loop gain at the oscillation frequency is 1/G
        double loop = p * kp * Math.hypot(1, UtilizationLaw.KI_T / UtilizationLaw.OMEGA_T);
        assertEquals(0.25, loop, 1e-12);
    }

    @Test
    void holdsTheTargetWithZeroSteadyStateErrorAfterALoadStep() {
        // 4 cores, 20 ms of CPU and 40 kB a request at full content, one degraded level at 1/8
        ContentPlant.Load load = new ContentPlant.Load("basic", 60, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0002, 0.01, load);
        LevelLaw law = ControlLaws.utilization(PI);
        Settings[] s = {settings(cls("basic", 2))};
        List<Double> before = run(law, plant, s, 30);
        assertEquals(0.30, before.get(29), 0.02, "under the target: full content");
        assertEquals(2.0, s[0].get(0).level(), 1e-9);
        load.rate = 200; // full content would be 1.0
        List<Double> after = run(law, plant, s, 40);
        System.out.println("after the step: " + after.subList(0, 12));
        for (int i = 10; i < after.size(); i++) {
            assertEquals(0.58, after.get(i), 0.02, "period " + i + " after the step");
        }
        double mean = after.subList(20, 40).stream().mapToDouble(Double::doubleValue).average().orElseThrow();
        assertEquals(0.58, mean, 0.005, "steady state");
        assertTrue(s[0].get(0).level() > 1 && s[0].get(0).level() < 2, "degraded, nobody refused: " + s[0]);
    }

    @Test
    void refusesOnlyOnceNoLighterContentIsLeft() {
        ContentPlant.Load load = new ContentPlant.Load("basic", 60, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0002, 0.0, load);
        // a refusal costs 0.2 ms of CPU on 4 cores: c = 0.05 ms, given as paper 000 measured it
        LevelLaw law = ControlLaws.utilization(PI.withRejectionCost(0.0002 / 4));
        Settings[] s = {settings(cls("basic", 2))};
        run(law, plant, s, 10);
        load.rate = 2_000; // even the lightest content is 1.25
        double last = s[0].get(0).level();
        for (int i = 0; i < 60; i++) {
            run(law, plant, s, 1);
            double m = s[0].get(0).level();
            assertTrue(!(last > 1 && m < 1), "from " + last + " to " + m + " in one period");
            last = m;
        }
        assertTrue(last < 1, "refusing part of the new sessions: " + last);
        assertEquals(0.58, plant.utilization(s[0]), 0.02);
    }

    @Test
    void higherClassesAreDegradedLastAndShareWhatTheyLeave() {
        ContentPlant.Load premium = new ContentPlant.Load("premium", 40, 0.020, 40_000);
        ContentPlant.Load basic = new ContentPlant.Load("basic", 100, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0, 0.0, premium, basic);
        LevelLaw law = ControlLaws.utilization(PI);
        Settings[] s = {settings(cls("premium", 2), cls("basic", 2))};
        run(law, plant, s, 40);
        // premium alone needs 0.2 of 0.58; basic gets the 0.38 left, at part degraded content
        assertEquals(2.0, s[0].get(0).level(), 1e-9, "premium at full content");
        assertTrue(s[0].get(1).level() < 2 && s[0].get(1).level() > 1, "basic degraded: " + s[0].get(1));
        assertEquals(0.58, plant.utilization(s[0]), 0.01);
        UtilizationStatus st = law.utilization();
        assertEquals(0.58, st.classes().get(0).target(), 1e-9);
        // basic's target: what premium uses on average (averaged with weight 0.4; its load has been constant)
        assertEquals(0.58 - st.classes().get(0).utilization(), st.classes().get(1).target(), 1e-6);
        premium.rate = 140; // premium alone: 0.7 at full content
        run(law, plant, s, 40);
        // basic's target is what premium leaves: nothing; its level falls towards 0 (most new sessions refused)
        assertTrue(s[0].get(1).level() < 0.1, "basic refused before premium is degraded further: " + s[0].get(1));
        assertTrue(s[0].get(0).level() < 2, "premium degraded once basic has nothing left: " + s[0].get(0));
        assertEquals(0.58, plant.utilization(s[0]), 0.01);
        premium.rate = 40; // premium's load falls back: basic gets the excess again
        run(law, plant, s, 40);
        assertEquals(2.0, s[0].get(0).level(), 1e-9);
        assertTrue(s[0].get(1).level() > 1, "basic served again: " + s[0].get(1));
        assertEquals(0.58, plant.utilization(s[0]), 0.01);
    }

    @Test
    void aClassWithOneLevelRefusesPartOfItsNewSessions() {
        ContentPlant.Load load = new ContentPlant.Load("basic", 200, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0, 0.0, load);
        LevelLaw law = ControlLaws.utilization(PI);
        Settings[] s = {settings(cls("basic", 1))};
        run(law, plant, s, 30);
        // admitting a fraction f: 200 f x 20 ms / 4 = 0.58
        assertEquals(0.58, s[0].get(0).level(), 0.01);
    }

    @Test
    void thePlantGainIsTheSlopeOfTheSegmentOfLevels() {
        double nan = Double.NaN;
        // nothing known: the class's utilization
        assertEquals(0.3, UtilizationLaw.plantGain(new double[] {nan, nan, nan}, 2, 100, 0, 0.3), 1e-12);
        // full content's cost known (0.005 per request/s), level 1 not yet: paper 000's p_max = A (cost_M - c)
        assertEquals(100 * (0.005 - 0.0001),
                UtilizationLaw.plantGain(new double[] {nan, nan, 0.005}, 1.5, 100, 0.0001, 0.3), 1e-12);
        // both known: the segment's slope, above and below level 1
        double[] cost = {nan, 0.000625, 0.005};
        assertEquals(100 * (0.005 - 0.000625), UtilizationLaw.plantGain(cost, 1.5, 100, 0.0001, 0.3), 1e-12);
        assertEquals(100 * (0.000625 - 0.0001), UtilizationLaw.plantGain(cost, 0.5, 100, 0.0001, 0.3), 1e-12);
        // at a whole level, the steeper of the two segments beside it
        assertEquals(100 * (0.005 - 0.000625), UtilizationLaw.plantGain(cost, 1, 100, 0.0001, 0.3), 1e-12);
        // never below the floor
        assertEquals(UtilizationLaw.MIN_PLANT_GAIN, UtilizationLaw.plantGain(cost, 0.5, 1, 0.0001, 0.3), 1e-12);
    }

    @Test
    void aClassAtFullContentWithinItsTargetKeepsIt() {
        // the load rises from 0.2 to 0.5 of a 0.58 target: the error falls from 0.38 to 0.08, and the proportional
        // term alone, Kp (4.02 x 0.08 - 0.38), would take content away
        ContentPlant.Load load = new ContentPlant.Load("basic", 40, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0, 0.0, load);
        LevelLaw law = ControlLaws.utilization(PI);
        Settings[] s = {settings(cls("basic", 2))};
        run(law, plant, s, 5);
        load.rate = 100;
        run(law, plant, s, 1);
        assertEquals(0.5, law.utilization().classes().get(0).utilization(), 1e-6);
        assertEquals(2.0, s[0].get(0).level());
    }
}

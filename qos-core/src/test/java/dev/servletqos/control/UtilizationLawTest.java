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
        premium.rate = 140; // premium alone: 0.7 at full content, above the target by itself
        run(law, plant, s, 60);
        // premium gives up content until basic's sessions all fit at basic's lightest content (0.0625): basic is at
        // level 1, nobody refused, premium at the level that leaves basic that
        assertEquals(1.0, s[0].get(1).level(), 0.05, "basic at its lightest content, not refusing: " + s[0].get(1));
        assertTrue(s[0].get(0).level() < 2 && s[0].get(0).level() > 1, "premium degraded: " + s[0].get(0));
        assertEquals(0.58, plant.utilization(s[0]), 0.01);
        premium.rate = 40; // premium's load falls back: basic gets the excess again
        run(law, plant, s, 40);
        assertEquals(2.0, s[0].get(0).level(), 1e-9);
        assertTrue(s[0].get(1).level() > 1, "basic served again: " + s[0].get(1));
        assertEquals(0.58, plant.utilization(s[0]), 0.01);
    }

    /**
     * The sample shop's crowd in miniature: premium alone is within the target at full content (0.5 of 0.58), basic
     * is four times the server. Per-priority targets alone kept premium at full content and refused most of basic's
     * new sessions (basic at 0.32); lighter content first across the classes degrades premium until basic is served
     * whole at its lightest content, and refuses only when even that does not fit.
     */
    @Test
    void noClassRefusesNewSessionsWhileAHigherClassStillHasLighterContent() {
        ContentPlant.Load premium = new ContentPlant.Load("premium", 100, 0.020, 40_000);
        ContentPlant.Load basic = new ContentPlant.Load("basic", 20, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0, 0.0, premium, basic);
        LevelLaw law = ControlLaws.utilization(PI);
        Settings[] s = {settings(cls("premium", 2), cls("basic", 2))};
        run(law, plant, s, 30);
        assertEquals(2.0, s[0].get(0).level(), 1e-9, "0.6 at full content and a bit of degraded basic");
        basic.rate = 400; // full 2.0, at level 1 0.25
        double premiumAtTwo = 2;
        List<Double> u = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            u.addAll(run(law, plant, s, 1));
            double mp = s[0].get(0).level();
            double mb = s[0].get(1).level();
            assertTrue(mb >= 1 - 0.05 || mp <= 1 + 1e-9, "period " + i + ": basic refuses (" + mb
                    + ") while premium is at " + mp);
            if (mp < 2 && premiumAtTwo == 2) {
                premiumAtTwo = mb;
            }
        }
        assertTrue(premiumAtTwo < 1.05, "premium degraded only once basic was at its lightest content: " + premiumAtTwo);
        // 0.0625 + 0.4375 x + 0.25 = 0.58: premium at about 1.61, basic at 1
        assertEquals(1.61, s[0].get(0).level(), 0.05);
        assertEquals(1.0, s[0].get(1).level(), 0.02);
        for (int i = 20; i < 60; i++) {
            assertEquals(0.58, u.get(i), 0.02, "period " + i);
        }
        basic.rate = 2_000; // even the lightest content of basic alone is 1.25: premium at 1, basic refuses
        run(law, plant, s, 60);
        assertEquals(1.0, s[0].get(0).level(), 1e-9, "premium at its lightest content, none refused");
        assertTrue(s[0].get(1).level() < 1, "basic refuses part of its new sessions: " + s[0].get(1));
        assertEquals(0.58, plant.utilization(s[0]), 0.02);
        basic.rate = 20; // the crowd is gone: full content back, premium first
        run(law, plant, s, 60);
        assertEquals(2.0, s[0].get(0).level(), 1e-9);
        assertTrue(s[0].get(1).level() > 1, "basic above its lightest content: " + s[0].get(1));
    }

    @Test
    void theContentRuleFollowsTheLeastMarginOfTheClassesBelow() {
        double[] level = {2, 1.5, 0.5};
        int[] count = {2, 2, 2};
        double[] gain = {0.4, 0.2, 0.8};
        double[] error = {0, 0, 0.1};
        boolean[] none = new boolean[3];
        // class 2 lacks 0.8 x 0.5 = 0.4 of utilization: class 0 moves by 0.25 x 0.4 / 0.4
        assertEquals(1.75, UtilizationLaw.contentLevel(2, 2, 0.4, 0, level, count, gain, error, none), 1e-12);
        // held at level 1 and over its target by 0.2: that is what it lacks
        assertEquals(1.875, UtilizationLaw.contentLevel(2, 2, 0.4, 0, new double[] {2, 1.5, 1}, count, gain,
                new double[] {0, 0, -0.2}, none), 1e-12);
        // the classes below at full content: it takes content back, by at most half a level a period
        assertEquals(1.625, UtilizationLaw.contentLevel(1.5, 2, 0.4, 0, new double[] {1.5, 2, 2}, count, gain, error, none),
                1e-12);
        assertEquals(1.5, UtilizationLaw.contentLevel(1, 2, 0.01, 0, new double[] {1, 2, 2}, count, gain, error, none),
                1e-12);
        // the lowest class has none below it
        assertEquals(2.0, UtilizationLaw.contentLevel(0.5, 2, 0.8, 2, level, count, gain, error, none));
        // never below level 1 by this rule, and a class refusing on its own load is left to its PI
        assertEquals(1.0, UtilizationLaw.contentLevel(1.1, 2, 0.01, 0, level, count, gain, error, none), 1e-12);
        assertEquals(2.0, UtilizationLaw.contentLevel(0.7, 2, 0.4, 0, new double[] {0.7, 1.5, 1.5}, count, gain,
                error, none));
        // a class below at its lightest content and still refused by another admission step: half a level a period,
        // however small its margin reads (a starved class completes little and reads nearly idle)
        boolean[] crowded = {false, false, true};
        assertEquals(1.5, UtilizationLaw.contentLevel(2, 2, 0.4, 0, new double[] {2, 2, 1}, count, gain,
                new double[] {0, 0, 0.3}, crowded), 1e-12);
        assertEquals(1.0, UtilizationLaw.contentLevel(1.2, 2, 0.4, 0, new double[] {1.2, 2, 0.6}, count, gain,
                new double[] {0, 0, 0.3}, crowded), 1e-12);
        // ... not while it still has lighter content of its own to give
        assertEquals(2.0, UtilizationLaw.contentLevel(2, 2, 0.4, 0, new double[] {2, 2, 1.5}, count, gain,
                new double[] {0, 0, 0.3}, crowded), 1e-12);
    }

    @Test
    void sessionsRefusedByAnotherAdmissionStepCountAsDemand() {
        // 10 admitted, 30 refused by the admission law at full content: the class wanted 4 times what it used
        assertEquals(0.8, UtilizationLaw.demand(0.2, 2, 10, 30), 1e-12);
        assertEquals(0.2 * UtilizationLaw.MAX_DEMAND, UtilizationLaw.demand(0.2, 2, 1, 100), 1e-12);
        // at level 0.5 half the new sessions are the level's own refusals: only the rest count
        assertEquals(0.2 * 25 / 20, UtilizationLaw.demand(0.2, 0.5, 20, 30), 1e-12);
        assertEquals(0.2, UtilizationLaw.demand(0.2, 0.5, 20, 20), 1e-12);
        assertEquals(0.2, UtilizationLaw.demand(0.2, 2, 10, 0), 1e-12);
    }

    /**
     * The crowd of the sample shop with the admission law refusing first: premium within the target at full content
     * (0.5), basic's sessions refused by another step of admission (three in four), so that the server sits at the
     * target without any content lowered (basic's admitted load is 0.4 at full content, 0.05 at its lightest). While
     * another step refuses basic's new sessions basic lacks capacity, whatever its utilization reads: lighter content
     * first, at half a level a period, basic to its lightest, then premium to its lightest. Once the refusals stop,
     * content comes back.
     */
    @Test
    void contentIsLoweredWhileAnotherAdmissionStepRefusesTheSessions() {
        ContentPlant.Load premium = new ContentPlant.Load("premium", 100, 0.020, 40_000);
        ContentPlant.Load basic = new ContentPlant.Load("basic", 80, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0, 0.0, premium, basic);
        LevelLaw law = ControlLaws.utilization(PI);
        Settings[] s = {settings(cls("premium", 2), cls("basic", 2))};
        int premiumAtLightest = -1;
        for (int i = 0; i < 60; i++) {
            Sample x = withSessions(plant.sample(s[0]), 1, 3, 9);
            s[0] = clamp(law.next(x, s[0]));
            if (Boolean.getBoolean("trace")) {
                System.out.println(law.utilization().classes());
            }
            if (i >= 2) {
                assertTrue(s[0].get(1).level() <= 1, "period " + i + ": basic at its lightest content: " + s[0].get(1));
            }
            if (premiumAtLightest < 0 && s[0].get(0).level() == 1.0) {
                premiumAtLightest = i;
            }
        }
        assertTrue(premiumAtLightest >= 0 && premiumAtLightest <= 4,
                "premium at its lightest content within 5 periods: " + premiumAtLightest);
        assertEquals(1.0, s[0].get(0).level(), 1e-9, "premium gave up content for basic: " + s[0].get(0));
        for (int i = 0; i < 30; i++) {
            s[0] = clamp(law.next(withSessions(plant.sample(s[0]), 1, 3, 0), s[0]));
        }
        assertTrue(s[0].get(0).level() > 1, "premium's content back once nothing is refused: " + s[0].get(0));
    }

    /**
     * Premium alone is more than the server at its lightest content (1.25 of 0.58), basic's sessions are refused
     * three in four by another step. Premium's target leaves the classes below nothing, but it refuses its own new
     * sessions only once every class below refuses all of theirs: basic's level goes to 0 first, then premium's
     * under 1.
     */
    @Test
    void aClassRefusesItsSessionsOnlyOnceEveryClassBelowRefusesAllOfTheirs() {
        ContentPlant.Load premium = new ContentPlant.Load("premium", 2_000, 0.020, 40_000);
        ContentPlant.Load basic = new ContentPlant.Load("basic", 80, 0.020, 40_000);
        ContentPlant plant = new ContentPlant(4, 1.0 / 8, 0.0, 0.0, premium, basic);
        LevelLaw law = ControlLaws.utilization(PI);
        // both at their lightest content when premium's load steps up
        Settings[] s = {settings(cls("premium", 2).withLevel(1), cls("basic", 2).withLevel(1))};
        for (int i = 0; i < 90; i++) {
            double basicBefore = s[0].get(1).level();
            s[0] = clamp(law.next(withSessions(plant.sample(s[0]), 1, 3, 9), s[0]));
            // a level of 1e-9 admits one new session in a billion: refused whole
            if (Boolean.getBoolean("trace")) {
                System.out.println(i + " " + s[0].get(0).level() + " " + s[0].get(1).level() + " "
                        + plant.utilization(s[0]));
            }
            assertTrue(s[0].get(0).level() >= 1 || basicBefore < 1e-6, "period " + i + ": premium refuses ("
                    + s[0].get(0).level() + ") while basic was admitted at " + basicBefore);
        }
        assertEquals(0.0, s[0].get(1).level(), 1e-6, "basic refused whole");
        assertTrue(s[0].get(0).level() < 1, "premium refuses part of its new sessions: " + s[0].get(0));
        assertEquals(0.58, plant.utilization(s[0]), 0.03);
    }

    private static Sample withSessions(Sample s, int k, double admitted, double refused) {
        List<ClassSample> classes = new ArrayList<>(s.classes());
        ClassSample c = classes.get(k);
        classes.set(k, new ClassSample(c.name(), c.budget(), c.arrivals(), c.grants(), c.completions(), c.refusals(),
                c.meanWait(), c.waits(), c.meanService(), c.bytes(), c.busy(), c.share(), c.queued(), c.executing(),
                admitted, refused));
        return new Sample(s.seconds(), s.maxExecuting(), s.cpu(), classes);
    }

    /**
     * On worker occupancy the fit learns a request's cost at the back end's speed; when the back end slows down, the
     * same requests hold their workers twice as long. The classes' utilizations are those of the measured occupancy
     * (split by the fit), not the fit's lagging 0.45: the law lowers content instead of giving it back.
     */
    @Test
    void onOccupancyTheClassesUtilizationsSumToTheMeasuredOne() {
        LevelLaw law = ControlLaws.utilization(PI.withSource(UtilizationSource.OCCUPANCY).withTarget(0.9));
        Settings[] s = {settings(cls("premium", 2), cls("basic", 2))};
        java.util.Random random = new java.util.Random(3);
        for (int i = 0; i < 40; i++) {
            // 0.0025 of occupancy per request a second: premium 40 to 60 requests a second, basic 100 to 140
            double p = 40 + 20 * random.nextDouble();
            double b = 100 + 40 * random.nextDouble();
            s[0] = clamp(law.next(occupancySample(p, b, 0.0025), s[0]));
        }
        assertEquals(2.0, s[0].get(1).level(), 1e-9, "0.35 to 0.5 of a 0.9 target: full content");
        // the back end twice as slow: the same requests take 0.005 each, 0.9 to 1.0 (workers all busy)
        s[0] = clamp(law.next(occupancySample(50, 130, 0.005), s[0]));
        UtilizationStatus st = law.utilization();
        double sum = st.classes().get(0).utilization() + st.classes().get(1).utilization();
        assertEquals(st.measured(), sum, 1e-9, "the classes' utilizations: " + st.classes());
        assertEquals(0.9, st.measured(), 1e-9);
        assertTrue(st.estimated() < 0.5, "the fit still lags: " + st.estimated());
    }

    /** One period on worker occupancy (16 permits): each class's share is its requests times {@code cost}. */
    private static Sample occupancySample(double premium, double basic, double cost) {
        List<ClassSample> classes = new ArrayList<>();
        for (String name : List.of("premium", "basic")) {
            double r = name.equals("premium") ? premium : basic;
            double share = Math.min(0.9, r * cost);
            classes.add(new ClassSample(name, 8, r, r, r, 0, 0, WaitHistogram.empty(), cost * 16, r * 40_000,
                    share * 16, share, 0, 0, r / 12, 0));
        }
        return new Sample(1, 16, Double.NaN, classes);
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

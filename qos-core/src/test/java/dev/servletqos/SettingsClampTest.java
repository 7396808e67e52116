package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The clamp as the pure function it is: settings and what the engine has in, clamped settings out. */
class SettingsClampTest {

    private static final String[] NAMES = {"premium", "basic"};
    private static final int[] LEVELS = {1, 3};

    /** A valid control section for two classes: the defaults a policy gets. */
    private static final dev.servletqos.policy.ControlPolicy CONTROL = dev.servletqos.policy.QosPolicy.builder()
            .addClass(dev.servletqos.policy.ClassPolicy.named("premium"))
            .addClass(dev.servletqos.policy.ClassPolicy.named("basic")).build().control();

    /** Two classes, max-executing 10 and ceiling 20, no bucket rule. */
    private static Settings proposed() {
        return new Settings(10, 20, List.of(
                new Settings.ClassSettings("premium", 6, 2, 0, 1, Duration.ofMillis(100), 1, 1),
                new Settings.ClassSettings("basic", 4, 1, 5, 3, Duration.ofMillis(500), 3, 3)),
                CONTROL, Settings.Source.OPERATOR);
    }

    private static Settings clamp(Settings s, Settings.Source source, int reserves, Settings inForce) {
        return SettingsClamp.clamp(s, source, NAMES, LEVELS, reserves, inForce, List.of());
    }

    @Test
    void settingsWithinTheirRangesPassUnchanged() {
        Settings s = proposed();
        Settings out = clamp(s, Settings.Source.OPERATOR, 0, null);
        assertEquals(s.classes(), out.classes());
        assertEquals(10, out.maxExecuting());
        assertEquals(20, out.ceiling());
        assertEquals(Settings.Source.OPERATOR, out.source());
    }

    @Test
    void anOperatorsMaxExecutingRaisesTheCeilingAControllersDoesNot() {
        Settings above = proposed().withMaxExecuting(30);
        assertEquals(30, clamp(above, Settings.Source.OPERATOR, 0, null).ceiling());
        Settings byController = clamp(above, Settings.Source.CONTROLLER, 0, null);
        assertEquals(20, byController.ceiling());
        assertEquals(20, byController.maxExecuting(), "held at the ceiling");
    }

    @Test
    void maxExecutingIsAtLeastTheReservesAndBudgetsAtMostMaxExecuting() {
        Settings s = proposed().withMaxExecuting(1).withBudgets(6, 4);
        Settings out = clamp(s, Settings.Source.OPERATOR, 3, null);
        assertEquals(3, out.maxExecuting(), "the sum of the reserves given");
        assertEquals(3, out.get(0).budget());
        assertEquals(3, out.get(1).budget());
    }

    @Test
    void aControllersBudgetIsAtLeastTheMinBudgetAnOperatorsMayGoToZero() {
        Settings s = proposed().withBudgets(0, 0);
        assertEquals(2, clamp(s, Settings.Source.CONTROLLER, 0, null).get(0).budget());
        assertEquals(0, clamp(s, Settings.Source.OPERATOR, 0, null).get(0).budget());
    }

    @Test
    void ratesTargetsAndLevelsAreClampedAndALevelThatIsNoNumberKeepsTheOneInForce() {
        Settings s = proposed().withClass(1, proposed().get(1).withSessionRate(Double.NaN, 0)
                .withDelayTarget(Duration.ZERO).withLevel(7));
        Settings.ClassSettings basic = clamp(s, Settings.Source.OPERATOR, 0, null).get(1);
        assertEquals(0, basic.sessionRate(), "not a number: no limit");
        assertEquals(1, basic.sessionBurst());
        assertEquals(Duration.ofNanos(1), basic.delayTarget());
        assertEquals(3, basic.level(), "at most its levels");
        Settings inForce = proposed().withClass(1, proposed().get(1).withLevel(1.5));
        Settings keep = proposed().withClass(1, proposed().get(1).withLevel(Double.NaN));
        assertEquals(1.5, clamp(keep, Settings.Source.OPERATOR, 0, inForce).get(1).level());
        assertEquals(3, clamp(keep, Settings.Source.OPERATOR, 0, null).get(1).level(), "none in force: full");
    }

    @Test
    void bucketRatesStayAtLeastTheirMinimumAndKeepThePolicysMinimumAndDepth() {
        List<Settings.BucketSettings> rules = List.of(new Settings.BucketSettings("api", 50, 10, 5));
        Settings s = proposed().withBuckets(List.of(new Settings.BucketSettings("api", 2, 0, 99)));
        Settings.BucketSettings out = SettingsClamp.clamp(s, Settings.Source.OPERATOR, NAMES, LEVELS, 0, null,
                rules).buckets().get(0);
        assertEquals(new Settings.BucketSettings("api", 10, 10, 5), out);
        Settings nan = proposed().withBuckets(List.of(new Settings.BucketSettings("api", Double.NaN, 0, 5)));
        assertEquals(50, SettingsClamp.clamp(nan, Settings.Source.OPERATOR, NAMES, LEVELS, 0, null, rules)
                .buckets().get(0).rate(), "not a number, none in force: the policy's");
    }

    @Test
    void settingsOfOtherClassesAreRefusedNamingWhatDiffers() {
        Settings swapped = new Settings(10, 20, List.of(proposed().get(1), proposed().get(0)),
                CONTROL, Settings.Source.OPERATOR);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> clamp(swapped, Settings.Source.OPERATOR, 0, null));
        assertTrue(e.getMessage().contains("basic") && e.getMessage().contains("premium"), e.getMessage());
    }
}

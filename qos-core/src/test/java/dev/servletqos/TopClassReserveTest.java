package dev.servletqos;

import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 11, finding 3: by default the highest class keeps one permit no lower class can take, so that a flood of
 * lower-class requests cannot make it wait for a permit to be released. Time on a fake clock.
 */
class TopClassReserveTest {

    private final FakeClock clock = new FakeClock();
    private final Engines.Recorder recorder = new Engines.Recorder();
    private final List<Ticket> all = new ArrayList<>();
    private QosEngine engine;

    private Ticket enter(String serviceClass) {
        Ticket t = engine.enter(request(serviceClass), clock.nanoTime());
        all.add(t);
        if (t.state() == State.PARKED) {
            t.await(recorder);
        }
        return t;
    }

    private int executing(String serviceClass) {
        return engine.snapshot().get(serviceClass).executing();
    }

    /** Floods basic with 50 requests, checking after each that basic holds at most {@code most} permits. */
    private List<Ticket> flood(int most) {
        List<Ticket> basic = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            basic.add(enter("basic"));
            assertTrue(executing("basic") <= most, "basic runs " + executing("basic") + " after " + (i + 1));
        }
        return basic;
    }

    /** Completes the first running ticket of {@code tickets}. */
    private static void completeOneRunning(List<Ticket> tickets) {
        for (Ticket t : tickets) {
            if (t.state() == State.RUNNING) {
                t.complete();
                return;
            }
        }
        throw new AssertionError("none running");
    }

    @AfterEach
    void endingEverythingLeavesNothingBehind() {
        for (int round = 0; round < 3; round++) {
            new ArrayList<>(all).forEach(Ticket::complete);
        }
        EngineSnapshot s = engine.snapshot();
        assertEquals(0, s.executing(), s.toString());
        assertEquals(0, s.queued(), s.toString());
        for (ClassStats c : s.classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }

    @ParameterizedTest
    @EnumSource(Scheduling.class)
    void aPremiumRequestRunsAtOnceThroughAFloodOfBasicByDefault(Scheduling scheduling) {
        engine = QosEngine.create(policy(scheduling, 4, ClassPolicy.named("premium"), ClassPolicy.named("basic"))
                .build(), clock);
        List<Ticket> basic = flood(3);
        assertEquals(3, executing("basic"), "basic takes every permit but premium's");
        assertEquals(1, engine.snapshot().get("premium").reserve(), "the default reserve is in force");

        Ticket premium = enter("premium");
        assertEquals(State.RUNNING, premium.state(), "no wait for a permit to be released");
        assertEquals(4, engine.snapshot().executing());

        // the flood goes on being served, never on premium's permit, also once premium is done
        premium.complete();
        for (int i = 0; i < 20; i++) {
            completeOneRunning(basic);
            assertEquals(3, executing("basic"), "after " + (i + 1) + " basic completions");
        }
        assertEquals(State.RUNNING, enter("premium").state());
    }

    @ParameterizedTest
    @EnumSource(Scheduling.class)
    void anExplicitReserveOfZeroLetsBasicTakeEveryPermitAsBefore(Scheduling scheduling) {
        engine = QosEngine.create(policy(scheduling, 4, ClassPolicy.named("premium").withReserve(0),
                ClassPolicy.named("basic")).build(), clock);
        List<Ticket> basic = flood(4);
        assertEquals(4, executing("basic"));
        Ticket premium = enter("premium");
        assertEquals(State.PARKED, premium.state(), "premium waits behind the flood for a permit to be released");
        assertEquals(0, engine.snapshot().get("premium").reserve());
    }

    @Test
    void noDefaultReserveWithOnePermitOrOneClass() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).build(), clock);
        assertEquals(0, engine.policy().classes().get(0).capacity().reserve());
        assertEquals(State.RUNNING, enter("basic").state(), "with one permit basic still runs");
        all.forEach(Ticket::complete);

        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("basic")).build(), clock);
        assertEquals(0, engine.policy().classes().get(0).capacity().reserve(), "a single class keeps nothing back");
        flood(4);
        assertEquals(4, executing("basic"));
    }

    @Test
    void theDefaultReserveGivesWayWhenMaxExecutingFallsToOneAndComesBackAtTwo() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).build(), clock);
        List<Ticket> basic = flood(3);
        assertEquals(3, executing("basic"));

        // the capacity law (a controller's change through the settings seam) lowers max-executing to 1
        Settings s = engine.apply(engine.settings().withMaxExecuting(1), Settings.Source.CONTROLLER);
        assertEquals(1, s.maxExecuting());
        assertEquals(0, engine.snapshot().get("premium").reserve(), "no reserve with one permit");
        completeOneRunning(basic);
        completeOneRunning(basic);
        assertEquals(1, executing("basic"), "non-preemptive: the third still runs, nothing started");
        completeOneRunning(basic);
        assertEquals(1, executing("basic"), "the one permit goes to basic: premium's reserve gave way");

        // back to 2: premium keeps one again, and basic runs on the other only
        engine.apply(engine.settings().withMaxExecuting(2), Settings.Source.CONTROLLER);
        assertEquals(1, engine.snapshot().get("premium").reserve());
        assertEquals(1, executing("basic"), "at max-executing 2 basic uses one permit");
        completeOneRunning(basic);
        assertEquals(1, executing("basic"));
        assertEquals(State.RUNNING, enter("premium").state());
        assertEquals(2, engine.snapshot().executing());

        // an operator raising it to 4 (QosEngine.update): basic gets 3, premium's reserve is in use
        engine.setMaxExecuting(4);
        assertEquals(3, executing("basic"));
        assertEquals(State.PARKED, enter("premium").state(), "one permit reserved, not two");
    }

    @Test
    void theInvariantsCheckerTakesTheDefaultReservesReturnForNoLentReserve() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 5, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).build(), clock);
        Invariants invariants = new Invariants(engine.policy(), engine.snapshot());
        flood(4);
        invariants.check(engine.snapshot(), "flood");
        engine.setMaxExecuting(1);
        invariants.applied(engine.settings());
        invariants.check(engine.snapshot(), "at 1");
        engine.setMaxExecuting(2);
        invariants.applied(engine.settings());
        // basic still holds its 4 permits (non-preemptive) and premium's reserve is back: 5 held or owed at 2
        EngineSnapshot s = engine.snapshot();
        assertEquals(4, s.get("basic").executing());
        assertEquals(1, s.get("premium").reserve());
        invariants.check(s, "back at 2");
    }

    @Test
    void theDefaultReserveDoesNotRaiseTheLeastMaxExecuting() {
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).build(), clock);
        engine.setMaxExecuting(1); // a given reserve of 1 would allow it too; one of 2 would not
        assertEquals(1, engine.settings().maxExecuting());
        all.clear();

        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium").withReserve(2),
                ClassPolicy.named("basic")).build(), clock);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> engine.setMaxExecuting(1));
        assertTrue(e.getMessage().contains("reserves the policy gives (2)"), e.getMessage());
        assertEquals(2, engine.apply(engine.settings().withMaxExecuting(1), Settings.Source.CONTROLLER)
                .maxExecuting(), "a given reserve is still the least max-executing");
    }

    @Test
    void givenReservesOfLowerClassesComeFirst() {
        // basic's reserve of 3 leaves max-executing 4 one permit: the default would take it from standard
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium"),
                ClassPolicy.named("standard"), ClassPolicy.named("basic").withReserve(3)).build(), clock);
        assertEquals(0, engine.policy().defaultTopReserve());
        assertEquals(State.RUNNING, enter("standard").state());

        // at 5 it fits: premium keeps one, basic three, standard runs on the fifth
        engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 5, ClassPolicy.named("premium"),
                ClassPolicy.named("standard"), ClassPolicy.named("basic").withReserve(3)).build(), clock);
        assertEquals(1, engine.policy().defaultTopReserve());
        assertEquals(State.RUNNING, enter("standard").state());
        assertEquals(State.PARKED, enter("standard").state(), "premium's and basic's reserves are kept");
        // lowered to 4 at run time, the default gives way and standard has its permit again
        engine.setMaxExecuting(4);
        assertEquals(0, engine.snapshot().get("premium").reserve());
        assertEquals(3, engine.snapshot().get("basic").reserve());
    }

    @Test
    void startupChecksNameTheKeyAndCountOnlyGivenReserves() {
        // the default never makes a policy that fits today fail
        QosPolicy fits = policy(Scheduling.SHARED_CAPACITY, 4, ClassPolicy.named("premium"),
                ClassPolicy.named("basic").withReserve(4)).build();
        assertEquals(0, fits.classes().get(0).capacity().reserve());
        PolicyException e = assertThrows(PolicyException.class, () -> policy(Scheduling.SHARED_CAPACITY, 4,
                ClassPolicy.named("premium").withReserve(1), ClassPolicy.named("basic").withReserve(4)).build());
        assertEquals("class.*.reserve = 5: the reserves add up to more than max-executing (4)", e.getMessage());
        PolicyException budget = assertThrows(PolicyException.class, () -> policy(Scheduling.SHARED_CAPACITY, 4,
                ClassPolicy.named("premium").withBudget(1).withReserve(2), ClassPolicy.named("basic")).build());
        assertEquals("class.premium.reserve = 2: must be 0..1 (the class's budget)", budget.getMessage());
        // a budget of 0 takes no default reserve; an explicit reserve of 1 is not the default one
        assertEquals(0, policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium").withBudget(0),
                ClassPolicy.named("basic")).build().classes().get(0).capacity().reserve());
        QosPolicy byDefault = policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).build();
        QosPolicy given = policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium").withReserve(1),
                ClassPolicy.named("basic")).build();
        assertEquals(1, byDefault.defaultTopReserve());
        assertEquals(0, given.defaultTopReserve());
        assertNotEquals(byDefault, given, "a given reserve of 1 holds max-executing up, the default does not");
        engine = QosEngine.create(byDefault, clock);
    }

    @Test
    void aReloadPutsTheDefaultInAndOutOfForce() {
        QosPolicy byDefault = policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium"),
                ClassPolicy.named("basic")).build();
        QosPolicy off = policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("premium").withReserve(0),
                ClassPolicy.named("basic")).build();
        engine = QosEngine.create(off, clock);
        List<Ticket> basic = flood(4);
        assertEquals(4, executing("basic"));

        engine.reload(byDefault);
        assertEquals(1, engine.snapshot().get("premium").reserve());
        completeOneRunning(basic);
        assertEquals(3, executing("basic"), "the released permit is kept for premium");
        assertEquals(State.RUNNING, enter("premium").state());

        engine.reload(off);
        completeOneRunning(basic);
        assertEquals(3, executing("basic"), "released permit to basic: premium's is no longer kept");
        all.stream().filter(t -> t.serviceClass().equals("premium")).forEach(Ticket::complete);
        assertEquals(4, executing("basic"));

        // a reload that makes another class the highest gives it the default, and takes it from the old one
        engine.reload(policy(Scheduling.STRICT_PRIORITY, 4, ClassPolicy.named("basic"),
                ClassPolicy.named("premium")).build());
        assertEquals(1, engine.snapshot().get("basic").reserve());
        assertEquals(0, engine.snapshot().get("premium").reserve());
    }
}

package dev.servletqos;

import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.control.EngineSampleSource;
import dev.servletqos.control.UtilizationStatus;
import dev.servletqos.metrics.QosMetrics;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.ControlPolicy.Degradation;
import dev.servletqos.policy.ControlPolicy.DegradationLaw;
import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import dev.servletqos.policy.QosPolicy.Scheduling;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The degradation law in the engine's control loop: levels set through the settings seam, status and meters. */
class DegradationLoopTest {

    private static final Duration PERIOD = Duration.ofSeconds(1);

    private final FakeClock clock = new FakeClock();
    private final ManualPeriodic periodic = new ManualPeriodic();
    private double cpu;

    private QosEngine engine(DegradationLaw law) {
        ControlPolicy control = ControlPolicy.DEFAULTS.withDegradation(Degradation.DEFAULTS.withLaw(law)
                .withSource(UtilizationSource.CPU).withInterval(PERIOD));
        QosEngine e = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 16,
                ClassPolicy.named("premium").withLevels(2), ClassPolicy.named("basic").withLevels(2))
                .control(control).build(), clock);
        e.start(periodic);
        e.useSampleSource(new EngineSampleSource(e, () -> cpu));
        return e;
    }

    /**
     * One period: {@code n} requests of each class arrive, those let in are served with 10 kB each and cost
     * {@code each} of the CPU.
     */
    private void period(QosEngine e, int n, double each) {
        int served = 0;
        for (int i = 0; i < n; i++) {
            for (String c : List.of("premium", "basic")) {
                Ticket t = e.enter(request(c), clock.nanoTime());
                if (t.state() == Ticket.State.RUNNING) {
                    t.complete(10_000);
                    served++;
                }
            }
        }
        cpu = served * each;
        periodic.tick(clock, PERIOD);
    }

    @Test
    void thePiLawLowersTheLowestClassFirstThroughTheSettingsSeam() {
        QosEngine e = engine(DegradationLaw.PI);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(e, List.of(), 0).bindTo(registry);
        assertTrue(Double.isNaN(registry.get("qos.control.utilization").gauge().value()), "before the first period");
        // each class: 50 requests a second at 9 ms of the CPU each: 0.9 in all, target 0.58
        // (here lighter content costs as much: basic at its lightest still lacks room, and premium, whose 0.45 is
        // within the target, gives up content only then)
        for (int i = 0; i < 5; i++) {
            period(e, 50, 0.009);
            Settings p = e.settings();
            assertTrue(p.get(0).level() == 2 || p.get(1).level() <= 1, "premium degraded at " + p.get(0).level()
                    + " before basic was at its lightest content: " + p.get(1).level());
        }
        Settings s = e.settings();
        assertEquals(Settings.Source.CONTROLLER, s.source());
        assertTrue(s.get(1).level() < 2, "basic degraded: " + s.get(1).level());
        UtilizationStatus u = e.controlStatus().utilization();
        assertEquals("pi", u.law());
        assertEquals("cpu", u.source());
        assertEquals(cpu, u.measured(), 1e-9);
        assertEquals(cpu, u.estimated(), 0.01);
        assertEquals(0.58, u.classes().get(0).target(), 1e-9);
        assertEquals(cpu, registry.get("qos.control.utilization").gauge().value(), 1e-9);
        assertEquals(u.a(), registry.get("qos.control.utilization.a").gauge().value(), 1e-12);
        assertEquals(u.b(), registry.get("qos.control.utilization.b").gauge().value(), 1e-18);
        assertEquals(0.45, registry.get("qos.control.utilization.class").tag("qos.class", "premium").gauge().value(),
                0.01);
        // basic's target: 0.58 less what premium used, averaged over the periods (here nearly constant)
        assertEquals(0.58 - u.classes().get(0).utilization(),
                registry.get("qos.control.utilization.target").tag("qos.class", "basic").gauge().value(), 1e-6);
        // a new basic session gets the level the engine decides from the law's m = I + F: I or I + 1 (0: refused)
        double m = e.settings().get(1).level();
        Ticket t = e.enter(request("basic"), clock.nanoTime());
        int whole = (int) Math.floor(m);
        assertTrue(t.level() == whole || t.level() == whole + 1, "level " + t.level() + " at m " + m);
        assertEquals(t.level() == 0, t.state() == Ticket.State.REJECTED);
        if (t.state() == Ticket.State.RUNNING) {
            t.complete();
        }
    }

    @Test
    void thresholdModeSwitchesAndModeNoneHasNoStatus() {
        QosEngine e = engine(DegradationLaw.THRESHOLD);
        period(e, 10, 0.0475);
        assertEquals(1.0, e.settings().get(1).level(), "basic degraded above 0.75");
        assertEquals(2.0, e.settings().get(0).level());
        assertEquals(0.95, e.controlStatus().utilization().smoothed(), 1e-9);
        QosEngine none = engine(DegradationLaw.NONE);
        period(none, 10, 0.0475);
        assertNull(none.controlStatus().utilization());
        assertEquals(2.0, none.settings().get(1).level());
    }

    @Test
    void aLevelThatIsNotANumberIsAFailureAndChangesNothing() {
        QosEngine e = engine(DegradationLaw.NONE);
        e.overrideControlLaw((sample, current) -> current.withClass(1, current.get(1).withLevel(Double.NaN)));
        periodic.tick(clock, PERIOD);
        assertEquals(1, e.controlStatus().failures());
        assertEquals(2.0, e.settings().get(1).level());
    }

    @Test
    void aBadDegradationSettingAtRunTimeIsRefusedNamingItsKey() {
        QosEngine e = engine(DegradationLaw.PI);
        Settings before = e.settings();
        ControlPolicy bad = before.control().withDegradation(before.control().degradation().withTarget(1.5));
        IllegalArgumentException x = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> e.apply(before.withControl(bad), Settings.Source.OPERATOR));
        assertTrue(x.getMessage().contains("control.utilization.target") && x.getMessage().contains("1.5"),
                x.getMessage());
        assertEquals(before, e.settings(), "nothing changed");
        // a good one is taken at the next period: the law is rebuilt with the new target
        ControlPolicy good = before.control().withDegradation(before.control().degradation().withTarget(0.9));
        e.apply(before.withControl(good), Settings.Source.OPERATOR);
        period(e, 10, 0.001);
        assertEquals(0.9, e.controlStatus().utilization().classes().get(0).target(), 1e-9);
    }
}

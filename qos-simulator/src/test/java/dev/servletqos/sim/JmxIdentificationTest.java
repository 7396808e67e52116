package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.jmx.IdentificationSummary;
import dev.servletqos.jmx.QosControllerMXBean;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.testkit.JmxRemote;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import org.junit.jupiter.api.Test;

/**
 * The controller bean's identification operations over a real RMI connection, on the simulator (the engine's
 * control loop on simulated time): paper 001's two classes, both queueing, the budget ratio excited for 60
 * periods of 30 s and fitted; refusals for what cannot run.
 */
class JmxIdentificationTest {

    @Test
    void anOperatorStartsAnIdentificationReadsItsFitStopsItAndGetsTheBudgetsBack() throws Exception {
        Workload w = Workload.builder().duration(Duration.ofSeconds(2000)).period(Duration.ofSeconds(10))
                .server(Paper001.server()).add(Paper001.users(0, 300)).add(Paper001.users(1, 300)).build();
        MBeanServer mbeans = MBeanServerFactory.newMBeanServer();
        AtomicReference<QosMBeans> beans = new AtomicReference<>();
        List<String> refusals = new ArrayList<>();
        AtomicReference<int[]> budgetsAtStart = new AtomicReference<>();
        AtomicReference<int[]> budgetsDuring = new AtomicReference<>();
        AtomicReference<IdentificationSummary> midway = new AtomicReference<>();
        AtomicReference<IdentificationSummary> stopped = new AtomicReference<>();
        AtomicReference<int[]> budgetsAfter = new AtomicReference<>();
        List<Boolean> overridden = new ArrayList<>();
        try (JmxRemote jmx = JmxRemote.start(mbeans)) {
            QosControllerMXBean[] controller = new QosControllerMXBean[1];
            Simulation.of(Paper001.policy(64, 64).build(), w).seed(1)
                    .onStart((e, p) -> {
                        DelayControlTest.control(e, ControlPolicy.Mode.OFF, null, 5, 15);
                        beans.set(QosMBeans.register(e.engine(), mbeans, QosMBeans.DOMAIN, "/sim"));
                        try {
                            controller[0] = JMX.newMXBeanProxy(jmx.connection(),
                                    QosMBeans.controllerName(QosMBeans.DOMAIN, "/sim"), QosControllerMXBean.class);
                        } catch (java.io.IOException x) {
                            throw new IllegalStateException(x);
                        }
                        assertNull(controller[0].getIdentification(), "none before the first");
                    })
                    .at(Duration.ofSeconds(100), e -> {
                        QosControllerMXBean c = controller[0];
                        refusals.add(refused(() -> c.startRelativeIdentification("class1", 0.5, 2)));
                        refusals.add(refused(() -> c.startRelativeIdentification("class7", 0.5, 2)));
                        refusals.add(refused(() -> c.startAbsoluteIdentification("class1", 4, 200)));
                        refusals.add(refused(() -> c.startRelativeIdentification("class0", 2, 0.5)));
                        refusals.add(refused(c::stopIdentification));
                        budgetsAtStart.set(e.engine().settings().budgets());
                        c.startRelativeIdentification("class0", 0.5, 2);
                        overridden.add(c.isOverridden());
                        refusals.add(refused(() -> c.startAbsoluteIdentification("class0", 10, 50)));
                    })
                    .at(Duration.ofSeconds(1905), e -> {
                        budgetsDuring.set(e.engine().settings().budgets());
                        midway.set(controller[0].getIdentification());
                        stopped.set(controller[0].stopIdentification());
                        budgetsAfter.set(e.engine().settings().budgets());
                        overridden.add(controller[0].isOverridden());
                    })
                    .run();
        } finally {
            if (beans.get() != null) {
                beans.get().close();
            }
        }
        assertEquals(List.of(
                "startRelativeIdentification = class1: needs a lower class after it; the classes are [class0, class1]",
                "startRelativeIdentification = class7: no such class; the classes are [class0, class1]",
                "startAbsoluteIdentification = class1, 4, 200: the budgets must be 0 <= low < high <= 128 "
                        + "(MaxExecuting)",
                "startRelativeIdentification = class0, 2.0, 0.5: the ratios must be finite and 0 < low < high",
                "stopIdentification = : no identification started over JMX runs",
                "startAbsoluteIdentification = absolute class0 budget 10..50: another law runs instead of the mode's "
                        + "(Overridden: relative class0/class1 ratio 0.5..2.0); stop it first"), refusals);
        assertEquals(List.of(true, false), overridden, "overridden while it runs, the mode's law after");

        IdentificationSummary m = midway.get();
        assertTrue(m.isRunning());
        assertEquals("relative class0/class1 ratio 0.5..2.0", m.getExperiment());
        assertTrue(m.getPeriods() >= 59, "about 60 periods of 30 s: " + m);
        assertFalse(Arrays.equals(budgetsAtStart.get(), budgetsDuring.get()), "the excitation moved the budgets "
                + "(ratio 1:2 or 2:1, never the 1:1 it started from): " + Arrays.toString(budgetsDuring.get()));

        IdentificationSummary s = stopped.get();
        assertFalse(s.isRunning());
        assertNull(s.getNote(), s.toString());
        assertTrue(s.getSamples() >= 40, s.toString());
        assertTrue(s.getRSquared() > 0.5, "both classes queue throughout, so the ratio follows the budgets: " + s);
        assertTrue(Double.isFinite(s.getProposedGain()) && s.getProposedGain() != 0, s.toString());
        assertTrue(s.isStable(), s.toString());
        assertArrayEquals(budgetsAtStart.get(), budgetsAfter.get(), "the budgets it started from are back");
    }

    private static String refused(Runnable r) {
        return assertThrows(IllegalArgumentException.class, r::run).getMessage();
    }
}

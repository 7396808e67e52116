package dev.servletqos.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.FakeClock;
import dev.servletqos.Periodic;
import dev.servletqos.Rejection;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.metrics.QosMetrics;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicReference;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** What a runtime owns between start and stop: periodic work, beans, meters, waiting requests, its policy source. */
class QosRuntimeTest {

    private static final String POLICY = "classes = premium, basic\nmax-executing = 1\n";

    @TempDir
    Path dir;

    /** A container's scheduler that runs nothing by itself: the test sees what is scheduled and cancelled. */
    private static final class RecordingPeriodic implements Periodic {
        final List<Duration> scheduled = new ArrayList<>();
        int cancelled;

        @Override
        public Cancellable schedule(Runnable task, Duration period) {
            scheduled.add(period);
            return () -> cancelled++;
        }
    }

    private static QosPolicy policy() {
        Properties p = new Properties();
        try {
            p.load(new StringReader(POLICY));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return PolicyParser.parse(p, "test");
    }

    @Test
    void periodicWorkBeansAndMetersLiveFromStartToStop() {
        RecordingPeriodic periodic = new RecordingPeriodic();
        MBeanServer server = MBeanServerFactory.newMBeanServer();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        QosRuntime runtime = QosRuntime.of(policy()).clock(new FakeClock()).periodic(periodic)
                .mbeanServer(server).engineId("/shop").attach(QosMetrics.binder(registry)).build();
        assertNotNull(runtime.engine(), "the engine is there before start");
        assertNull(runtime.mbeans());

        runtime.start();
        assertTrue(runtime.running());
        assertTrue(periodic.scheduled.contains(Duration.ofMillis(100)), "the expiry sweep: " + periodic.scheduled);
        assertTrue(server.isRegistered(runtime.mbeans().names().get(0)));
        assertEquals("/shop", runtime.mbeans().engineId());
        assertNotNull(registry.find("qos.max.executing").gauge());

        var names = runtime.mbeans().names();
        runtime.stop();
        assertFalse(runtime.running());
        assertEquals(periodic.scheduled.size(), periodic.cancelled, "every periodic task is cancelled");
        assertFalse(server.isRegistered(names.get(0)), "the beans are withdrawn");
        assertNull(registry.find("qos.max.executing").gauge(), "the meters are removed");
        runtime.stop(); // idempotent
    }

    @Test
    void stopAnswersEveryWaitingRequestAndLaterParksSeeItClosed() {
        QosRuntime runtime = QosRuntime.of(policy()).clock(new FakeClock())
                .periodic(new RecordingPeriodic()).noMBeans().build();
        assertTrue(runtime.waiting().closed(), "nothing may park before start");
        runtime.start();
        Ticket running = runtime.engine().enter(TestRequest.get("/a"));
        Ticket parked = runtime.engine().enter(TestRequest.get("/b"));
        assertEquals(Ticket.State.RUNNING, running.state());
        assertEquals(Ticket.State.PARKED, parked.state());
        AtomicReference<Rejection> answered = new AtomicReference<>();
        Waiting waiting = runtime.waiting();
        waiting.add(() -> {
            if (parked.cancel()) {
                answered.set(parked.rejection());
            }
        });

        runtime.stop();
        assertNotNull(answered.get(), "the waiting request is answered at stop");
        assertEquals(503, answered.get().status());
        assertTrue(waiting.closed());
        running.complete();
        assertEquals(0, runtime.engine().snapshot().executing());
    }

    @Test
    void aFilesOverridesAndTheSetterHoldAcrossReloads() throws Exception {
        Path file = Files.writeString(dir.resolve("qos.properties"), POLICY + "scheduling = weighted\n",
                StandardCharsets.UTF_8);
        QosRuntime runtime = QosRuntime.ofFile(file).maxExecuting(3).scheduling("strict-priority")
                .clock(new FakeClock()).periodic(new RecordingPeriodic()).noMBeans().build();
        assertEquals(3, runtime.engine().snapshot().maxExecuting());
        assertEquals("strict-priority", runtime.engine().policy().scheduling().key());
        runtime.start();

        runtime.setMaxExecuting(5);
        assertEquals(5, runtime.engine().snapshot().maxExecuting(), "at once");
        Files.writeString(file, "classes = premium, silver, basic\nmax-executing = 1\n", StandardCharsets.UTF_8);
        QosPolicy reloaded = runtime.reload();
        assertEquals(3, reloaded.classes().size());
        assertEquals(5, runtime.engine().snapshot().maxExecuting(), "the setter's value is an override now");
        runtime.stop();
    }

    @Test
    void aBadPolicyFailsTheBuildNamingTheKeyAndAPolicyInCodeHasNothingToReload() {
        Path missing = dir.resolve("nope.properties");
        PolicyException e = assertThrows(PolicyException.class, () -> QosRuntime.ofFile(missing).build());
        assertTrue(e.getMessage().contains("nope.properties"), e.getMessage());
        PolicyException bad = assertThrows(PolicyException.class,
                () -> QosRuntime.of(policy()).scheduling("lottery").build());
        assertTrue(bad.getMessage().contains("scheduling = lottery"), bad.getMessage());
        QosRuntime inCode = QosRuntime.of(policy()).noMBeans().build();
        assertThrows(IllegalStateException.class, inCode::reload);
    }
}

package dev.servletqos.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.FakeClock;
import dev.servletqos.QosEngine;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.control.ClassSample;
import dev.servletqos.control.EngineSampleSource;
import dev.servletqos.control.Sample;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The control loop sees the same sample whether it reads the engine's counters or the application's meters. */
class MicrometerSampleSourceTest {

    @Test
    void bothSourcesGiveTheSameSampleForTheSameTraffic() {
        FakeClock clock = new FakeClock();
        QosPolicy policy = QosPolicy.builder().maxExecuting(3).secret("test-secret-0123456789abcdef")
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic"))
                .addRule(Rule.header("premium", "X-Tier", "premium").asTrusted()).build();
        QosEngine engine = QosEngine.create(policy, clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine, Tags.empty(), 0).bindTo(registry);
        EngineSampleSource own = new EngineSampleSource(engine, () -> Double.NaN);
        MicrometerSampleSource meters = new MicrometerSampleSource(registry, engine);
        own.sample();
        meters.sample();

        SplittableRandom random = new SplittableRandom(7);
        Deque<Ticket> running = new ArrayDeque<>();
        int sampled = 0;
        for (int step = 1; step <= 600; step++) {
            clock.advance(Duration.ofMillis(random.nextInt(1, 30)));
            if (random.nextInt(100) < 52) {
                TestRequest r = TestRequest.get("/");
                Ticket t = engine.enter(random.nextBoolean() ? r.header("X-Tier", "premium") : r);
                if (t.state() == Ticket.State.PARKED) {
                    t.await(new Ticket.Listener() {
                        @Override
                        public void granted(Ticket ticket) {
                            running.add(ticket);
                        }

                        @Override
                        public void expired(Ticket ticket) {
                        }
                    });
                } else if (t.state() == Ticket.State.RUNNING) {
                    running.add(t);
                }
            } else if (!running.isEmpty()) {
                running.poll().complete(random.nextInt(100, 5000));
            }
            if (step % 100 == 0) {
                Sample a = own.sample();
                Sample b = meters.sample();
                assertSame(a, b);
                sampled += a.get("premium").meanWait() > 0 || a.get("basic").meanWait() > 0 ? 1 : 0;
            }
        }
        assertTrue(sampled >= 4, "the traffic made requests wait in most periods: " + sampled);
    }

    private static void assertSame(Sample a, Sample b) {
        assertEquals(a.seconds(), b.seconds(), 1e-12);
        assertEquals(a.maxExecuting(), b.maxExecuting());
        assertEquals(a.size(), b.size());
        for (int i = 0; i < a.size(); i++) {
            ClassSample x = a.get(i);
            ClassSample y = b.get(i);
            String m = x + " vs " + y;
            assertEquals(x.name(), y.name());
            assertEquals(x.budget(), y.budget(), m);
            assertEquals(x.arrivals(), y.arrivals(), 1e-9, m);
            assertEquals(x.grants(), y.grants(), 1e-9, m);
            assertEquals(x.completions(), y.completions(), 1e-9, m);
            assertEquals(x.refusals(), y.refusals(), 1e-9, m);
            assertEquals(x.meanWait(), y.meanWait(), 1e-9, m);
            assertEquals(x.waits(), y.waits(), m);
            assertEquals(x.delay(0.95), y.delay(0.95), 1e-12, m);
            assertEquals(x.meanService(), y.meanService(), 1e-9, m);
            assertEquals(x.bytes(), y.bytes(), 1e-9, m);
            assertEquals(x.busy(), y.busy(), 1e-6, m);
            assertEquals(x.share(), y.share(), 1e-6, m);
            assertEquals(x.queued(), y.queued(), m);
            assertEquals(x.executing(), y.executing(), m);
            assertEquals(x.sessions(), y.sessions(), 1e-9, m);
            assertEquals(x.sessionsRefused(), y.sessionsRefused(), 1e-9, m);
        }
    }

    @Test
    void afterAReloadTheMetersAreReadForTheNewClasses() {
        FakeClock clock = new FakeClock();
        QosEngine engine = QosEngine.create(QosPolicy.builder().addClass(ClassPolicy.named("premium"))
                .addClass(ClassPolicy.named("basic")).build(), clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine, Tags.empty(), 0).bindTo(registry);
        MicrometerSampleSource meters = new MicrometerSampleSource(registry, engine);
        meters.sample();
        engine.enter(TestRequest.get("/")).complete();

        engine.reload(QosPolicy.builder().addClass(ClassPolicy.named("gold")).addClass(ClassPolicy.named("basic"))
                .build());
        clock.advance(Duration.ofSeconds(1));
        engine.enter(TestRequest.get("/")).complete();

        var sample = meters.sample();
        assertEquals(List.of("gold", "basic"), sample.classes().stream().map(c -> c.name()).toList());
        assertEquals(2, sample.get("basic").completions() * sample.seconds(), 1e-9,
                "basic's two completions, counted on across the reload");
    }
}

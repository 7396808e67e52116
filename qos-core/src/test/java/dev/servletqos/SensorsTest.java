package dev.servletqos;

import dev.servletqos.policy.ClassPolicy;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.QosPolicy.Scheduling;
import dev.servletqos.Ticket.State;
import dev.servletqos.control.ClassSample;
import dev.servletqos.control.Sample;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What the engine measures per class for the control loop: service time, bytes, busy time, waits, declines. */
class SensorsTest {

    private final FakeClock clock = new FakeClock();
    // no reserve: the sampled numbers are those of basic alone on both permits
    private final QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 2,
            ClassPolicy.named("premium").withReserve(0), ClassPolicy.named("basic")).build(), clock);

    private Ticket enter(String c) {
        Ticket t = engine.enter(request(c), clock.nanoTime());
        if (t.state() == State.PARKED) {
            t.await(new Engines.Recorder());
        }
        return t;
    }

    @Test
    void aPeriodsSampleHasRatesWaitsServiceTimesBytesAndBusyShare() {
        EngineSnapshot start = engine.snapshot();
        Ticket a = enter("basic");
        Ticket b = enter("basic");
        Ticket c = enter("basic"); // c, d and e wait: both permits are taken
        Ticket d = enter("basic");
        Ticket e = enter("basic");
        clock.advance(Duration.ofMillis(200));
        a.complete(1000); // served 0.2 s; c waited 0.2 s
        assertEquals(State.RUNNING, c.state());
        clock.advance(Duration.ofMillis(200));
        b.complete(3000); // 0.4 s; d waited 0.4 s
        clock.advance(Duration.ofMillis(200));
        c.complete(500); // 0.4 s; e waited 0.6 s
        clock.advance(Duration.ofMillis(400));
        d.complete(-1); // size unknown: not counted
        e.complete(500);
        EngineSnapshot end = engine.snapshot();
        Sample s = Sample.between(start, end, Double.NaN);
        assertEquals(1.0, s.seconds(), 1e-9);
        ClassSample basic = s.get("basic");
        assertEquals(5.0, basic.arrivals(), 1e-9);
        assertEquals(5.0, basic.grants(), 1e-9);
        assertEquals(5.0, basic.completions(), 1e-9);
        assertEquals((0 + 0 + 0.2 + 0.4 + 0.6) / 5, basic.meanWait(), 1e-9);
        assertEquals(0.6, basic.waits().quantile(1.0), 0.6 * 0.2, "the longest wait, to a bucket's precision");
        // a, b and c completed while requests waited, so they were timed; d and e (nothing waiting) were not:
        // the 2nd and 3rd completions of the class, and one in SERVICE_SAMPLING is timed when nothing waits
        assertEquals((0.2 + 0.4 + 0.4) / 3, basic.meanService(), 1e-9);
        assertEquals(5000.0, basic.bytes(), 1e-9);
        assertEquals(5 * (0.2 + 0.4 + 0.4) / 3, basic.busy(), 1e-9, "Little's law: 5 completions/s x mean service");
        assertTrue(Double.isNaN(s.get("premium").meanWait()), "no premium request: no delay to speak of");
        assertTrue(!s.get("premium").active());
        assertEquals(0, s.get("premium").busy());
    }

    @Test
    void withNothingWaitingOneCompletionInEightIsTimed() {
        EngineSnapshot start = engine.snapshot();
        for (int i = 0; i < 2 * Scheduler.SERVICE_SAMPLING; i++) {
            Ticket t = enter("premium");
            clock.advance(Duration.ofMillis(100));
            t.complete();
        }
        EngineSnapshot end = engine.snapshot();
        assertEquals(2, end.get("premium").serviceTimed(), "the 1st and the 9th");
        ClassSample premium = Sample.between(start, end, Double.NaN).get("premium");
        assertEquals(0.1, premium.meanService(), 1e-9);
        assertEquals(1.0, premium.busy(), 1e-9, "one permit held all the time");
    }

    @Test
    void aDeclinedRequestReleasesItsPermitButIsNotCountedAsServed() {
        Ticket a = enter("premium");
        Ticket waiting = enter("premium");
        Ticket third = enter("premium");
        assertEquals(State.PARKED, third.state());
        a.decline();
        assertEquals(State.DECLINED, a.state());
        assertEquals(State.RUNNING, third.state(), "the permit went to the next in line");
        ClassStats p = engine.snapshot().get("premium");
        assertEquals(1, p.declined());
        assertEquals(0, p.completed());
        assertTrue(p.reconciles(), p.toString());
        waiting.complete();
        third.complete();
        assertEquals(2, engine.snapshot().get("premium").completed());
    }
}

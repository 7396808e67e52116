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
    private final QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 2,
            ClassPolicy.named("premium"), ClassPolicy.named("basic")).build(), clock);

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
        Ticket c = enter("basic"); // waits: both permits are taken
        clock.advance(Duration.ofMillis(300));
        a.complete(1000); // served 300 ms; c waited 300 ms
        assertEquals(State.RUNNING, c.state());
        clock.advance(Duration.ofMillis(700));
        b.complete(3000);
        c.complete(-1); // size unknown: not counted
        EngineSnapshot end = engine.snapshot();
        Sample s = Sample.between(start, end, Double.NaN);
        assertEquals(1.0, s.seconds(), 1e-9);
        ClassSample basic = s.get("basic");
        assertEquals(3.0, basic.arrivals(), 1e-9);
        assertEquals(3.0, basic.grants(), 1e-9);
        assertEquals(3.0, basic.completions(), 1e-9);
        assertEquals(0.1, basic.meanWait(), 1e-9, "(0 + 0 + 0.3) / 3");
        assertEquals(0.3, basic.waits().quantile(1.0), 0.3 * 0.2, "the longest wait, to a bucket's precision");
        assertEquals((0.3 + 1.0 + 0.7) / 3, basic.meanService(), 1e-9);
        assertEquals(4000.0, basic.bytes(), 1e-9);
        // a: 0-0.3, b: 0-1.0, c: 0.3-1.0 -> 2.0 permit-seconds in 1 s over 2 permits
        assertEquals(2.0, basic.busy(), 1e-9);
        assertEquals(1.0, basic.share(), 1e-9);
        assertTrue(Double.isNaN(s.get("premium").meanWait()), "no premium request: no delay to speak of");
        assertTrue(!s.get("premium").active());
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

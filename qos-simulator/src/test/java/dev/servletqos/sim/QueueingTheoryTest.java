package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The simulated server against queueing theory: the engine as a single-class FIFO gate with c permits, Poisson
 * arrivals of single-request sessions, exponential service, unlimited workers, is an M/M/c queue. Over a
 * long run the mean queue delay must match Erlang C and the permits' utilisation lambda / (c mu).
 */
class QueueingTheoryTest {

    @ParameterizedTest(name = "c={0}, rho={1}, {2} s, seed={3}")
    @CsvSource({"1, 0.6, 8000, 11", "4, 0.8, 4000, 12", "8, 0.85, 3000, 13"})
    void meanQueueDelayIsErlangC(int c, double rho, long seconds, long seed) {
        double mu = 10; // 100 ms mean service
        double lambda = rho * c * mu;
        QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, c,
                ClassPolicy.named("only").withMaxQueue(1_000_000).withMaxWait(Duration.ofHours(1))).build();
        Workload w = Workload.builder().duration(Duration.ofSeconds(seconds)).period(Duration.ofSeconds(10))
                .add(ClassLoad.open("only", lambda).session(SessionProfile.single(Duration.ofMillis(100))))
                .build();

        SimResult r = Simulation.run(policy, w, seed);
        ClassTotals t = r.totals("only");

        double expected = erlangC(c, lambda / mu) / (c * mu - lambda);
        double measured = t.meanQueueDelay();
        assertEquals(expected, measured, 0.10 * expected,
                "M/M/" + c + " at rho " + rho + ": Erlang C gives " + expected + " s, simulated " + measured + " s");
        double utilisation = r.series("only").mean(Metric.BUSY_MEAN, 0, r.loadSeconds()) / c;
        assertEquals(rho, utilisation, 0.03, "utilisation lambda/(c mu)");
        assertEquals(lambda, t.arrivals() / r.loadSeconds(), 0.03 * lambda, "arrival rate");
        assertEquals(0.1, t.meanServiceTime(), 0.005, "mean service time");
        assertTrue(r.drained());
        System.out.println("M/M/" + c + " rho=" + rho + ": Wq theory " + expected + " s, simulated " + measured
                + " s; " + r);
    }

    /** Erlang C: the probability that an arrival waits in M/M/c with offered load a = lambda / mu. */
    static double erlangC(int c, double a) {
        double term = 1;
        double sum = 0;
        for (int k = 0; k < c; k++) {
            sum += term;
            term *= a / (k + 1);
        }
        // term is now a^c / c!
        double last = term * c / (c - a);
        return last / (sum + last);
    }
}

package dev.servletqos.sim;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * Writes an example of what the simulator gives the docs, to {@code qos-core/target/sim/}: paper 001's
 * Workload D on the open-loop server as CSV and as SVG charts of the classes' delays and budgets.
 */
class ExamplePlotsTest {

    @Test
    void workloadDOpenLoop() throws Exception {
        Path dir = Path.of("target", "sim");
        SimResult r = Simulation.run(Paper001.policy(64, 64).build(), Paper001.workloadD(), 1);
        r.writeCsv(dir.resolve("workload-d-open-loop.csv"));
        r.chart(Metric.QUEUE_DELAY_MEAN, "Workload D, open loop: mean connection delay per class")
                .marker(870, "class 0: 100 -> 200 users").build().write(dir.resolve("workload-d-delay.svg"));
        r.chart(Metric.BUDGET, "Workload D, open loop: process budgets")
                .reference(Paper001.PROCESSES, "128 processes").build().write(dir.resolve("workload-d-budget.svg"));
        for (String f : new String[] {"workload-d-open-loop.csv", "workload-d-delay.svg", "workload-d-budget.svg"}) {
            assertTrue(Files.size(dir.resolve(f)) > 1000, f);
        }
        System.out.println("example plots in " + dir.toAbsolutePath());
    }
}

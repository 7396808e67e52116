package dev.servletqos.loadtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ResultsTest {

    @Test
    void percentNeverRoundsAShortfallUpToTheTarget() {
        assertEquals("98.9 %", Results.percent(0.98999));
        assertEquals("99.0 %", Results.percent(0.99));
        assertEquals("99.94 %", Results.percent(0.99949));
        assertEquals("100.0 %", Results.percent(1));
    }

    @Test
    void targetsCompareTheOverloadWithTheCapacityRunOfQosOn() {
        List<LoadTestRun.Run> runs = List.of(
                run("on", 1, 50, 50, 150, 150),      // 200 sessions in 20 s: 10/s
                run("on", 4, 199, 200, 0, 800),      // 199 in 20 s: 9.95/s, premium 99.5 %
                run("off", 4, 1, 200, 0, 800));
        List<Results.Check> checks = Results.checks(runs, 0.99, 0.9);
        assertEquals(2, checks.size());
        assertTrue(checks.get(0).passed(), checks.get(0).toString());
        assertEquals("99.5 % (199 of 200)", checks.get(0).measured());
        assertTrue(checks.get(1).passed(), checks.get(1).toString());

        List<Results.Check> failing = Results.checks(List.of(run("on", 1, 50, 50, 150, 150),
                run("on", 4, 150, 200, 0, 800)), 0.99, 0.9);
        assertFalse(failing.get(0).passed());
        assertFalse(failing.get(1).passed(), failing.get(1).toString());

    }

    @Test
    void throughputIsComparedWithTheLargerOfTheCapacityRuns() {
        // QoS off completes 12/s at 1x, QoS on 10/s: capacity is 12/s, and 9.95/s at 4x is 82.9 % of it
        List<Results.Check> checks = Results.checks(List.of(
                run("on", 1, 50, 50, 150, 150),
                run("on", 4, 199, 200, 0, 800),
                run("off", 1, 60, 60, 180, 180),
                run("off", 4, 1, 200, 0, 800)), 0.99, 0.9);
        assertTrue(checks.get(0).passed());
        assertFalse(checks.get(1).passed(), checks.get(1).toString());
        assertEquals("82.9 % (10.0/s at 4x against 12.0/s at 1x, the larger of 10.0/s QoS on and 12.0/s QoS off)",
                checks.get(1).measured());

        // QoS off did worse at 1x: QoS on's own 1x result is the capacity
        List<Results.Check> onBetter = Results.checks(List.of(
                run("on", 1, 50, 50, 150, 150),
                run("on", 4, 199, 200, 0, 800),
                run("off", 1, 10, 60, 10, 180)), 0.99, 0.9);
        assertTrue(onBetter.get(1).passed(), onBetter.get(1).toString());
    }

    @Test
    void aTargetThatCannotBeEvaluatedFails() {
        List<Results.Check> offOnly = Results.checks(List.of(run("off", 1, 1, 1, 1, 1), run("off", 4, 1, 1, 1, 1)),
                0.99, 0.9);
        assertEquals(2, offOnly.size());
        for (Results.Check c : offOnly) {
            assertFalse(c.passed() || c.evaluated(), c.toString());
            assertEquals("not evaluated: QoS on was not run", c.measured());
        }
        // --load 1: both runs are at 1x, there is no overload to check
        List<Results.Check> load1 = Results.checks(List.of(run("on", 1, 50, 50, 150, 150),
                run("on", 1, 50, 50, 150, 150)), 0.99, 0.9);
        assertEquals(2, load1.size());
        assertFalse(load1.get(0).passed() || load1.get(0).evaluated());
        assertTrue(load1.get(0).measured().contains("no QoS-on run above 1x"), load1.get(0).measured());
        assertTrue(load1.get(1).measured().contains("--load was 1"), load1.get(1).measured());

        LoadTestRun.Report report = new LoadTestRun.Report(List.of(), offOnly, "");
        assertFalse(report.passed());
    }

    private static LoadTestRun.Run run(String qos, double load, long premiumDone, long premiumStarted, long basicDone,
            long basicStarted) {
        Map<String, RunSummary.ClassStats> classes = new LinkedHashMap<>();
        classes.put("premium", stats(premiumDone, premiumStarted));
        classes.put("basic", stats(basicDone, basicStarted));
        RunSummary s = new RunSummary("qos-" + qos + "-" + load + "x", 10, load, 0.2, 10, 20, 5000, true, classes);
        return new LoadTestRun.Run(qos, s, null);
    }

    private static RunSummary.ClassStats stats(long done, long started) {
        Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
        outcomes.put(Outcome.COMPLETED, done);
        outcomes.put(Outcome.REFUSED_AT_START, started - done);
        return new RunSummary.ClassStats(outcomes, started, done, done * 5, done * 5, started, 100, 200, 300, 400);
    }
}

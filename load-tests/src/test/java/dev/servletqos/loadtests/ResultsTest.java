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

        assertTrue(Results.checks(List.of(run("off", 1, 1, 1, 1, 1), run("off", 4, 1, 1, 1, 1)), 0.99, 0.9).isEmpty());
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

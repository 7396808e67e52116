package dev.servletqos.loadtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The CI smoke version of {@code load-tests/run.sh}: the same steps (the sample jar started with QoS on, then
 * off; a run at 1x and one at twice that each; the results file), a few seconds each. It checks that the
 * simulations run and count what they should, not how well the server does: the targets belong to the full run.
 */
class SmokeLoadIT {

    @Test
    void simulationsRunAgainstTheSampleWithQosOnAndOff() throws Exception {
        Path jar = Path.of(System.getProperty("qos.sampleJar", "../samples/target/qos-sample.jar"));
        assertTrue(Files.isRegularFile(jar), "the sample jar " + jar + " is missing: build the samples module first");
        Path reports = Path.of(System.getProperty("qos.smokeReports", "target/smoke"));
        Path results = reports.resolve("results-smoke.md");
        LoadTestRun.Options options = new LoadTestRun.Options(LoadTestRun.Mode.SMOKE, List.of("on", "off"), "tomcat",
                LoadProfile.DEFAULT_CAPACITY, 2, jar, null, null, results, reports, "SmokeLoadIT");

        LoadTestRun.Report report = LoadTestRun.execute(options);

        assertEquals(List.of("qos-on-1x", "qos-on-2x", "qos-off-1x", "qos-off-2x"),
                report.runs().stream().map(r -> r.summary().label()).toList());
        for (LoadTestRun.Run run : report.runs()) {
            RunSummary s = run.summary();
            for (String c : ShopSessions.CLASSES) {
                RunSummary.ClassStats stats = s.classes().get(c);
                assertTrue(stats.started() > 0, s.label() + ": no " + c + " session started in the window: " + stats);
                assertTrue(stats.allStarted() >= stats.started(), s.label() + ": " + stats);
                assertTrue(stats.latencyCount() >= stats.started(), s.label() + ": requests not counted: " + stats);
                assertTrue(stats.usefulRequests() <= stats.servedRequests(), s.label() + ": " + stats);
            }
            assertTrue(run.report() != null && Files.isRegularFile(run.report().resolve("index.html")),
                    s.label() + ": no Gatling report");
            if (run.qos().equals("on")) {
                assertTrue(s.tierCookie(), s.label() + ": the shop issued no tier cookie at premium login");
            }
        }
        RunSummary overloadOn = report.runs().get(1).summary();
        assertTrue(overloadOn.classes().get(ShopSessions.PREMIUM).completed() > 0,
                "QoS on at 2x: no premium session completed");
        String md = Files.readString(results, StandardCharsets.UTF_8);
        assertTrue(md.contains("| on | 2x |") && md.contains("| off | 2x |"), md);
        assertEquals(2, report.checks().size(), "the two targets are evaluated: " + report.checks());
    }
}

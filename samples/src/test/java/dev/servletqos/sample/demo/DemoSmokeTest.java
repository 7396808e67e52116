package dev.servletqos.sample.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.run.ShopConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A very short demo: QoS on with the bundled policy, on with the same policy without degradation (the built-in
 * comparison), on with the hand-tuned one (the compared policy) and off, the per-second lines, report.html and
 * summary.json with their structure.
 */
class DemoSmokeTest {

    @TempDir
    Path dir;

    @Test
    void aShortDemoWritesTheReportAndTheSummary() throws Exception {
        ShopConfig config = new ShopConfig(true, 0, SamplePolicy.load(null), null, Costs.scaled(0.2));
        // the last phase slows the back end down, as the default profile's slow phase does
        Profile profile = Profile.parse("normal:2:0.5,crowd:2:2,slow:2:0.5:x2");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Demo.Result result;
        Path tunedFile = SamplePolicy.writeTuned(dir);
        Path plainFile = SamplePolicy.writeWithoutDegradation(null, dir);
        try (PrintStream log = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            Demo.Comparison tuned = new Demo.Comparison("tuned",
                    new ShopConfig(true, 0, SamplePolicy.load(tunedFile), tunedFile, Costs.scaled(0.2)));
            Demo.Comparison plain = new Demo.Comparison(Demo.NO_DEGRADATION,
                    new ShopConfig(true, 0, SamplePolicy.load(plainFile), plainFile, Costs.scaled(0.2)));
            result = Demo.run(new Demo.Settings("tomcat", config, profile, 10, true, true, dir.resolve("out"),
                    Profile.parse("warm-up:1:0.3"), tuned, plain), log);
        }
        String printed = out.toString(StandardCharsets.UTF_8);

        assertEquals(4, result.runs().size());
        assertEquals("on", result.runs().get(0).label());
        assertTrue(result.runs().get(0).qos());
        assertEquals("no degradation", result.runs().get(1).label());
        assertTrue(result.runs().get(1).qos());
        assertEquals("tuned", result.runs().get(2).label());
        assertTrue(result.runs().get(2).qos());
        assertFalse(result.runs().get(3).qos());
        for (Demo.RunResultView run : result.runs()) {
            assertEquals(3, run.phases().size());
            RunResult.TypeStats premium = run.phases().get(0).types().get(0);
            RunResult.TypeStats basic = run.phases().get(0).types().get(1);
            assertTrue(premium.offered() + basic.offered() > 0, "sessions arrived in the normal phase");
            assertEquals(basic.offered(), basic.completed(), "light load: every basic session of the first phase"
                    + " completed (QoS " + run.label() + ")\n" + printed);
        }
        // one line per second per class, for every run
        for (String run : new String[] {"on ", "no degradation", "tuned", "off"}) {
            for (String type : new String[] {"premium", "basic"}) {
                Matcher m = Pattern.compile("QoS " + run + " normal +1s " + type + " +offered").matcher(printed);
                assertTrue(m.find(), "a line for QoS " + run + " " + type + ":\n" + printed);
            }
        }
        assertTrue(printed.contains("Headline: completed sessions per second"), printed);
        assertTrue(printed.contains("premium on / no degradation / tuned / off"), printed);
        // the level of each class, per second
        assertTrue(Pattern.compile("QoS on  normal +1s premium .* level 2\\.00 ").matcher(printed).find(), printed);
        assertTrue(Pattern.compile("QoS off normal +1s premium .* level    - ").matcher(printed).find(), printed);
        // with degradation over without, per phase
        assertTrue(Pattern.compile("degradation crowd +all sessions [0-9.]+/s with, [0-9.]+/s without \\(no"
                + " degradation\\): [0-9.]+ times").matcher(printed).find(), printed);
        assertTrue(printed.contains("compared with policy tuned (" + tunedFile + "): strict-priority, max-executing 16"),
                printed);
        // each run's engine runs its own policy: the bundled one leaves the budgets alone, the tuned one moves them
        assertTrue(Pattern.compile("=== QoS on: [^\n]*\ncontrol loop: mode off").matcher(printed).find(), printed);
        assertTrue(Pattern.compile("=== QoS tuned: [^\n]*\ncontrol loop: mode absolute").matcher(printed).find(),
                printed);
        assertTrue(printed.contains("degradation: the pi law on occupancy, target 0.9 (content levels per class:"
                + " premium 2, basic 2); compared with the same policy and control.degradation = none"), printed);

        Path report = dir.resolve("out/report.html");
        Path summary = dir.resolve("out/summary.json");
        assertEquals(report, result.report());
        String html = Files.readString(report);
        assertTrue(html.startsWith("<!DOCTYPE html>"));
        assertTrue(count(html, "<svg ") >= 6, "charts: delay, completed, admitted on/off, budgets, level");
        assertFalse(html.contains("<script"), "no scripts");
        assertFalse(Pattern.compile("(src|href)=\"(https?:)?//").matcher(html).find(), "nothing fetched from elsewhere");
        assertTrue(html.contains("Degradation: the pi law on occupancy"));
        assertTrue(html.contains("With degradation against without (same policy, same arrivals)"));
        for (String part : new String[] {"Phases with the back end slowed down",
                "premium: queue delay against its target", "basic: queue delay against its target", "Budgets and max-executing", "settings set by",
                "control mode", "slow 0.5x, back end x2"}) {
            assertTrue(html.contains(part), part);
        }
        assertTrue(printed.contains("back end x2 (its waits multiplied by 2) from now"), printed);
        assertTrue(printed.contains("of the capacity with the back end x2"), printed);

        String json = Files.readString(summary);
        assertBalanced(json);
        for (String key : new String[] {"\"capacity\"", "\"profile\"", "\"runs\"", "\"headline\"", "\"phases\"",
                "\"qos\": \"on\"", "\"qos\": \"off\"", "\"label\": \"tuned\"", "\"tuned\": ", "\"name\": \"crowd\"", "\"premium\"", "\"basic\"",
                "\"completedPerSecond\"", "\"completedPercent\"", "\"p95DelayMillis\"", "\"delayTargetMillis\"",
                "\"refused\"", "\"degradedResponses\": ", "\"no degradation\": ",
                "\"completedPerSecondWithOverWithout\"", "\"law\": \"pi\"", "\"level\": ", "\"unfinishedAtEnd\"", "\"timeline\"", "\"budget\": ",
                "\"backendFactor\": 2", "\"capacityAtBackend\"", "\"queueDelayP95Millis\"", "\"p95QueueDelayMillis\"",
                "\"controlMode\": \"off\"", "\"settingsSource\": \"controller\"", "\"workload\""}) {
            assertTrue(json.contains(key), key + " is missing from the summary");
        }
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    /** Braces and brackets outside strings balance, and the document is one object. */
    private static void assertBalanced(String json) {
        int depth = 0;
        boolean inString = false;
        for (int i = 0; i < json.length(); i++) {
            char c = json.charAt(i);
            if (inString) {
                if (c == '\\') {
                    i++;
                } else if (c == '"') {
                    inString = false;
                }
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                depth++;
            } else if (c == '}' || c == ']') {
                depth--;
                assertTrue(depth >= 0, "unbalanced at " + i);
            }
        }
        assertEquals(0, depth);
        assertTrue(json.trim().startsWith("{") && json.trim().endsWith("}"));
    }
}

package dev.servletqos.sample.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.run.ShopConfig;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 8's cases on real Tomcat over real HTTP: the sample shop with the bundled minimal policy (classes, rule,
 * cookies and delay targets; no max-executing, no triggers, no budgets, no rates), its back end of 16
 * connections, the demo's load generator offering sessions of a login and several pages (premium one fifth).
 * One run, phase after phase: at capacity, at four and at ten times capacity, then four times capacity while
 * the back end runs at half its speed (half the capacity), then at normal speed again. The engine has to find
 * the shop's capacity and admit each class at the rate that keeps its delay, with nothing tuned by hand.
 *
 * <p>Case 3 is judged as {@code SelfTuningTest} judges it in the simulator: case 2's figures from 10 s (10
 * periods) after each change, and 0.9 of the capacity over the whole stretch at the changed capacity. The first
 * 10 s alone are a transient of the sessions admitted before the change: three runs gave 1.00, 0.90 and 0.81 of
 * the halved capacity there (the limit cut twice and restored within 4 periods each time).
 *
 * <p>The delay measured here is the client's: a request's response time less the service time the shop
 * reports for it (the time it waited, in the engine or for a back-end connection). Takes about three minutes.
 */
class SelfTuningOnTomcatTest {

    /** Premium's delay target in the bundled policy, and the bound of case 2: three times it. */
    private static final double PREMIUM_TARGET_MILLIS = 250;

    /** A premium line of the demo's console: its phase, sessions refused in the second and the limit. */
    private static final Pattern PREMIUM_SECOND = Pattern.compile(
            "QoS on +(\\S+) +\\d+s premium .*? refused +(\\d+) sess .*? budget +(\\d+) ");

    @TempDir
    Path dir;

    @Test
    void theMinimalPolicyFindsTheShopsCapacityAndKeepsPremiumWithinItsTarget() throws Exception {
        // the capacity and admission laws of the minimal policy (issue 8), without its degradation law: content
        // degradation lets the shop complete more sessions than the full-content capacity these cases hold it to,
        // and with it on a halved back end is an open problem (docs/sample.md, "Limits of this version")
        Path policy = SamplePolicy.writeWithoutDegradation(null, dir);
        ShopConfig config = new ShopConfig(true, 0, SamplePolicy.load(policy), policy, Costs.scaled(1));
        assertEquals(ControlPolicy.Capacity.AUTO, config.policy().control().capacity(), "the bundled policy is minimal");
        Profile profile = Profile.parse("one:30:1,four:30:4,ten:30:10,halving:10:4:x2,halved:25:4:x2,"
                + "recovering:10:4,recovered:25:4");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Demo.Result result;
        try (PrintStream log = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            result = Demo.run(new Demo.Settings("tomcat", config, profile, 0, true, false, dir.resolve("out"),
                    Demo.DEFAULT_WARMUP, null), log);
        }
        String printed = out.toString(StandardCharsets.UTF_8);
        List<RunResult.PhaseStats> phases = result.runs().get(0).phases();
        StringBuilder figures = new StringBuilder();
        for (RunResult.PhaseStats p : phases) {
            figures.append(describe(p)).append('\n');
        }
        System.out.print("self-tuning on Tomcat:\n" + figures);
        // the phases' figures in each failure's message (CI shows its first lines), the per-second lines in a file
        Path log = Path.of("target", "self-tuning-on-tomcat.log");
        Files.createDirectories(log.getParent());
        Files.writeString(log, figures + "\n" + printed, StandardCharsets.UTF_8);
        // and what moved each second, so a failure on CI says whether the limit was cut or premium refused
        String context = figures + perSecond(printed) + "(each second: " + log.toAbsolutePath() + ")";

        // case 1: at capacity both classes complete their sessions
        RunResult.PhaseStats one = phases.get(0);
        assertTrue(one.types().get(0).completedPercent() >= 98, "1x premium\n" + context);
        assertTrue(one.types().get(1).completedPercent() >= 98, "1x basic\n" + context);
        // case 2: at 4x and 10x; case 3: the same against the halved capacity from 10 s (10 periods) after the
        // change, and against the restored one; 0.9 of it over the whole stretch at the changed capacity, the 10 s
        // in which the limit moves included (as SelfTuningTest judges the simulator's runs)
        for (int i : new int[] {1, 2, 4, 6}) {
            holds(phases.get(i), 0.95, context);
        }
        for (int i : new int[] {3, 5}) {
            RunResult.PhaseStats moving = phases.get(i);
            RunResult.PhaseStats after = phases.get(i + 1);
            double seconds = moving.phase().seconds() + after.phase().seconds();
            double perSecond = (moving.total().completedPerSecond() * moving.phase().seconds()
                    + after.total().completedPerSecond() * after.phase().seconds()) / seconds;
            System.out.printf(Locale.ROOT, "%s and %s: %.1f sessions/s = %.2f of capacity %.1f%n",
                    moving.phase().name(), after.phase().name(), perSecond, perSecond / moving.capacity(),
                    moving.capacity());
            assertEquals(moving.capacity(), after.capacity(), 1e-9, "one back-end speed over both phases");
            assertTrue(perSecond >= 0.9 * moving.capacity(), moving.phase().name() + " and " + after.phase().name()
                    + ": sessions per second while the limit moves\n" + context);
        }
        // case 4: no request of an admitted session refused, in any phase
        for (RunResult.PhaseStats p : phases) {
            assertEquals(0, p.total().rejectedMidway(), p.phase().name() + ": refused midway\n" + context);
        }
    }

    /** Case 2's figures over one phase against the capacity at its back end's speed. */
    private static void holds(RunResult.PhaseStats p, double share, String context) {
        RunResult.TypeStats premium = p.types().get(0);
        String name = p.phase().name();
        assertTrue(premium.completedOfAdmittedPercent() >= 99.5, name + ": premium sessions admitted completed\n"
                + context);
        assertTrue(premium.p95DelayMillis() <= 3 * PREMIUM_TARGET_MILLIS, name + ": premium p95 delay\n" + context);
        assertTrue(p.total().completedPerSecond() >= share * p.capacity(), name + ": sessions per second\n" + context);
    }

    /** Per phase, the limit (max-executing) and premium's refused sessions in each second, from the demo's lines. */
    static String perSecond(String printed) {
        Map<String, StringBuilder> limits = new LinkedHashMap<>();
        Map<String, StringBuilder> refused = new LinkedHashMap<>();
        Matcher m = PREMIUM_SECOND.matcher(printed);
        while (m.find()) {
            limits.computeIfAbsent(m.group(1), k -> new StringBuilder()).append(' ').append(m.group(3));
            refused.computeIfAbsent(m.group(1), k -> new StringBuilder()).append(' ').append(m.group(2));
        }
        StringBuilder b = new StringBuilder();
        limits.forEach((phase, l) -> b.append(String.format(Locale.ROOT, "%-10s limit%s; premium sessions refused%s%n",
                phase, l, refused.get(phase))));
        return b.toString();
    }

    private static String describe(RunResult.PhaseStats p) {
        RunResult.TypeStats premium = p.types().get(0);
        RunResult.TypeStats basic = p.types().get(1);
        return String.format(Locale.ROOT, "%-10s %-18s premium %.1f %% of offered, %.2f %% of admitted, p95 delay"
                        + " %.0f ms; basic %.1f %%; %.1f sessions/s = %.2f of capacity %.1f; refused midway %d, timed out"
                        + " %d, errors %d", p.phase().name(), p.phase().describe(), premium.completedPercent(),
                premium.completedOfAdmittedPercent(), premium.p95DelayMillis(), basic.completedPercent(),
                p.total().completedPerSecond(), p.total().completedPerSecond() / p.capacity(), p.capacity(),
                p.total().rejectedMidway(), p.total().timedOut(), p.total().errors());
    }
}

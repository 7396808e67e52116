package dev.servletqos.sample.demo;

import dev.servletqos.ClassStats;
import dev.servletqos.Settings;
import dev.servletqos.control.ClassSample;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.demo.Recorder.Counter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;
import java.util.function.IntToDoubleFunction;

/**
 * Writes {@code report.html}: one self-contained page (inline SVG, no script, nothing fetched) with the
 * headline and the per-phase tables of every run; the charts of delay and completed sessions over time show the
 * first QoS-on run (solid) against QoS off (dashed), and leave a compared policy's run to the tables.
 */
final class Report {

    private static final String PREMIUM = "#1f6feb";
    private static final String BASIC = "#d4762c";
    private static final String TOTAL = "#2f8f46";
    private static final String REFUSED = "#b3261e";
    private static final String TARGET = "#b3261e";
    /** Line colours of the engine's classes, highest priority first (premium, basic, then others). */
    private static final List<String> CLASS_COLORS = List.of(PREMIUM, BASIC, "#2f8f46", "#7a3cc8", "#8c564b");
    private static final int BAND_HEIGHT = 18;

    private Report() {
    }

    /**
     * A line of a chart: values per second (NaN = no value), solid or with an SVG dash pattern, {@code width}
     * pixels wide (lines that may lie on top of each other, like budgets, get decreasing widths).
     */
    record Series(String name, String color, double[] values, String dash, double width) {

        Series(String name, String color, double[] values, String dash) {
            this(name, color, values, dash, 1.8);
        }

        /** Dashed (QoS off) or solid. */
        Series(String name, String color, double[] values, boolean dashed) {
            this(name, color, values, dashed ? "6 4" : null);
        }
    }

    /** A strip under a chart: one value per second (null = none), drawn as labelled segments. */
    record Band(String name, String[] values) {
    }

    /** A horizontal reference line (a target, the capacity). */
    record Guide(String name, String color, double value) {
    }

    static String html(Demo.Settings settings, double capacity, List<RunResult> runs, double seconds) {
        RunResult on = runs.stream().filter(RunResult::qos).findFirst().orElse(null);
        RunResult off = runs.stream().filter(r -> !r.qos()).findFirst().orElse(null);
        QosPolicy policy = settings.config().policy();
        Profile profile = settings.profile();
        int n = 0;
        for (RunResult r : runs) {
            n = Math.max(n, r.seconds());
        }
        StringBuilder b = new StringBuilder(64 * 1024);
        b.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>servlet-qos demo report</title>\n<style>\n"
                + "body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1100px;color:#1b1b1b}\n"
                + "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 5px;"
                + "text-align:right;font-size:12px}td.l{text-align:left}th{background:#f3f3f3}"
                + "td:first-child,th:first-child{text-align:left}\n"
                + ".note{background:#fff8e1;border-left:4px solid #e0a800;padding:6px 10px;font-size:14px}\n"
                + "svg{display:block;margin:4px 0 18px}h2{margin-top:28px}small{color:#555}\n"
                + "</style></head><body>\n");
        b.append("<h1>servlet-qos demo: the sample shop under a flash crowd</h1>\n");
        b.append("<p>").append(esc(settings.container())).append(", ")
                .append(Runtime.getRuntime().availableProcessors()).append(" cores, Java ")
                .append(esc(System.getProperty("java.version"))).append(", ")
                .append(Instant.now().truncatedTo(ChronoUnit.SECONDS)).append(", ")
                .append(String.format(Locale.ROOT, "%.0f s", seconds)).append(".<br>Policy: ")
                .append(esc(policy.scheduling().key())).append(", max-executing ").append(policy.maxExecuting())
                .append(", admission triggers j = ").append(policy.admission().totalQueuedTrigger()).append(", k = ")
                .append(policy.admission().higherQueuedTrigger()).append(". ");
        if (settings.compared() != null) {
            QosPolicy c = settings.compared().config().policy();
            b.append("Compared with policy ").append(esc(settings.compared().name())).append(": ")
                    .append(esc(c.scheduling().key())).append(", max-executing ").append(c.maxExecuting())
                    .append(", admission triggers j = ").append(c.admission().totalQueuedTrigger()).append(", k = ")
                    .append(c.admission().higherQueuedTrigger()).append(", control mode ")
                    .append(esc(c.control().mode().key()))
                    .append(". ");
        }
        b.append("Capacity ")
                .append(String.format(Locale.ROOT, "%.1f", capacity))
                .append(" sessions/s. Profile: ");
        for (Profile.Phase p : profile.phases()) {
            b.append(esc(p.name())).append(String.format(Locale.ROOT, " %.0f s at %s (%.0f sessions/s); ",
                    p.seconds(), esc(p.describe()), p.multiple() * capacity));
        }
        b.append("the multiples refer to the capacity with the back end at normal speed; \"back end x2\" doubles its"
                + " waits. Sessions: ").append(esc(Demo.steps())).append("; ").append(esc(Demo.classes()))
                .append(" (the shared workload description). A session completes only if every request is answered"
                        + " 2xx within ").append(LoadGenerator.TIMEOUT.toSeconds()).append(" s.</p>\n");
        b.append("<p class=\"note\">Degradation: ").append(esc(Demo.degradation(policy))).append(". The shop serves"
                + " its degraded content tree (a product page at an eighth of the back-end time) to a request whose"
                + " level the engine set to 1 (the request attribute <code>dev.servletqos.level</code>).");
        if (settings.noDegradation() != null) {
            b.append(" The run <i>").append(esc(settings.noDegradation().name())).append("</i> is the same policy with"
                    + " <code>control.degradation = none</code>, under the same arrivals.");
        }
        b.append(" ").append(esc(controlSummary(on))).append("</p>\n");

        b.append("<h2>Headline: completed sessions per second, QoS ").append(esc(labels(runs)))
                .append("</h2>\n");
        headline(b, profile, capacity, runs);
        degradationRatios(b, profile, runs);
        backendPhases(b, profile, capacity, runs);

        b.append("<h2>Delay per class against its target</h2>\n<p><small>p95 per second of (response time minus the"
                + " time the page spent in the application): time spent waiting, in the QoS queue or in the"
                + " container's queue. Every answered request counts: a 503 after waiting (its class's maximum"
                + " wait, or a full queue) with its whole response time, and requests without an answer within 5 s"
                + " as 5000 ms; only sessions refused at the door are not delays. Log scale. Solid: QoS"
                + " on; dashed: QoS off.</small></p>\n");
        List<Series> delay = new ArrayList<>();
        List<Guide> targets = new ArrayList<>();
        for (int t = 0; t < Recorder.TYPES.size(); t++) {
            String type = Recorder.TYPES.get(t);
            String color = t == 0 ? PREMIUM : BASIC;
            int tt = t;
            if (on != null) {
                delay.add(new Series(type + " on", color, values(n, on, s -> p95(on, tt, s)), false));
            }
            if (off != null) {
                delay.add(new Series(type + " off", color, values(n, off, s -> p95(off, tt, s)), true));
            }
            long target = Demo.delayTargetMillis(policy, type);
            if (target > 0) {
                targets.add(new Guide(type + " target", color, target));
            }
        }
        b.append(chart("p95 delay (ms)", n, delay, targets, true, profile));

        b.append("<h2>Completed sessions per second</h2>\n<p><small>Sessions that completed in each second (every"
                + " request 2xx within 5 s). Solid: QoS on; dashed: QoS off")
                .append(settings.noDegradation() == null ? "" : "; dotted black: all sessions of the run "
                        + esc(Demo.NO_DEGRADATION) + " (QoS on, control.degradation = none)").append(".</small></p>\n");
        List<Series> done = new ArrayList<>();
        for (int t = 0; t < Recorder.TYPES.size(); t++) {
            int tt = t;
            String color = t == 0 ? PREMIUM : BASIC;
            if (on != null) {
                done.add(new Series(Recorder.TYPES.get(t) + " on", color,
                        values(n, on, s -> on.recorder().get(Counter.COMPLETED, tt, s)), false));
            }
            if (off != null) {
                done.add(new Series(Recorder.TYPES.get(t) + " off", color,
                        values(n, off, s -> off.recorder().get(Counter.COMPLETED, tt, s)), true));
            }
        }
        if (on != null) {
            done.add(new Series("all on", TOTAL, values(n, on, s -> on.recorder().get(Counter.COMPLETED, 0, s)
                    + on.recorder().get(Counter.COMPLETED, 1, s)), false));
        }
        if (off != null) {
            done.add(new Series("all off", TOTAL, values(n, off, s -> off.recorder().get(Counter.COMPLETED, 0, s)
                    + off.recorder().get(Counter.COMPLETED, 1, s)), true));
        }
        RunResult plain = runs.stream().filter(r -> r.label().equals(Demo.NO_DEGRADATION)).findFirst().orElse(null);
        if (plain != null) {
            done.add(new Series("all, " + Demo.NO_DEGRADATION, "#222", values(n, plain,
                    s -> plain.recorder().get(Counter.COMPLETED, 0, s) + plain.recorder().get(Counter.COMPLETED, 1, s)),
                    "2 3"));
        }
        b.append(chart("sessions/s", n, done, List.of(new Guide("capacity", "#666", capacity)), false, profile));

        for (RunResult r : runs) {
            b.append("<h2>Admitted and refused sessions per second, QoS ").append(esc(r.label()))
                    .append("</h2>\n<p><small>By the answer to the session's first request: 2xx admitted, 503"
                            + " refused (cheaply, at the door).</small></p>\n");
            List<Series> adm = new ArrayList<>();
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                int tt = t;
                adm.add(new Series(Recorder.TYPES.get(t) + " admitted", t == 0 ? PREMIUM : BASIC,
                        values(n, r, s -> r.recorder().get(Counter.ADMITTED, tt, s)), false));
                adm.add(new Series(Recorder.TYPES.get(t) + " refused", t == 0 ? "#7a3cc8" : REFUSED,
                        values(n, r, s -> r.recorder().get(Counter.REFUSED, tt, s)), true));
            }
            b.append(chart("sessions/s", n, adm, List.of(), false, profile));
        }

        if (on != null) {
            controlLoop(b, on, n, profile);
            b.append("<h2>Executing and queued requests (QoS on)</h2>\n<p><small>Sampled from the engine at the end of"
                    + " each second.</small></p>\n");
            List<Series> bud = new ArrayList<>();
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                int tt = t;
                String color = t == 0 ? PREMIUM : BASIC;
                bud.add(new Series(Recorder.TYPES.get(t) + " executing", color, values(n, on, s -> {
                    ClassStats c = stats(on, s, tt);
                    return c == null ? Double.NaN : c.executing();
                }), false));
                bud.add(new Series(Recorder.TYPES.get(t) + " queued", t == 0 ? "#7a3cc8" : REFUSED, values(n, on,
                        s -> {
                            ClassStats c = stats(on, s, tt);
                            return c == null ? Double.NaN : c.queued();
                        }), false));
            }
            b.append(chart("requests", n, bud, List.of(), false, profile));
        }

        b.append("<h2>Degradation: content level and degraded sessions over time</h2>\n<p><small>The content level m"
                + " each class was at in the engine at the end of each second (2 = full, 1 = degraded, between 1 and"
                + " 2 a fraction m - 1 of the class's sessions at full content, below 1 a share of its new sessions"
                + " refused), set by the degradation law (control.degradation). Solid: QoS on; dashed: the other"
                + " QoS-on runs (with control.degradation = none the level stays at 2). QoS off has no levels: it"
                + " serves everything full.</small></p>\n");
        List<Series> lvl = new ArrayList<>();
        List<Series> frac = new ArrayList<>();
        for (RunResult r : runs) {
            if (!r.qos()) {
                continue;
            }
            boolean first = r.label().equals("on");
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                int tt = t;
                String color = t == 0 ? PREMIUM : BASIC;
                lvl.add(new Series(Recorder.TYPES.get(t) + ", " + r.label(), color, values(n, r, s -> {
                    ClassStats c = stats(r, s, tt);
                    return c == null ? Double.NaN : c.level();
                }), first ? null : "6 4", first ? 2.2 : 1.4));
                frac.add(new Series(Recorder.TYPES.get(t) + ", " + r.label(), color, values(n, r, s -> {
                    long ok = r.recorder().get(Counter.REQ_OK, tt, s);
                    return ok == 0 ? Double.NaN : 100.0 * r.recorder().get(Counter.REQ_DEGRADED, tt, s) / ok;
                }), first ? null : "6 4", first ? 2.2 : 1.4));
            }
        }
        b.append(chart("level m", n, lvl, List.of(), false, profile, 2.5));
        b.append("<p><small>The share of each class's 2xx responses served from the degraded tree, per second, from"
                + " the X-Content-Level header. Only product pages and images have a degraded version (9 of a"
                + " session's 12 requests; login, browse and checkout do not): with every session at level 1,"
                + " about two thirds of a class's responses are degraded. Solid: QoS on; dashed: the other QoS-on"
                + " runs.</small></p>\n");
        b.append(chart("% degraded", n, frac, List.of(), false, profile, 105));

        for (RunResult r : runs) {
            b.append("<h2>By phase, QoS ").append(esc(r.label())).append("</h2>\n<p><small>")
                    .append(esc(r.server())).append(". <i>completed/s</i>: sessions that completed within the phase's"
                            + " window. The other session columns count the sessions that arrived in the phase,"
                            + " wherever they ended; delays and degraded responses belong to the phase in which the"
                            + " response came.")
                    .append("</small></p>\n");
            phaseTable(b, r);
        }
        b.append("<p><small>Written by <code>java -jar samples/target/qos-sample.jar --demo</code>; the numbers are"
                + " also in summary.json next to this file. docs/sample.md explains how to read them.</small></p>\n");
        b.append("</body></html>\n");
        return b.toString();
    }

    /**
     * Completed sessions per second with degradation (run "on") over without (run {@link Demo#NO_DEGRADATION}),
     * per phase, with premium's completed share in both; nothing without the two runs.
     */
    private static void degradationRatios(StringBuilder b, Profile profile, List<RunResult> runs) {
        RunResult with = runs.stream().filter(r -> r.label().equals("on")).findFirst().orElse(null);
        RunResult without = runs.stream().filter(r -> r.label().equals(Demo.NO_DEGRADATION)).findFirst().orElse(null);
        if (with == null || without == null) {
            return;
        }
        b.append("<h3>With degradation against without (same policy, same arrivals)</h3>\n<table><tr><th>phase</th>"
                + "<th>all sessions/s with</th><th>without</th><th>with / without</th><th>premium completed with</th>"
                + "<th>without</th><th>degraded responses with</th></tr>\n");
        for (int i = 0; i < profile.phases().size(); i++) {
            RunResult.PhaseStats w = with.phases().get(i);
            RunResult.PhaseStats wo = without.phases().get(i);
            b.append("<tr><td>").append(esc(profile.phases().get(i).name())).append("</td>")
                    .append(td(w.total().completedPerSecond(), 1)).append(td(wo.total().completedPerSecond(), 1))
                    .append("<td><b>").append(String.format(Locale.ROOT, "%.2f", Demo.degradationRatio(runs, i)))
                    .append("</b></td><td>").append(pct(w.types().get(0).completedPercent())).append("</td><td>")
                    .append(pct(wo.types().get(0).completedPercent())).append("</td>")
                    .append(td(w.total().degraded())).append("</tr>\n");
        }
        b.append("</table>\n");
    }

    /** The engine's stats of user type {@code type}'s class at the end of second {@code s}, or null. */
    private static ClassStats stats(RunResult r, int s, int type) {
        Recorder.ServerSample x = r.recorder().sample(s);
        return x == null ? null : x.stats(type);
    }

    /** The engine's samples of a run, per second (null where there is none), and the first one, for names. */
    private static Recorder.ServerSample firstEngineSample(RunResult r) {
        for (int s = 0; s < r.seconds(); s++) {
            Recorder.ServerSample x = r.recorder().sample(s);
            if (x != null && x.engine() != null) {
                return x;
            }
        }
        return null;
    }

    /** One sentence on what set the budgets in the QoS-on run, from what was sampled. */
    static String controlSummary(RunResult on) {
        if (on == null) {
            return "";
        }
        Set<String> modes = new LinkedHashSet<>();
        int controller = 0;
        int firstController = -1;
        Set<String> sources = new LinkedHashSet<>();
        for (int s = 0; s < on.seconds(); s++) {
            Recorder.ServerSample x = on.recorder().sample(s);
            if (x == null || x.engine() == null) {
                continue;
            }
            Settings settings = x.engine().settings();
            modes.add(settings.control().mode().key());
            sources.add(Demo.source(settings.source()));
            if (settings.source() == Settings.Source.CONTROLLER) {
                controller++;
                firstController = firstController < 0 ? s : firstController;
            }
        }
        if (modes.isEmpty()) {
            return "";
        }
        String m = "The control loop's mode was " + String.join(", then ", modes) + "; the settings were set by "
                + String.join(", then ", sources) + ".";
        if (controller == 0) {
            return m + " The controller never changed them: the budgets stayed where the policy"
                    + (sources.contains("operator") ? " or an operator" : "") + " put them.";
        }
        return m + " The controller set them from " + (firstController + 1) + " s on (" + controller
                + " of the sampled seconds).";
    }

    /**
     * Per-phase figures of the phases where the back end was slower (or faster): the capacity at that speed,
     * what completed against it, the premium share that completed, and (QoS on) each class's queue delay and
     * budgets over the phase. Nothing when no phase changed the back end.
     */
    private static void backendPhases(StringBuilder b, Profile profile, double capacity, List<RunResult> runs) {
        if (profile.phases().stream().noneMatch(Profile.Phase::backendChanged)) {
            return;
        }
        b.append("<h2>Phases with the back end slowed down</h2>\n<p><small>The capacity at the phase's back-end speed"
                + " is the nominal one scaled by a session's worker time at normal speed over its worker time at that"
                + " speed (only the back-end waits are multiplied). Queue delay: the time granted requests waited"
                + " for a permit in the engine, over the phase, from the engine's wait histogram.</small></p>\n");
        b.append("<table><tr><th>phase</th><th>load</th><th>back end</th><th>capacity at that speed, sessions/s</th>"
                + "<th>QoS</th><th>all sessions/s</th><th>% of capacity at that speed</th>"
                + "<th>% of nominal capacity</th>"
                + "<th>premium completed</th><th>basic completed</th></tr>\n");
        StringBuilder perClass = new StringBuilder();
        for (int i = 0; i < profile.phases().size(); i++) {
            Profile.Phase p = profile.phases().get(i);
            if (!p.backendChanged()) {
                continue;
            }
            for (RunResult r : runs) {
                RunResult.PhaseStats ps = r.phases().get(i);
                b.append("<tr><td>").append(esc(p.name())).append("</td>")
                        .append(String.format(Locale.ROOT, "<td>%.1fx</td><td>x%s</td>", p.multiple(),
                                Profile.number(p.backendFactor())))
                        .append(td(ps.capacity(), 1)).append("<td>").append(esc(r.label())).append("</td>")
                        .append(td(ps.total().completedPerSecond(), 1))
                        .append(td(100 * ps.total().completedPerSecond() / ps.capacity(), 0))
                        .append(td(100 * ps.total().completedPerSecond() / capacity, 0))
                        .append("<td>").append(pct(ps.types().get(0).completedPercent())).append("</td>")
                        .append("<td>").append(pct(ps.types().get(1).completedPercent())).append("</td></tr>\n");
                for (int t = 0; t < Recorder.TYPES.size(); t++) {
                    String name = Recorder.TYPES.get(t);
                    RunResult.EngineStats e = ps.engine().stream().filter(x -> x.name().equals(name)).findFirst()
                            .orElse(null);
                    perClass.append("<tr><td>").append(esc(p.name())).append("</td><td>").append(esc(r.label()))
                            .append("</td><td>").append(esc(name)).append("</td>")
                            .append("<td>").append(ms(ps.types().get(t).p95DelayMillis())).append("</td>")
                            .append(e == null ? "<td>-</td><td>-</td><td>-</td><td>-</td><td class=\"l\">-</td>"
                                    : "<td>" + ms(e.meanQueueDelayMillis()) + " / " + ms(e.p95QueueDelayMillis())
                                    + "</td>" + td(e.delayTargetMillis()) + "<td>"
                                    + range(e.budgetMin(), e.budgetMax()) + "</td><td class=\"l\">"
                                    + esc(ps.settingsSources()) + "</td><td class=\"l\">" + esc(ps.controlModes())
                                    + "</td>")
                            .append("</tr>\n");
                }
            }
        }
        b.append("</table>\n<table><tr><th>phase</th><th>QoS</th><th>class</th><th>p95 delay ms (client)</th>"
                + "<th>queue delay mean / p95 ms (engine)</th><th>target ms</th><th>budget</th><th>settings set by</th>"
                + "<th>control mode</th></tr>\n").append(perClass).append("</table>\n");
    }

    /** "16", or "8..16" when the value moved. */
    private static String range(int min, int max) {
        return min == max ? Integer.toString(min) : min + ".." + max;
    }

    /**
     * The control loop at work (QoS on): per class its queue delay per second (mean and p95, from the engine's
     * wait histogram between two samples) against its delay target, then the budgets and max-executing over
     * time with who set the settings, the control mode and the back end's speed as strips under the chart.
     */
    private static void controlLoop(StringBuilder b, RunResult on, int n, Profile profile) {
        Recorder.ServerSample first = firstEngineSample(on);
        if (first == null) {
            return;
        }
        ControlPolicy control = first.engine().settings().control();
        b.append("<h2>The control loop (QoS on): delay against target, budgets over time</h2>\n<p><small>Sampled from"
                + " the engine in-process once a second. Queue delay: the time the requests granted in that second"
                + " waited for a permit (refused requests are not in it), the mean and the 95th percentile of the"
                + " engine's wait histogram (exact to about 19 %); the dashed line is the class's delay target in"
                + " force."
                + " The loop's period is ").append(control.period().toMillis()).append(" ms and it measures the ")
                .append(control.delayQuantile() <= 0 ? "mean" : "p" + Profile.number(control.delayQuantile() * 100))
                .append(" delay. ").append(esc(controlSummary(on))).append("</small></p>\n");
        List<ClassStats> classes = first.engine().classes();
        for (int i = 0; i < classes.size(); i++) {
            int ci = i;
            String name = classes.get(i).name();
            String color = CLASS_COLORS.get(Math.min(i, CLASS_COLORS.size() - 1));
            List<Series> lines = new ArrayList<>();
            lines.add(new Series(name + " p95", color, values(n, on, s -> period(on, s, ci, 0.95)), (String) null));
            lines.add(new Series(name + " mean", color, values(n, on, s -> period(on, s, ci, 0)), "2 2"));
            lines.add(new Series(name + " target", TARGET, values(n, on, s -> {
                Recorder.ServerSample x = on.recorder().sample(s);
                return x == null || x.engine() == null ? Double.NaN
                        : x.engine().settings().get(ci).delayTarget().toNanos() / 1e6;
            }), "8 4"));
            b.append("<h3>").append(esc(name)).append(": queue delay against its target</h3>\n");
            b.append(chart("queue delay (ms)", n, lines, List.of(), false, profile));
        }
        List<Series> budgets = new ArrayList<>();
        boolean asked = false;
        for (int i = 0; i < classes.size(); i++) {
            int ci = i;
            String color = CLASS_COLORS.get(Math.min(i, CLASS_COLORS.size() - 1));
            // equal budgets lie on top of each other: the higher class's line is drawn wider and paler below
            budgets.add(new Series(classes.get(i).name() + " budget", color, values(n, on, s -> {
                Recorder.ServerSample x = on.recorder().sample(s);
                return x == null || x.engine() == null ? Double.NaN : x.engine().settings().get(ci).budget();
            }), null, 2 + 3.5 * (classes.size() - 1 - i)));
            double[] output = values(n, on, s -> {
                Recorder.ServerSample x = on.recorder().sample(s);
                return x == null || x.control() == null || x.control().mode() == ControlPolicy.Mode.OFF ? Double.NaN
                        : x.control().classes().get(ci).output();
            });
            if (Arrays.stream(output).anyMatch(v -> !Double.isNaN(v))) {
                asked = true;
                budgets.add(new Series(classes.get(i).name() + " asked", color, output, "2 3"));
            }
        }
        budgets.add(new Series("max-executing", "#666", values(n, on, s -> {
            Recorder.ServerSample x = on.recorder().sample(s);
            return x == null || x.engine() == null ? Double.NaN : x.engine().settings().maxExecuting();
        }), "6 4"));
        String[] source = new String[n];
        String[] mode = new String[n];
        Set<Integer> levels = new LinkedHashSet<>();
        for (int s = 0; s < Math.min(n, on.seconds()); s++) {
            Recorder.ServerSample x = on.recorder().sample(s);
            if (x != null && x.engine() != null) {
                Settings settings = x.engine().settings();
                source[s] = Demo.source(settings.source());
                mode[s] = settings.control().mode().key();
                levels.add(settings.maxExecuting());
                for (int i = 0; i < settings.classes().size(); i++) {
                    levels.add(settings.get(i).budget());
                }
            }
        }
        b.append("<h3>Budgets and max-executing</h3>\n<p><small>The budgets in force at the end of each second")
                .append(asked ? "; dotted, the budget the controller asked for before clamping" : "")
                .append(". Strips: who set the settings last, and the control mode.")
                .append(levels.size() == 1 ? " Every budget and max-executing stayed at " + levels.iterator().next()
                        + " throughout: the lines lie on top of each other." : "")
                .append("</small></p>\n");
        b.append(chart("permits", n, budgets, List.of(), false, profile, Double.NaN, List.of(
                new Band("settings set by", source), new Band("control mode", mode))));
    }

    /** A class's queue delay in the second ending at {@code s}, in ms: the mean (q = 0) or quantile q. */
    private static double period(RunResult r, int s, int classIndex, double q) {
        Recorder.ServerSample x = r.recorder().sample(s);
        if (x == null || x.period() == null || classIndex >= x.period().size()) {
            return Double.NaN;
        }
        ClassSample c = x.period().get(classIndex);
        return c.active() ? c.delay(q) * 1000 : Double.NaN;
    }

    private static double p95(RunResult r, int type, int second) {
        return Recorder.percentile(r.recorder().delays(type, second), 95);
    }

    private static double[] values(int n, RunResult r, IntToDoubleFunction f) {
        double[] v = new double[n];
        for (int s = 0; s < n; s++) {
            v[s] = s < r.seconds() ? f.applyAsDouble(s) : Double.NaN;
        }
        return v;
    }

    private static void headline(StringBuilder b, Profile profile, double capacity, List<RunResult> runs) {
        b.append("<table><tr><th>phase</th><th>offered sessions/s</th>");
        for (int t = 0; t <= Recorder.TYPES.size(); t++) {
            for (RunResult r : runs) {
                b.append("<th>").append(t < Recorder.TYPES.size() ? Recorder.TYPES.get(t) : "all").append(' ')
                        .append(esc(r.label())).append("</th>");
            }
        }
        for (RunResult r : runs) {
            b.append("<th>all ").append(esc(r.label())).append(", % of capacity</th>");
        }
        b.append("</tr>\n");
        for (int i = 0; i < profile.phases().size(); i++) {
            Profile.Phase p = profile.phases().get(i);
            b.append("<tr><td>").append(esc(p.name())).append("</td>").append(td(p.multiple() * capacity, 1));
            for (int t = 0; t <= Recorder.TYPES.size(); t++) {
                for (RunResult r : runs) {
                    b.append(cell(r.phases(), i, t));
                }
            }
            for (RunResult r : runs) {
                b.append(td(100 * r.phases().get(i).total().completedPerSecond() / capacity, 0));
            }
            b.append("</tr>\n");
        }
        b.append("</table>\n<p><small>Each cell: completed sessions per second (the share of the offered sessions of"
                + " that class that completed).</small></p>\n");
    }

    /** The runs' names: "on against off", "on against tuned against off". */
    private static String labels(List<RunResult> runs) {
        List<String> l = new ArrayList<>();
        for (RunResult r : runs) {
            l.add(r.label());
        }
        return String.join(" against ", l);
    }

    private static String cell(List<RunResult.PhaseStats> phases, int i, int t) {
        RunResult.TypeStats s = phases.get(i).type(t);
        return String.format(Locale.ROOT, "<td>%.1f <small>(%s)</small></td>", s.completedPerSecond(),
                pct(s.completedPercent()));
    }

    private static void phaseTable(StringBuilder b, RunResult r) {
        b.append("<table><tr><th>phase / class</th><th>offered</th><th>admitted</th><th>refused at the door</th>"
                + "<th>completed</th><th>completed/s</th><th>% of offered</th><th>% of admitted</th>"
                + "<th>503 midway</th><th>timed out</th><th>errors</th><th>unfinished at the end</th>"
                + "<th>not started (generator limit)</th>"
                + "<th>p50 / p95 delay ms</th><th>target ms</th><th>degraded</th></tr>\n");
        for (RunResult.PhaseStats p : r.phases()) {
            for (int t = 0; t <= Recorder.TYPES.size(); t++) {
                RunResult.TypeStats s = p.type(t);
                String name = t < Recorder.TYPES.size() ? Recorder.TYPES.get(t) : "all";
                long target = t < Recorder.TYPES.size() ? Demo.delayTargetMillis(r.policy(), name) : 0;
                b.append("<tr><td>").append(esc(p.phase().name())).append(" / ").append(name).append("</td>")
                        .append(td(s.offered())).append(td(s.admitted())).append(td(s.refused()))
                        .append(td(s.completed())).append(td(s.completedPerSecond(), 1))
                        .append("<td>").append(pct(s.completedPercent())).append("</td>")
                        .append("<td>").append(pct(s.completedOfAdmittedPercent())).append("</td>")
                        .append(td(s.rejectedMidway())).append(td(s.timedOut())).append(td(s.errors()))
                        .append(td(s.unfinished())).append(td(s.capped()))
                        .append(String.format(Locale.ROOT, "<td>%s / %s</td>", ms(s.p50DelayMillis()),
                                ms(s.p95DelayMillis())))
                        .append(t < Recorder.TYPES.size() ? td(target) : "<td></td>")
                        .append(td(s.degraded())).append("</tr>\n");
            }
            StringBuilder more = new StringBuilder();
            if (p.phase().backendChanged()) {
                more.append(String.format(Locale.ROOT, "; the back end x%s: capacity at that speed %.1f sessions/s",
                        Profile.number(p.phase().backendFactor()), p.capacity()));
            }
            for (RunResult.EngineStats e : p.engine()) {
                more.append(more.indexOf("queue delay") < 0 ? "<br>engine: " : "; ").append(esc(e.describe()));
            }
            if (!p.engine().isEmpty()) {
                more.append("; ").append(esc(p.describeControl()));
            }
            b.append(String.format(Locale.ROOT, "<tr><td colspan=\"16\"><small>%s: the application served %.0f"
                            + " requests/s, of which %.0f/s belonged to sessions that completed (useful work)%s</small>"
                            + "</td></tr>\n", esc(p.phase().name()), p.pagesServedPerSecond(),
                    p.usefulRequestsPerSecond(), more));
        }
        b.append("</table>\n");
    }

    private static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile) {
        return chart(yLabel, n, series, guides, logY, profile, Double.NaN, List.of());
    }

    private static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile, double fixedMax) {
        return chart(yLabel, n, series, guides, logY, profile, fixedMax, List.of());
    }

    /**
     * A line chart over seconds, as inline SVG; phases are shaded (an overload in red, a changed back end in
     * amber), with optional strips under the time axis.
     */
    private static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile, double fixedMax, List<Band> bands) {
        int w = 960;
        int h = 300 + BAND_HEIGHT * bands.size() + (bands.isEmpty() ? 0 : 6);
        int left = 56;
        int right = 170;
        int top = 22;
        int bottom = 36;
        int pw = w - left - right;
        int ph = 300 - top - bottom;
        double max = 0;
        double min = Double.MAX_VALUE;
        for (Series s : series) {
            for (double v : s.values()) {
                if (!Double.isNaN(v)) {
                    max = Math.max(max, v);
                    if (v > 0) {
                        min = Math.min(min, v);
                    }
                }
            }
        }
        for (Guide g : guides) {
            max = Math.max(max, g.value());
            min = Math.min(min, g.value());
        }
        double lo;
        double hi;
        if (logY) {
            lo = Math.pow(10, Math.floor(Math.log10(Math.max(1, min == Double.MAX_VALUE ? 1 : min))));
            hi = Math.pow(10, Math.ceil(Math.log10(Math.max(lo * 10, max))));
        } else {
            lo = 0;
            hi = !Double.isNaN(fixedMax) ? fixedMax : nice(max <= 0 ? 1 : max * 1.08);
        }
        double xs = (double) pw / Math.max(1, n);
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">%n", w, h, w, h));
        double start = 0;
        for (Profile.Phase p : profile.phases()) {
            double x0 = left + start * xs;
            double x1 = left + Math.min(n, start + p.seconds()) * xs;
            String fill = p.backendChanged() ? "#fff1c9" : p.multiple() > 1 ? "#fde8e6" : "#f4f6f8";
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%s %s</text>%n", x0, top, Math.max(0, x1 - x0), ph,
                    fill, x0 + 4, top + 12, esc(p.name()), esc(p.describe())));
            start += p.seconds();
        }
        // y grid
        List<Double> ticks = new ArrayList<>();
        if (logY) {
            for (double v = lo; v <= hi * 1.0001; v *= 10) {
                ticks.add(v);
            }
        } else {
            double step = nice(hi / 5);
            for (double v = 0; v <= hi * 1.0001; v += step) {
                ticks.add(v);
            }
        }
        for (double v : ticks) {
            double y = y(v, lo, hi, logY, top, ph);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", left, left + pw, y, y, left - 4,
                    y + 4, label(v)));
        }
        for (int s = 0; s <= n; s += 10) {
            double x = left + s * xs;
            b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%ds</text>%n", x,
                    top + ph + 14, s));
        }
        b.append(String.format(Locale.ROOT, "<text x=\"12\" y=\"%d\" transform=\"rotate(-90 12 %d)\""
                + " text-anchor=\"middle\">%s</text>%n", top + ph / 2, top + ph / 2, esc(yLabel)));
        b.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\""
                + " stroke=\"#999\"/>%n", left, top, pw, ph));
        int legend = 0;
        for (Guide g : guides) {
            double y = y(g.value(), lo, hi, logY, top, ph);
            b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
                    + " stroke-dasharray=\"2 3\" stroke-width=\"1.5\"/>%n", left, left + pw, y, y, g.color()));
            legend(b, w - right + 10, top + 8 + 16 * legend++, g.color(), "2 3", g.name());
        }
        for (Series s : series) {
            StringBuilder path = new StringBuilder();
            boolean pen = false;
            double[] v = s.values();
            for (int i = 0; i < v.length; i++) {
                if (Double.isNaN(v[i]) || (logY && v[i] <= 0)) {
                    pen = false;
                    continue;
                }
                double x = left + (i + 0.5) * xs;
                double y = y(logY ? Math.max(lo, v[i]) : v[i], lo, hi, logY, top, ph);
                path.append(pen ? " L" : " M").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
                pen = true;
            }
            if (path.length() > 0) {
                b.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\""
                        + " stroke-opacity=\"%s\"%s/>%n", path.toString().trim(), s.color(), s.width(),
                        s.width() > 2.5 ? "0.45" : "1",
                        s.dash() != null ? " stroke-dasharray=\"" + s.dash() + "\"" : ""));
            }
            legend(b, w - right + 10, top + 8 + 16 * legend++, s.color(), s.dash(), s.name());
        }
        for (int k = 0; k < bands.size(); k++) {
            band(b, bands.get(k), left, top + ph + 24 + k * BAND_HEIGHT, xs, w - right + 10);
        }
        b.append("</svg>\n");
        return b.toString();
    }

    /** One strip: a segment per run of equal values, coloured by value, labelled where it is wide enough. */
    private static void band(StringBuilder b, Band band, int left, int y, double xs, int labelX) {
        String[] v = band.values();
        int i = 0;
        while (i < v.length) {
            int j = i + 1;
            while (j < v.length && Objects.equals(v[j], v[i])) {
                j++;
            }
            if (v[i] != null) {
                double x0 = left + i * xs;
                double width = (j - i) * xs;
                b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\""
                        + " fill=\"%s\" stroke=\"#fff\"/>%n", x0, y, width, BAND_HEIGHT - 4, bandColor(v[i])));
                if (width >= 7 * v[i].length() + 6) {
                    b.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" fill=\"#222\">%s</text>%n", x0 + 4,
                            y + BAND_HEIGHT - 8, esc(v[i])));
                }
            }
            i = j;
        }
        b.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\">%s</text>%n", labelX, y + BAND_HEIGHT - 8,
                esc(band.name())));
    }

    private static String bandColor(String value) {
        return switch (value) {
            case "policy" -> "#dfe3e8";
            case "operator" -> "#e4d2f4";
            case "controller" -> "#bfe5c6";
            case "off" -> "#eeeeee";
            case "absolute" -> "#c6dbef";
            case "relative" -> "#fdd9b5";
            default -> "#e8eef5";
        };
    }

    private static void legend(StringBuilder b, int x, int y, String color, String dash, String name) {
        b.append(String.format(Locale.ROOT, "<line x1=\"%d\" x2=\"%d\" y1=\"%d\" y2=\"%d\" stroke=\"%s\""
                + " stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>%n", x, x + 22, y, y, color,
                dash == null ? "" : " stroke-dasharray=\"" + dash + "\"", x + 28, y + 4, esc(name)));
    }

    private static double y(double v, double lo, double hi, boolean logY, int top, int ph) {
        double f = logY ? (Math.log10(v) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo)) : (v - lo) / (hi - lo);
        return top + ph - Math.max(0, Math.min(1, f)) * ph;
    }

    private static double nice(double x) {
        double e = Math.pow(10, Math.floor(Math.log10(x)));
        double f = x / e;
        double n = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
        return n * e;
    }

    private static String label(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String td(long v) {
        return "<td>" + v + "</td>";
    }

    private static String td(double v, int decimals) {
        return Double.isNaN(v) ? "<td>-</td>" : String.format(Locale.ROOT, "<td>%." + decimals + "f</td>", v);
    }

    private static String pct(double v) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.1f%%", v);
    }

    private static String ms(double v) {
        return RunResult.millis(v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

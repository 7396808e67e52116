package dev.servletqos.sample.demo;

import static dev.servletqos.sample.demo.Html.esc;
import static dev.servletqos.sample.demo.ReportCharts.chart;
import static dev.servletqos.sample.demo.ReportTables.backendPhases;
import static dev.servletqos.sample.demo.ReportTables.degradationRatios;
import static dev.servletqos.sample.demo.ReportTables.headline;
import static dev.servletqos.sample.demo.ReportTables.phaseTable;

import dev.servletqos.ClassStats;
import dev.servletqos.Settings;
import dev.servletqos.control.ClassSample;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.demo.Recorder.Counter;
import dev.servletqos.sample.demo.ReportCharts.Band;
import dev.servletqos.sample.demo.ReportCharts.Guide;
import dev.servletqos.sample.demo.ReportCharts.Series;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.IntToDoubleFunction;

/**
 * Writes {@code report.html}: one self-contained page (inline SVG, no script, nothing fetched) with the
 * headline and the per-phase tables of every run; the charts of delay and completed sessions over time show the
 * first QoS-on run (solid) against QoS off (dashed), and leave a compared policy's run to the tables. This class
 * writes the page, its text and what each chart shows; {@link ReportTables} writes the tables and
 * {@link ReportCharts} draws the charts.
 */
final class Report {

    private static final String PREMIUM = "#1f6feb";
    private static final String BASIC = "#d4762c";
    private static final String TOTAL = "#2f8f46";
    private static final String REFUSED = "#b3261e";
    private static final String TARGET = "#b3261e";
    /** Line colours of the engine's classes, highest priority first (premium, basic, then others). */
    private static final List<String> CLASS_COLORS = List.of(PREMIUM, BASIC, "#2f8f46", "#7a3cc8", "#8c564b");

    private Report() {
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

    /** The runs' names: "on against off", "on against tuned against off". */
    private static String labels(List<RunResult> runs) {
        List<String> l = new ArrayList<>();
        for (RunResult r : runs) {
            l.add(r.label());
        }
        return String.join(" against ", l);
    }
}

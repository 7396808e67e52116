package dev.servletqos.sample.demo;

import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.demo.Recorder.Counter;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.IntToDoubleFunction;

/**
 * Writes {@code report.html}: one self-contained page (inline SVG, no script, nothing fetched) with the
 * headline, the charts over time and the per-phase tables of both runs.
 */
final class Report {

    private static final String PREMIUM = "#1f6feb";
    private static final String BASIC = "#d4762c";
    private static final String TOTAL = "#2f8f46";
    private static final String REFUSED = "#b3261e";

    private Report() {
    }

    /** A line of a chart: values per second (NaN = no value), dashed for QoS off. */
    record Series(String name, String color, double[] values, boolean dashed) {
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
                + "body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1000px;color:#1b1b1b}\n"
                + "table{border-collapse:collapse;margin:8px 0 16px}td,th{border:1px solid #ccc;padding:3px 8px;"
                + "text-align:right;font-size:13px}th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}\n"
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
                .append(", admission triggers j = ").append(policy.totalQueuedTrigger()).append(", k = ")
                .append(policy.higherQueuedTrigger()).append(". Capacity ")
                .append(String.format(Locale.ROOT, "%.1f", capacity))
                .append(" sessions/s. Profile: ");
        for (Profile.Phase p : profile.phases()) {
            b.append(esc(p.name())).append(String.format(Locale.ROOT, " %.0f s at %.1fx (%.0f sessions/s); ",
                    p.seconds(), p.multiple(), p.multiple() * capacity));
        }
        b.append("premium users are a fifth of the sessions and return with their tier cookie. A session completes"
                + " only if every request is answered 2xx within 5 s.</p>\n");
        b.append("<p class=\"note\">Degradation: not yet driven by a controller. The shop has a degraded content tree,"
                + " selected by the request attribute <code>dev.servletqos.level</code>, but nothing sets it in this"
                + " version: degraded responses below are counted from the responses and are 0. Budgets are the"
                + " policy's static values.</p>\n");

        b.append("<h2>Headline: completed sessions per second, QoS on against off</h2>\n");
        headline(b, profile, capacity, on, off);

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
                + " request 2xx within 5 s). Solid: QoS on; dashed: QoS off.</small></p>\n");
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
        b.append(chart("sessions/s", n, done, List.of(new Guide("capacity", "#666", capacity)), false, profile));

        for (RunResult r : runs) {
            b.append("<h2>Admitted and refused sessions per second, QoS ").append(r.qos() ? "on" : "off")
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
            b.append("<h2>Budgets, executing and queued requests (QoS on)</h2>\n<p><small>Sampled from the engine at"
                    + " the end of each second. Budgets are static (no controller yet).</small></p>\n");
            List<Series> bud = new ArrayList<>();
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                int tt = t;
                String color = t == 0 ? PREMIUM : BASIC;
                bud.add(new Series(Recorder.TYPES.get(t) + " budget", color, values(n, on, s -> {
                    Recorder.ServerSample x = on.recorder().sample(s);
                    return x == null || x.budget() == null || x.budget()[tt] < 0 ? Double.NaN : x.budget()[tt];
                }), true));
                bud.add(new Series(Recorder.TYPES.get(t) + " executing", color, values(n, on, s -> {
                    Recorder.ServerSample x = on.recorder().sample(s);
                    return x == null || x.executing() == null ? Double.NaN : x.executing()[tt];
                }), false));
                bud.add(new Series(Recorder.TYPES.get(t) + " queued", t == 0 ? "#7a3cc8" : REFUSED, values(n, on,
                        s -> {
                            Recorder.ServerSample x = on.recorder().sample(s);
                            return x == null || x.queued() == null ? Double.NaN : x.queued()[tt];
                        }), false));
            }
            b.append(chart("requests", n, bud, List.of(), false, profile));
        }

        b.append("<h2>Degradation level</h2>\n<p><small>Content level served (2 = full, 1 = degraded), from the"
                + " X-Content-Level header of the responses: the mean level per second. Not yet driven by a"
                + " controller.</small></p>\n");
        List<Series> lvl = new ArrayList<>();
        for (RunResult r : runs) {
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                int tt = t;
                lvl.add(new Series(Recorder.TYPES.get(t) + (r.qos() ? " on" : " off"), t == 0 ? PREMIUM : BASIC,
                        values(n, r, s -> {
                            long ok = r.recorder().get(Counter.REQ_OK, tt, s);
                            long deg = r.recorder().get(Counter.REQ_DEGRADED, tt, s);
                            return ok == 0 ? Double.NaN : 2 - (double) deg / ok;
                        }), !r.qos()));
            }
        }
        b.append(chart("level", n, lvl, List.of(), false, profile, 2.5));

        for (RunResult r : runs) {
            b.append("<h2>By phase, QoS ").append(r.qos() ? "on" : "off").append("</h2>\n<p><small>")
                    .append(esc(r.server())).append(". <i>completed/s</i>: sessions that completed within the phase's"
                            + " window. The other session columns count the sessions that arrived in the phase,"
                            + " wherever they ended; delays and degraded responses belong to the phase in which the"
                            + " response came.")
                    .append("</small></p>\n");
            phaseTable(b, r, policy);
        }
        b.append("<p><small>Written by <code>java -jar samples/target/qos-sample.jar --demo</code>; the numbers are"
                + " also in summary.json next to this file. docs/sample.md explains how to read them.</small></p>\n");
        b.append("</body></html>\n");
        return b.toString();
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

    private static void headline(StringBuilder b, Profile profile, double capacity, RunResult on, RunResult off) {
        b.append("<table><tr><th>phase</th><th>offered sessions/s</th><th>premium on</th><th>premium off</th>"
                + "<th>basic on</th><th>basic off</th><th>all on</th><th>all off</th>"
                + "<th>all on, % of capacity</th></tr>\n");
        List<RunResult.PhaseStats> pOn = on == null ? null : on.phases();
        List<RunResult.PhaseStats> pOff = off == null ? null : off.phases();
        for (int i = 0; i < profile.phases().size(); i++) {
            Profile.Phase p = profile.phases().get(i);
            b.append("<tr><td>").append(esc(p.name())).append("</td>").append(td(p.multiple() * capacity, 1));
            for (int t = 0; t <= Recorder.TYPES.size(); t++) {
                b.append(cell(pOn, i, t)).append(cell(pOff, i, t));
            }
            b.append(pOn == null ? "<td>-</td>" : td(100 * pOn.get(i).total().completedPerSecond() / capacity, 0));
            b.append("</tr>\n");
        }
        b.append("</table>\n<p><small>Each cell: completed sessions per second (the share of the offered sessions of"
                + " that class that completed).</small></p>\n");
    }

    private static String cell(List<RunResult.PhaseStats> phases, int i, int t) {
        if (phases == null) {
            return "<td>-</td>";
        }
        RunResult.TypeStats s = t < Recorder.TYPES.size() ? phases.get(i).types().get(t) : phases.get(i).total();
        return String.format(Locale.ROOT, "<td>%.1f <small>(%s)</small></td>", s.completedPerSecond(),
                pct(s.completedPercent()));
    }

    private static void phaseTable(StringBuilder b, RunResult r, QosPolicy policy) {
        b.append("<table><tr><th>phase / class</th><th>offered</th><th>admitted</th><th>refused at the door</th>"
                + "<th>completed</th><th>completed/s</th><th>% of offered</th><th>% of admitted</th>"
                + "<th>503 midway</th><th>timed out</th><th>errors</th><th>unfinished at the end</th>"
                + "<th>not started (generator limit)</th>"
                + "<th>p50 / p95 delay ms</th><th>target ms</th><th>degraded</th></tr>\n");
        for (RunResult.PhaseStats p : r.phases()) {
            for (int t = 0; t <= Recorder.TYPES.size(); t++) {
                RunResult.TypeStats s = t < Recorder.TYPES.size() ? p.types().get(t) : p.total();
                String name = t < Recorder.TYPES.size() ? Recorder.TYPES.get(t) : "all";
                long target = t < Recorder.TYPES.size() ? Demo.delayTargetMillis(policy, name) : 0;
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
            b.append(String.format(Locale.ROOT, "<tr><td colspan=\"16\"><small>%s: the application served %.0f"
                            + " requests/s, of which %.0f/s belonged to sessions that completed (useful work)</small>"
                            + "</td></tr>\n", esc(p.phase().name()), p.pagesServedPerSecond(),
                    p.usefulRequestsPerSecond()));
        }
        b.append("</table>\n");
    }

    private static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile) {
        return chart(yLabel, n, series, guides, logY, profile, Double.NaN);
    }

    /** A line chart over seconds, as inline SVG; phases are shaded, the flash crowd in red. */
    private static String chart(String yLabel, int n, List<Series> series, List<Guide> guides, boolean logY,
                                Profile profile, double fixedMax) {
        int w = 960;
        int h = 300;
        int left = 56;
        int right = 170;
        int top = 22;
        int bottom = 36;
        int pw = w - left - right;
        int ph = h - top - bottom;
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
            String fill = p.multiple() > 1 ? "#fde8e6" : "#f4f6f8";
            b.append(String.format(Locale.ROOT, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" fill=\"#555\">%s %.1fx</text>%n", x0, top, Math.max(0, x1 - x0), ph,
                    fill, x0 + 4, top + 12, esc(p.name()), p.multiple()));
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
                b.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s/>%n",
                        path.toString().trim(), s.color(), s.dashed() ? " stroke-dasharray=\"6 4\"" : ""));
            }
            legend(b, w - right + 10, top + 8 + 16 * legend++, s.color(), s.dashed() ? "6 4" : null, s.name());
        }
        b.append("</svg>\n");
        return b.toString();
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
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%.0f", v);
    }

    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

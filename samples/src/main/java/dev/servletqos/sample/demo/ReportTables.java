package dev.servletqos.sample.demo;

import static dev.servletqos.sample.demo.Html.esc;

import java.util.List;
import java.util.Locale;

/** The report's tables: the headline, degradation on against off, the slowed back end, and each run's phases. */
final class ReportTables {

    private ReportTables() {
    }

    /**
     * Completed sessions per second with degradation (run "on") over without (run {@link Demo#NO_DEGRADATION}),
     * per phase, with premium's completed share in both; nothing without the two runs.
     */
    static void degradationRatios(StringBuilder b, Profile profile, List<RunResult> runs) {
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

    /**
     * Per-phase figures of the phases where the back end was slower (or faster): the capacity at that speed,
     * what completed against it, the premium share that completed, and (QoS on) each class's queue delay and
     * budgets over the phase. Nothing when no phase changed the back end.
     */
    static void backendPhases(StringBuilder b, Profile profile, double capacity, List<RunResult> runs) {
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

    static void headline(StringBuilder b, Profile profile, double capacity, List<RunResult> runs) {
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

    private static String cell(List<RunResult.PhaseStats> phases, int i, int t) {
        RunResult.TypeStats s = phases.get(i).type(t);
        return String.format(Locale.ROOT, "<td>%.1f <small>(%s)</small></td>", s.completedPerSecond(),
                pct(s.completedPercent()));
    }

    static void phaseTable(StringBuilder b, RunResult r) {
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
}

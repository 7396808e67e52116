package dev.servletqos.loadtests;

import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** The comparison table of {@code load-tests/results.md} and the targets checked against it. */
public final class Results {

    private Results() {
    }

    /**
     * One target: what was measured against what was required. A target that could not be evaluated (a run it
     * needs is missing) has {@code evaluated} false, says why in {@code measured}, and does not pass.
     */
    public record Check(String what, String measured, boolean passed, boolean evaluated) {

        Check(String what, String measured, boolean passed) {
            this(what, measured, passed, true);
        }

        static Check notEvaluated(String what, String why) {
            return new Check(what, "not evaluated: " + why, false, false);
        }
    }

    /**
     * The targets, for QoS on: at the overload (the QoS-on run above 1x), at least {@code premiumTarget} of premium
     * sessions complete, and its completed sessions per second are at least {@code throughputTarget} of what the
     * server completes at capacity: the larger of the 1x QoS-on and 1x QoS-off results when QoS off was run
     * (servlet-qos must not cost throughput against the stock server), else the 1x QoS-on result. Always two
     * checks; one whose runs are missing is not evaluated, and does not pass.
     */
    public static List<Check> checks(List<LoadTestRun.Run> runs, double premiumTarget, double throughputTarget) {
        Optional<LoadTestRun.Run> capacityOn = capacityRun(runs, "on");
        Optional<LoadTestRun.Run> capacityOff = capacityRun(runs, "off");
        Optional<LoadTestRun.Run> overload = runs.stream()
                .filter(r -> r.qos().equals("on") && r.summary().load() > 1)
                .max(Comparator.comparingDouble(r -> r.summary().load()));
        String load = overload.map(r -> number(r.summary().load()) + "x").orElse("the overload");
        String premiumWhat = String.format(Locale.ROOT, "QoS on, %s: at least %s of premium sessions complete", load,
                percent(premiumTarget));
        String throughputWhat = String.format(Locale.ROOT, "QoS on, %s: completed sessions/s at least %s of those the"
                + " server completes at capacity (1x, the larger of QoS on and off)", load, percent(throughputTarget));
        List<Check> checks = new ArrayList<>();
        if (overload.isEmpty()) {
            boolean onRun = runs.stream().anyMatch(r -> r.qos().equals("on"));
            String why = !onRun ? "QoS on was not run"
                    : "there was no QoS-on run above 1x (the overload must be more than 1x capacity; --load was "
                            + runs.stream().filter(r -> r.qos().equals("on")).map(r -> number(r.summary().load()))
                                    .reduce((a, b) -> b).orElse("?") + ")";
            checks.add(Check.notEvaluated(premiumWhat, why));
            checks.add(Check.notEvaluated(throughputWhat, why));
            return checks;
        }
        RunSummary o = overload.get().summary();
        RunSummary.ClassStats premium = o.classes().get(ShopSessions.PREMIUM);
        if (premium == null || premium.started() == 0) {
            checks.add(Check.notEvaluated(premiumWhat, "no premium session started in the measurement window"));
        } else {
            checks.add(new Check(premiumWhat, String.format(Locale.ROOT, "%s (%d of %d)",
                    percent(premium.completedShare()), premium.completed(), premium.started()),
                    premium.completedShare() >= premiumTarget));
        }
        if (capacityOn.isEmpty()) {
            checks.add(Check.notEvaluated(throughputWhat, "there was no 1x run with QoS on"));
            return checks;
        }
        double on1 = capacityOn.get().summary().completedPerSecond();
        Double off1 = capacityOff.map(r -> r.summary().completedPerSecond()).orElse(null);
        double reference = off1 == null ? on1 : Math.max(on1, off1);
        if (!(reference > 0)) {
            checks.add(Check.notEvaluated(throughputWhat, "no session completed at 1x"));
            return checks;
        }
        double ratio = o.completedPerSecond() / reference;
        String refText = off1 == null ? String.format(Locale.ROOT, "%.1f/s at 1x with QoS on (QoS off not run)", on1)
                : String.format(Locale.ROOT, "%.1f/s at 1x, the larger of %.1f/s QoS on and %.1f/s QoS off", reference,
                        on1, off1);
        checks.add(new Check(throughputWhat, String.format(Locale.ROOT, "%s (%.1f/s at %s against %s)",
                percent(ratio), o.completedPerSecond(), load, refText), ratio >= throughputTarget));
        return checks;
    }

    /** The first run of a QoS mode at 1x (the capacity run). */
    private static Optional<LoadTestRun.Run> capacityRun(List<LoadTestRun.Run> runs, String qos) {
        return runs.stream().filter(r -> r.qos().equals(qos) && r.summary().load() == 1).findFirst();
    }

    /** The results file. */
    public static String markdown(LoadTestRun.Options o, List<LoadTestRun.Run> runs, List<Check> checks,
            Instant when, String machine) {
        StringBuilder md = new StringBuilder();
        boolean smoke = o.mode() == LoadTestRun.Mode.SMOKE;
        md.append("# Load test results").append(smoke ? " (smoke run: too short to mean anything)" : "")
                .append("\n\n");
        RunSummary first = runs.isEmpty() ? null : runs.get(0).summary();
        md.append("Written by `").append(o.commandLine().trim()).append("` on ")
                .append(DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(when.atOffset(ZoneOffset.UTC).withNano(0)))
                .append(" UTC (").append(machine).append("; the shop and Gatling share the cores). ");
        md.append("Server: ").append(o.serverCommand() != null ? "`" + o.serverCommand() + "`"
                : "the sample shop on " + o.container() + (o.policy() != null ? " with policy " + o.policy() : "")
                        + ", QoS on then off (a fresh server for each, the same one for 1x and the overload)")
                .append(".\n\n");
        if (first != null) {
            md.append(String.format(Locale.ROOT, "Each session is login, browse, three product pages with their"
                    + " images, checkout (12 requests, no think time); premium users are %s of the Poisson arrivals"
                    + " and start with a tier cookie from an earlier visit. A session completes when every request"
                    + " answers 2xx within %d s. 1x is %s sessions/s. The numbers count the sessions that started"
                    + " while the load held (after its ramp), with all their requests."
                    + "\n\n", percent(first.premiumShare()), first.timeoutMillis() / 1000, number(first.capacity())));
        }
        md.append("| QoS | load | offered sessions/s | premium completed | basic completed"
                + " | completed sessions/s premium / basic / all | premium p95 ms | basic p95 ms"
                + " | refused at start premium / basic | refused mid-session premium / basic"
                + " | timed out premium / basic | other failures | useful work req/s (of served) |\n");
        md.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (LoadTestRun.Run r : runs) {
            RunSummary s = r.summary();
            RunSummary.ClassStats p = s.classes().get(ShopSessions.PREMIUM);
            RunSummary.ClassStats b = s.classes().get(ShopSessions.BASIC);
            md.append(String.format(Locale.ROOT,
                    "| %s | %sx | %s | %s | %s | %.1f / %.1f / **%.1f** | %d | %d | %d / %d | %d / %d | %d / %d | %d"
                            + " | %.0f (%.0f) |\n",
                    r.qos(), number(s.load()), number(s.offeredPerSecond()), share(p), share(b),
                    s.completedPerSecond(ShopSessions.PREMIUM), s.completedPerSecond(ShopSessions.BASIC),
                    s.completedPerSecond(), p.p95Millis(), b.p95Millis(),
                    p.count(Outcome.REFUSED_AT_START), b.count(Outcome.REFUSED_AT_START),
                    p.count(Outcome.REFUSED_MID_SESSION), b.count(Outcome.REFUSED_MID_SESSION),
                    p.count(Outcome.TIMED_OUT), b.count(Outcome.TIMED_OUT),
                    p.count(Outcome.FAILED) + b.count(Outcome.FAILED), s.usefulPerSecond(), s.servedPerSecond()));
        }
        md.append("\nRefusals are 503 answers with Retry-After; \"at start\" means the session's first request, before"
                + " the server did any work for it. p95 is over the requests of those sessions that were answered 2xx or"
                + " timed out (a timed-out request counting as the timeout); refused and failed requests are not in it"
                + " (they are the refusal and failure columns). Useful work counts the 2xx answers of sessions that completed; the rest of"
                + " the served requests went to sessions that failed later (wasted work).\n\n");
        md.append("## Targets").append(smoke ? " (not enforced in a smoke run)" : "").append("\n\n");
        for (Check c : checks) {
            md.append("- ").append(c.passed() ? "**PASS**" : c.evaluated() ? "**FAIL**" : "**NOT EVALUATED**")
                    .append(" ").append(c.what()).append(": ")
                    .append(c.measured()).append("\n");
        }
        md.append("\nWith QoS off the table shows what the same server does without servlet-qos.\n\n");
        md.append("## Gatling reports\n\n");
        for (LoadTestRun.Run r : runs) {
            md.append("- ").append(r.summary().label()).append(": ")
                    .append(r.report() == null ? "(none)" : "`" + relative(r.report().resolve("index.html")) + "`")
                    .append("\n");
        }
        md.append("\nIn each report the groups `premium` and `basic` are the sessions of each class: a group is OK"
                + " only when all its requests were, and its duration is the session's.\n");
        return md.toString();
    }

    private static String share(RunSummary.ClassStats s) {
        return String.format(Locale.ROOT, "%s (%d of %d)", percent(s.completedShare()), s.completed(), s.started());
    }

    /** 0.9934 as {@code 99.3 %}; never rounds a shortfall up to 100. */
    static String percent(double fraction) {
        double pct = fraction * 100;
        if (pct < 100 && pct > 99.9) {
            return String.format(Locale.ROOT, "%.2f %%", Math.floor(pct * 100) / 100);
        }
        return String.format(Locale.ROOT, "%.1f %%", Math.floor(pct * 10) / 10);
    }

    /** 4.0 as {@code 4}, 2.5 as {@code 2.5}. */
    static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%.1f", d);
    }

    private static String relative(Path p) {
        Path abs = p.toAbsolutePath().normalize();
        Path cwd = Path.of("").toAbsolutePath();
        return abs.startsWith(cwd) ? cwd.relativize(abs).toString() : abs.toString();
    }
}

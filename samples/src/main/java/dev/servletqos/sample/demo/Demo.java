package dev.servletqos.sample.demo;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.control.Sample;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.Backend;
import dev.servletqos.sample.demo.Recorder.Counter;
import dev.servletqos.sample.run.Containers;
import dev.servletqos.sample.run.ShopConfig;
import dev.servletqos.sample.run.ShopServer;
import dev.servletqos.workload.Cost;
import dev.servletqos.workload.Page;
import dev.servletqos.workload.Step;
import dev.servletqos.workload.UserClass;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The main job: the shop under a flash crowd and then with its back end slowed down (the profile's phases set
 * the back end's speed factor in-process), QoS on (then, with a compared policy, QoS on with that one) and then
 * off, on the same container with the same thread count. The engine is sampled in-process once a second (snapshot, the period since the last sample, the
 * control loop's status). While it runs it prints one line per second per user type; at the end it writes
 * {@code report.html} and {@code summary.json} and prints the headline: completed premium and basic sessions
 * per second, run against run.
 */
public final class Demo {

    /** Seed of the arrival process: every run sees the same arrivals and the same users' choices. */
    static final long SEED = 20261121L;

    /**
     * What to run.
     *
     * @param container tomcat or jetty
     * @param config    the shop (policy, costs, port; its qos flag is set per run)
     * @param profile   the load profile
     * @param capacity  sessions/s the multiples refer to; 0 = {@link #nominalCapacity}
     * @param runOn     run with QoS on
     * @param runOff    run with QoS off
     * @param out       where report.html and summary.json go
     * @param warmup    the unrecorded load before each run ({@link #DEFAULT_WARMUP})
     * @param compared  a second policy run with QoS on after the first, or null
     * @param noDegradation the same policy with {@code control.degradation = none}, run with QoS on right after the
     *                  first run (the built-in comparison of degradation on and off), or null
     */
    public record Settings(String container, ShopConfig config, Profile profile, double capacity, boolean runOn,
                           boolean runOff, Path out, Profile warmup, Comparison compared, Comparison noDegradation) {

        /** Without the run with degradation off. */
        public Settings(String container, ShopConfig config, Profile profile, double capacity, boolean runOn,
                        boolean runOff, Path out, Profile warmup, Comparison compared) {
            this(container, config, profile, capacity, runOn, runOff, out, warmup, compared, null);
        }
    }

    /** The name of the built-in run with the same policy and {@code control.degradation = none}. */
    public static final String NO_DEGRADATION = "no degradation";

    /**
     * A second policy to run with QoS on, after the first and under the same load, so that two policies are
     * compared in one invocation (the bundled minimal one against the hand-tuned one, say).
     *
     * @param name   what the console, the report and the summary call its run ("tuned")
     * @param config the shop with that policy (its qos flag is set on)
     */
    public record Comparison(String name, ShopConfig config) {
    }

    /** Four seconds at half capacity: enough for the JIT to compile the request path. */
    public static final Profile DEFAULT_WARMUP = LoadGenerator.WARMUP;

    /** What the demo produced. */
    public record Result(List<RunResultView> runs, Path report, Path summary, double seconds) {
    }

    /** A run's phases, for callers outside the package (tests, Main). */
    public record RunResultView(boolean qos, String label, List<RunResult.PhaseStats> phases) {
    }

    private final Settings settings;
    private final PrintStream log;
    private final double capacity;
    private Starter starter;

    private Demo(Settings settings, PrintStream log) {
        this.settings = settings;
        this.log = log;
        this.capacity = settings.capacity() > 0 ? settings.capacity() : nominalCapacity(settings.config());
    }

    /**
     * Sessions per second the shop completes when its back end is always busy: its connections (or a fixed
     * max-executing, if lower) divided by the worker time one session holds (the cost model, full content).
     */
    public static double nominalCapacity(ShopConfig config) {
        int concurrency = Math.min(dev.servletqos.sample.Backend.CONNECTIONS, config.policy().maxExecutingCeiling());
        return LoadGenerator.WORKLOAD.capacity(concurrency, config.costs().scale(), 1);
    }

    /**
     * Sessions per second the shop completes with its back end {@code backendFactor} times slower:
     * {@code capacity} scaled by the session's worker time at normal speed over its worker time at that speed.
     */
    static double capacityAt(double capacity, double backendFactor) {
        Cost session = LoadGenerator.WORKLOAD.cost(false);
        return capacity * session.millis() / session.millis(backendFactor);
    }

    /** Runs the demo, printing to {@code log}. */
    public static Result run(Settings settings, PrintStream log) throws IOException, InterruptedException {
        return run(settings, log, Containers::start);
    }

    /** Starts the shop for one run: by default the embedded container's runner ({@link Containers#start}). */
    @FunctionalInterface
    public interface Starter {
        ShopServer start(String container, ShopConfig config) throws IOException;
    }

    /** Runs the demo on shops {@code starter} starts (the Spring Boot sample's), printing to {@code log}. */
    public static Result run(Settings settings, PrintStream log, Starter starter)
            throws IOException, InterruptedException {
        Demo demo = new Demo(settings, log);
        demo.starter = starter;
        return demo.run();
    }

    private Result run() throws IOException, InterruptedException {
        long start = System.nanoTime();
        QosPolicy policy = settings.config().policy();
        log.printf(Locale.ROOT, "servlet-qos demo: the sample shop on %s, %d cores, Java %s%n", settings.container(),
                Runtime.getRuntime().availableProcessors(), System.getProperty("java.version"));
        log.printf(Locale.ROOT, "policy %s: %s, max-executing %d, triggers j=%d k=%d%n",
                settings.config().policyFile() == null ? "(bundled qos-sample.properties)"
                        : settings.config().policyFile().toString(),
                policy.scheduling().key(), policy.maxExecuting(), policy.admission().totalQueuedTrigger(),
                policy.admission().higherQueuedTrigger());
        if (settings.compared() != null) {
            QosPolicy c = settings.compared().config().policy();
            log.printf(Locale.ROOT, "compared with policy %s (%s): %s, max-executing %d, triggers j=%d k=%d%n",
                    settings.compared().name(), settings.compared().config().policyFile() == null
                            ? "bundled" : settings.compared().config().policyFile().toString(),
                    c.scheduling().key(), c.maxExecuting(), c.admission().totalQueuedTrigger(),
                    c.admission().higherQueuedTrigger());
        }
        log.printf(Locale.ROOT, "a session = %s: %d requests, %.0f ms of worker time (cost scale %s)%n",
                steps(), LoadGenerator.WORKLOAD.requests(false), settings.config().costs().sessionMillis(),
                settings.config().costs().scale());
        log.printf(Locale.ROOT, "capacity %.1f sessions/s (%s); profile:", capacity,
                settings.capacity() > 0 ? "--capacity" : "back-end connections / session worker time");
        for (Profile.Phase p : settings.profile().phases()) {
            log.printf(Locale.ROOT, " %s %.0fs at %s (%.0f sessions/s)", p.name(), p.seconds(), p.describe(),
                    p.multiple() * capacity);
        }
        log.printf(Locale.ROOT, "%n%s; a session completes only if every request is answered 2xx within %d s%n",
                classes(), LoadGenerator.TIMEOUT.toSeconds());
        log.println("degradation: " + degradation(policy) + (settings.noDegradation() == null ? ""
                : "; compared with the same policy and control.degradation = none (run \"" + NO_DEGRADATION + "\")"));
        List<RunResult> runs = new ArrayList<>();
        if (settings.runOn()) {
            runs.add(runOnce(settings.config(), true, "on"));
        }
        if (settings.noDegradation() != null) {
            runs.add(runOnce(settings.noDegradation().config(), true, settings.noDegradation().name()));
        }
        if (settings.compared() != null) {
            runs.add(runOnce(settings.compared().config(), true, settings.compared().name()));
        }
        if (settings.runOff()) {
            runs.add(runOnce(settings.config(), false, "off"));
        }
        Files.createDirectories(settings.out());
        Path summary = settings.out().resolve("summary.json");
        Path report = settings.out().resolve("report.html");
        double seconds = (System.nanoTime() - start) / 1e9;
        Files.writeString(summary, Summary.json(settings, capacity, runs, seconds));
        Files.writeString(report, Report.html(settings, capacity, runs, seconds));
        printHeadline(runs);
        log.printf(Locale.ROOT, "wrote %s and %s (%.0f s)%n", report.toAbsolutePath().normalize(),
                summary.toAbsolutePath().normalize(), seconds);
        List<RunResultView> views = new ArrayList<>();
        for (RunResult r : runs) {
            views.add(new RunResultView(r.qos(), r.label(), r.phases()));
        }
        return new Result(views, report, summary, seconds);
    }

    /**
     * The policy's degradation law in words: "the pi law on occupancy, target 0.9 (content levels per class:
     * premium 2, basic 2)", or "none (...)".
     */
    static String degradation(QosPolicy policy) {
        ControlPolicy.Degradation d = policy.control().degradation();
        return switch (d.law()) {
            case NONE -> "none (control.degradation = none: every page full unless an operator lowers a level)";
            case PI -> String.format(Locale.ROOT, "the pi law on %s, target %s (content levels per class: %s)",
                    d.source().key(), Profile.number(d.target()), levels(policy));
            default -> String.format(Locale.ROOT, "the %s law on %s (content levels per class: %s)", d.law().key(),
                    d.source().key(), levels(policy));
        };
    }

    private static String levels(QosPolicy policy) {
        List<String> out = new ArrayList<>();
        for (ClassPolicy c : policy.classes()) {
            out.add(c.name() + " " + c.content().levels());
        }
        return String.join(", ", out);
    }

    /**
     * The ratio of completed sessions per second with degradation (the run "on") to without (the run
     * {@link #NO_DEGRADATION}) in phase {@code i}, all classes; NaN when either run is missing or completed none.
     */
    static double degradationRatio(List<RunResult> runs, int i) {
        RunResult with = null;
        RunResult without = null;
        for (RunResult r : runs) {
            with = r.label().equals("on") ? r : with;
            without = r.label().equals(NO_DEGRADATION) ? r : without;
        }
        if (with == null || without == null) {
            return Double.NaN;
        }
        double w = with.phases().get(i).total().completedPerSecond();
        double wo = without.phases().get(i).total().completedPerSecond();
        return wo > 0 ? w / wo : Double.NaN;
    }

    /** Who set the settings, in words: policy, operator, controller. */
    static String source(dev.servletqos.Settings.Source s) {
        return s.name().toLowerCase(Locale.ROOT);
    }

    /** The workload's steps in words: "login, browse, 3 x item (+2 img), checkout". */
    static String steps() {
        StringBuilder b = new StringBuilder();
        List<Step> steps = LoadGenerator.WORKLOAD.steps();
        for (int i = 0; i < steps.size(); ) {
            Page p = steps.get(i).page();
            int n = 1;
            while (i + n < steps.size() && steps.get(i + n).page().equals(p)) {
                n++;
            }
            b.append(b.length() == 0 ? "" : ", ").append(n > 1 ? n + " x " : "").append(p.name());
            if (p.embeds() != null) {
                b.append(" (+").append(p.embeds().full()).append(' ').append(p.embeds().page().name()).append(')');
            }
            if (!steps.get(i).thinkTime().isZero()) {
                b.append(" after ").append(steps.get(i).thinkTime().toMillis()).append(" ms");
            }
            i += n;
        }
        return b.toString();
    }

    /** The workload's user classes in words: "premium 20 % (returning users), basic 80 %". */
    static String classes() {
        StringBuilder b = new StringBuilder();
        for (UserClass c : LoadGenerator.WORKLOAD.classes()) {
            b.append(b.length() == 0 ? "" : ", ")
                    .append(String.format(Locale.ROOT, "%s %.0f%%", c.name(), c.share() * 100))
                    .append(c.returning() ? " (returning users with a tier cookie)" : " (new visitors)");
        }
        return b.toString();
    }

    private RunResult runOnce(ShopConfig shop, boolean qos, String label) throws IOException, InterruptedException {
        ShopConfig config = shop.withQos(qos);
        try (ShopServer server = starter.start(settings.container(), config)) {
            log.printf(Locale.ROOT, "%n=== QoS %s: %s, http://127.0.0.1:%d%n", label, server.describe(),
                    server.port());
            if (server.engine() != null) {
                dev.servletqos.Settings s = server.engine().settings();
                log.printf(Locale.ROOT, "control loop: mode %s, period %d ms, settings set by %s%n",
                        s.control().mode().key(), s.control().period().toMillis(), source(s.source()));
            }
            URI base = URI.create("http://127.0.0.1:" + server.port() + "/");
            try (LoadGenerator gen = new LoadGenerator(base, config.policy().cookies().tierName(), settings.profile(),
                    settings.warmup(), capacity, SEED)) {
                server.backend().setFactor(1);
                gen.prepare();
                int seconds = (int) Math.ceil(settings.profile().seconds() + LoadGenerator.DRAIN.toSeconds()
                        + LoadGenerator.TIMEOUT.toSeconds() + 3);
                Recorder rec = new Recorder(System.nanoTime() + 50_000_000L, seconds);
                // the server's counters have run since it started (the returning users' logins, the warm-up):
                // the first phase counts from here, not from zero
                Sampler sampler = new Sampler(server);
                rec.baseline(sampler.next());
                ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
                    Thread t = new Thread(r, "demo-ticker");
                    t.setDaemon(true);
                    return t;
                });
                int[] lastSecond = {0};
                try {
                    long firstTick = rec.t0 + 1_000_000_000L - System.nanoTime();
                    ticker.scheduleAtFixedRate(() -> {
                        int s = (int) Math.round((System.nanoTime() - rec.t0) / 1e9);
                        rec.sample(s - 1, sampler.next());
                        if (s - 1 < settings.profile().seconds()) {
                            print(label, config.policy(), rec, s - 1);
                        }
                        lastSecond[0] = s;
                    }, firstTick, 1_000_000_000L, TimeUnit.NANOSECONDS);
                    scheduleBackend(label, server.backend(), rec.t0, ticker);
                    gen.run(rec);
                } finally {
                    ticker.shutdownNow();
                    ticker.awaitTermination(5, TimeUnit.SECONDS);
                }
                int used = Math.min(rec.seconds, rec.second(System.nanoTime()) + 1);
                Recorder.ServerSample last = sampler.next();
                for (int s = Math.max(0, lastSecond[0] - 1); s < used; s++) {
                    if (rec.sample(s) == null) {
                        rec.sample(s, last);
                    }
                }
                RunResult result = new RunResult(label, config, server.describe(), settings.profile(), capacity, rec,
                        used);
                printPhases(result);
                return result;
            }
        }
    }

    /**
     * Samples a server in-process, once a second: its page counter, the back end's factor and, with QoS on, the
     * engine's snapshot and control status, with the period since the previous sample. Thread-safe.
     */
    private static final class Sampler {
        private final ShopServer server;
        private EngineSnapshot last;

        Sampler(ShopServer server) {
            this.server = server;
        }

        synchronized Recorder.ServerSample next() {
            QosEngine engine = server.engine();
            double factor = server.backend() == null ? 1 : server.backend().factor();
            if (engine == null) {
                return new Recorder.ServerSample(server.pagesServed(), factor, null, null, null);
            }
            EngineSnapshot s = engine.snapshot();
            Sample period = last == null ? null : Sample.between(last, s, Double.NaN);
            last = s;
            return new Recorder.ServerSample(server.pagesServed(), factor, s, period, engine.controlStatus());
        }
    }

    /**
     * Sets the back end's factor at the start of every phase where it changes (the first phase changes it from
     * 1), on the ticker's thread, and says so on the console.
     */
    private void scheduleBackend(String label, Backend backend, long t0, ScheduledExecutorService ticker) {
        List<Profile.Phase> phases = settings.profile().phases();
        double before = 1;
        for (int i = 0; i < phases.size(); i++) {
            Profile.Phase p = phases.get(i);
            if (p.backendFactor() != before) {
                long at = t0 + (long) (settings.profile().start(i) * 1e9);
                ticker.schedule(() -> {
                    backend.setFactor(p.backendFactor());
                    log.printf(Locale.ROOT, "QoS %-3s %-6s back end %s from now%n", label, p.name(),
                            p.backendChanged() ? "x" + Profile.number(p.backendFactor()) + " (its waits multiplied by "
                                    + Profile.number(p.backendFactor()) + ")" : "at normal speed");
                }, at - System.nanoTime(), TimeUnit.NANOSECONDS);
            }
            before = p.backendFactor();
        }
    }

    private void print(String label, QosPolicy policy, Recorder rec, int second) {
        if (second < 0) {
            return;
        }
        Profile.Phase phase = settings.profile().at(second + 0.5);
        for (int t = 0; t < Recorder.TYPES.size(); t++) {
            String type = Recorder.TYPES.get(t);
            double p95 = Recorder.percentile(rec.delays(t, second), 95);
            Recorder.ServerSample sample = rec.sample(second);
            String budget = sample == null || sample.budget(t) < 0 ? "-" : Integer.toString(sample.budget(t));
            dev.servletqos.ClassStats stats = sample == null ? null : sample.stats(t);
            String level = stats == null ? "-" : String.format(Locale.ROOT, "%.2f", stats.level());
            String util = utilization(sample, type);
            log.printf(Locale.ROOT,
                    "QoS %-3s %-6s %3ds %-7s offered %3d  served %4d req  refused %3d sess %3d req  degraded %4d"
                            + "  level %4s%s  p95 delay %5s ms / target %4d  budget %2s  done %3d sess%n",
                    label, phase == null ? "drain" : phase.name(), second + 1, type,
                    rec.get(Counter.OFFERED, t, second), rec.get(Counter.REQ_OK, t, second),
                    rec.get(Counter.REFUSED, t, second),
                    rec.get(Counter.REQ_REFUSED, t, second) - rec.get(Counter.REFUSED, t, second),
                    rec.get(Counter.REQ_DEGRADED, t, second), level, util,
                    Double.isNaN(p95) ? "-" : String.format(Locale.ROOT, "%.0f", p95),
                    delayTargetMillis(policy, type), budget, rec.get(Counter.COMPLETED, t, second));
        }
    }

    /**
     * "  util 0.45 / 0.90": the class's utilization and its target in the degradation law's last period (pi law
     * only); empty otherwise.
     */
    static String utilization(Recorder.ServerSample sample, String className) {
        if (sample == null || sample.control() == null || sample.control().utilization() == null) {
            return "";
        }
        for (dev.servletqos.control.UtilizationStatus.ClassLevel c : sample.control().utilization().classes()) {
            if (c.name().equals(className) && Double.isFinite(c.target())) {
                return String.format(Locale.ROOT, "  util %4.2f / %4.2f", c.utilization(), c.target());
            }
        }
        return "";
    }

    /** The policy's delay target of a class, in ms; 0 if the policy has no such class. */
    static long delayTargetMillis(QosPolicy policy, String className) {
        int i = policy.classIndex(className);
        if (i < 0) {
            return 0;
        }
        ClassPolicy c = policy.classes().get(i);
        Duration d = c.delay().target();
        return d.toMillis();
    }

    private void printPhases(RunResult r) {
        log.printf(Locale.ROOT, "--- QoS %s, by phase (done/s: completed within the phase; %%, refused, failed: of"
                + " the sessions that arrived in it):%n", r.label());
        for (RunResult.PhaseStats p : r.phases()) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "  %-7s", p.phase().name()));
            if (p.phase().backendChanged()) {
                b.append(String.format(Locale.ROOT, " (back end x%s, capacity %.1f/s)",
                        Profile.number(p.phase().backendFactor()), p.capacity()));
            }
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                RunResult.TypeStats s = p.types().get(t);
                b.append(String.format(Locale.ROOT, "  %s: %.1f done/s (%.0f%% of %d offered, %d refused, %d failed)",
                        Recorder.TYPES.get(t), s.completedPerSecond(), s.completedPercent(), s.offered(), s.refused(),
                        s.rejectedMidway() + s.timedOut() + s.errors()));
            }
            b.append(String.format(Locale.ROOT, "  useful %.0f of %.0f req/s", p.usefulRequestsPerSecond(),
                    p.pagesServedPerSecond()));
            log.println(b);
        }
        if (r.unfinished() > 0) {
            log.printf(Locale.ROOT, "  %d sessions were still running when the run ended (%d s after the last"
                    + " arrival): counted as neither completed nor failed%n", r.unfinished(),
                    LoadGenerator.DRAIN.toSeconds());
        }
        if (r.capped() > 0) {
            log.printf(Locale.ROOT, "  %d arrivals were not started: the load generator had %d sessions running"
                    + " (its own limit, not the server's doing)%n", r.capped(), LoadGenerator.MAX_SESSIONS);
        }
    }

    private void printHeadline(List<RunResult> runs) {
        log.printf(Locale.ROOT, "%n=== Headline: completed sessions per second (capacity %.1f/s)%n", capacity);
        List<String> labels = new ArrayList<>();
        for (RunResult r : runs) {
            labels.add(r.label());
        }
        String names = String.join(" / ", labels);
        int width = Math.max(22, 14 * runs.size());
        String column = " %-" + width + "s";
        StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "  %-7s %9s ", "phase", "offered/s"));
        for (int t = 0; t <= Recorder.TYPES.size(); t++) {
            header.append(String.format(Locale.ROOT, column,
                    (t < Recorder.TYPES.size() ? Recorder.TYPES.get(t) : "all") + " " + names));
        }
        log.println(header);
        for (int i = 0; i < settings.profile().phases().size(); i++) {
            Profile.Phase ph = settings.profile().phases().get(i);
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "  %-7s %9.1f ", ph.name(),
                    ph.multiple() * capacity));
            for (int t = 0; t <= Recorder.TYPES.size(); t++) {
                List<String> cells = new ArrayList<>();
                for (RunResult r : runs) {
                    RunResult.PhaseStats p = r.phases().get(i);
                    cells.add(rate(p.type(t)));
                }
                b.append(String.format(Locale.ROOT, column, String.join(" / ", cells)));
            }
            log.println(b);
        }
        RunResult with = runs.stream().filter(r -> r.label().equals("on")).findFirst().orElse(null);
        RunResult without = runs.stream().filter(r -> r.label().equals(NO_DEGRADATION)).findFirst().orElse(null);
        for (int i = 0; with != null && without != null && i < settings.profile().phases().size(); i++) {
            log.printf(Locale.ROOT, "  degradation %-7s all sessions %.1f/s with, %.1f/s without (%s): %.2f times%n",
                    settings.profile().phases().get(i).name(), with.phases().get(i).total().completedPerSecond(),
                    without.phases().get(i).total().completedPerSecond(), NO_DEGRADATION, degradationRatio(runs, i));
        }
        for (RunResult r : runs) {
            for (RunResult.PhaseStats p : r.phases()) {
                if (p.phase().multiple() > 1 || p.phase().backendChanged()) {
                    RunResult.TypeStats prem = p.types().get(0);
                    log.printf(Locale.ROOT, "  QoS %-3s %s: premium sessions completed %.1f%%, all sessions %.1f/s ="
                                    + " %.0f%% of capacity%s%n", r.label(), p.phase().name(),
                            prem.completedPercent(), p.total().completedPerSecond(),
                            100 * p.total().completedPerSecond() / capacity, !p.phase().backendChanged() ? ""
                                    : String.format(Locale.ROOT, ", %.0f%% of the capacity with the back end x%s"
                                            + " (%.1f/s)", 100 * p.total().completedPerSecond() / p.capacity(),
                                    Profile.number(p.phase().backendFactor()), p.capacity()));
                    if (p.phase().backendChanged()) {
                        printEngine(p);
                    }
                }
            }
        }
    }

    /** A phase's per-class figures: client p95 delay and the engine's queue delay against target, budgets. */
    private void printEngine(RunResult.PhaseStats p) {
        List<String> parts = new ArrayList<>();
        for (int t = 0; t < Recorder.TYPES.size(); t++) {
            parts.add(String.format(Locale.ROOT, "%s p95 delay %s ms", Recorder.TYPES.get(t),
                    RunResult.millis(p.types().get(t).p95DelayMillis())));
        }
        for (RunResult.EngineStats e : p.engine()) {
            parts.add(e.describe());
        }
        if (!p.engine().isEmpty()) {
            parts.add(p.describeControl());
        }
        log.println("      " + String.join("; ", parts));
    }

    private static String rate(RunResult.TypeStats s) {
        return String.format(Locale.ROOT, "%.1f (%.0f%%)", s.completedPerSecond(), s.completedPercent());
    }
}

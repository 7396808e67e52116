package dev.servletqos.loadtests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * The documented load test ({@code load-tests/run.sh}): for QoS on, then off, starts the sample shop on a free
 * port of 127.0.0.1, measures what it completes at capacity (1x, a short run) and at four times capacity, stops
 * it, and writes the comparison to {@code load-tests/results.md} with the Gatling HTML reports beside it.
 *
 * <p>{@code --full} (the default) takes about six minutes and checks the targets: with QoS on, at 4x, at least
 * 99 % of premium sessions complete and completed sessions per second stay at least 90 % of what the server
 * completes at capacity (the larger of the 1x QoS-on and 1x QoS-off figures). The exit status is 1 when a target
 * is missed or cannot be evaluated (QoS on not run, or {@code --load} not above 1). {@code --smoke} runs the same steps for a few seconds each to show
 * that everything works; its numbers mean nothing and its targets are not enforced.
 */
public final class LoadTestRun {

    /** Premium sessions that must complete at 4x with QoS on. */
    static final double PREMIUM_TARGET = 0.99;
    /** Completed sessions per second at 4x with QoS on, relative to the larger of the 1x results (on, off). */
    static final double THROUGHPUT_TARGET = 0.90;

    /** How long each run ramps and holds. */
    public enum Mode {
        FULL(Duration.ofSeconds(10), Duration.ofSeconds(40), Duration.ofSeconds(20), Duration.ofSeconds(60)),
        SMOKE(Duration.ofSeconds(1), Duration.ofSeconds(3), Duration.ofSeconds(1), Duration.ofSeconds(3));

        final Duration capacityRamp;
        final Duration capacityHold;
        final Duration overloadRamp;
        final Duration overloadHold;

        Mode(Duration capacityRamp, Duration capacityHold, Duration overloadRamp, Duration overloadHold) {
            this.capacityRamp = capacityRamp;
            this.capacityHold = capacityHold;
            this.overloadRamp = overloadRamp;
            this.overloadHold = overloadHold;
        }
    }

    /**
     * What to run.
     *
     * @param mode          full or smoke
     * @param qosModes      which server modes, in order ({@code on}, {@code off})
     * @param container     the sample's container ({@code tomcat} or {@code jetty})
     * @param capacity      sessions per second taken as 1x
     * @param load          the overload, as a multiple of capacity
     * @param jar           the sample shop jar
     * @param policy        a policy file for the sample, or null for its own
     * @param serverCommand a command line to start instead of the jar, with {@code {port}}, {@code {qos}} and
     *                      {@code {container}} placeholders; null for the jar
     * @param results       the markdown file to write
     * @param reports       the directory for Gatling reports, server logs and run summaries
     * @param commandLine   how this run was invoked, for the results file
     */
    public record Options(Mode mode, List<String> qosModes, String container, double capacity, double load, Path jar,
            Path policy, String serverCommand, Path results, Path reports, String commandLine) {
    }

    /** One Gatling run: which server mode, what it measured, where its report is. */
    public record Run(String qos, RunSummary summary, Path report) {
    }

    private LoadTestRun() {
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("load-tests: " + e.getMessage());
            System.err.println("usage: load-tests/run.sh [--full|--smoke] [--container tomcat|jetty] [--capacity N]"
                    + " [--load N] [--qos on,off] [--policy FILE] [--jar FILE] [--server-command CMD]"
                    + " [--results FILE] [--reports DIR]");
            System.exit(2);
            return;
        }
        int status;
        try {
            Report report = execute(options);
            System.out.println();
            System.out.println(report.markdown());
            System.out.println("written to " + options.results());
            status = report.passed() || options.mode() == Mode.SMOKE ? 0 : 1;
        } catch (IOException | IllegalArgumentException e) { // says what went wrong and where to look
            System.err.println("load-tests: " + e.getMessage());
            status = 2;
        } catch (Exception e) { // unexpected; Gatling (Scala) may throw checked exceptions it does not declare
            System.err.println("load-tests: " + e);
            e.printStackTrace();
            status = 2;
        }
        System.exit(status);
    }

    /** What {@link #execute} measured and wrote. */
    public record Report(List<Run> runs, List<Results.Check> checks, String markdown) {
        /** Whether every target was met. */
        public boolean passed() {
            return checks.stream().allMatch(Results.Check::passed);
        }
    }

    /** Runs everything, checks the targets and writes the results file. */
    public static Report execute(Options options) throws IOException, InterruptedException {
        String loadBefore = loadAverage();
        List<Run> runs = run(options);
        List<Results.Check> checks = Results.checks(runs, PREMIUM_TARGET, THROUGHPUT_TARGET);
        String machine = Runtime.getRuntime().availableProcessors() + " cores, Java " + System.getProperty("java.version")
                + (loadBefore == null ? "" : ", load average " + loadBefore + " before and " + loadAverage() + " after");
        String md = Results.markdown(options, runs, checks, Instant.now(), machine);
        Files.createDirectories(options.results().toAbsolutePath().getParent());
        Files.writeString(options.results(), md, StandardCharsets.UTF_8);
        return new Report(runs, checks, md);
    }

    /** Runs everything the options ask for and returns the runs, 1x then overload for each QoS mode. */
    public static List<Run> run(Options o) throws IOException, InterruptedException {
        Files.createDirectories(o.reports());
        List<Run> runs = new ArrayList<>();
        for (String qos : o.qosModes()) {
            int port = SampleServer.freePort();
            List<String> command = serverCommand(o, qos, port);
            System.out.println("load-tests: starting " + String.join(" ", command));
            try (SampleServer server = SampleServer.start(command, port, o.reports().resolve("server-qos-" + qos + ".log"),
                    Duration.ofSeconds(60))) {
                runs.add(measure(o, server, qos, 1, o.mode().capacityRamp, o.mode().capacityHold));
                runs.add(measure(o, server, qos, o.load(), o.mode().overloadRamp, o.mode().overloadHold));
            }
        }
        return runs;
    }

    private static Run measure(Options o, SampleServer server, String qos, double load, Duration ramp, Duration hold)
            throws IOException {
        String label = "qos-" + qos + "-" + Results.number(load) + "x";
        Path dir = o.reports().resolve(label);
        deleteTree(dir);
        LoadProfile profile = new LoadProfile(server.baseUrl(), o.capacity(), load, ramp, hold,
                ShopSessions.WORKLOAD.userClass(ShopSessions.PREMIUM).share(), ShopSessions.WORKLOAD.clientTimeout(),
                label, dir.resolve("summary.properties"));
        System.out.println("load-tests: " + label + ": " + Results.number(profile.offeredRate())
                + " sessions/s for " + hold.toSeconds() + " s after a " + ramp.toSeconds() + " s ramp");
        GatlingRunner.Result r = GatlingRunner.run(profile, dir);
        if (!server.isAlive()) {
            throw new IOException("the server exited during the run " + label + "; see its log " + server.log());
        }
        if (r.status() != 0 || !Files.exists(r.summary())) {
            throw new IOException("the Gatling run " + label + " failed (status " + r.status() + "); see the output above"
                    + " and the server log " + server.log());
        }
        String snapshot = server.qosSnapshot();
        if (snapshot != null) {
            Files.writeString(dir.resolve("qos.json"), snapshot, StandardCharsets.UTF_8);
        }
        return new Run(qos, RunSummary.read(r.summary()), r.report());
    }

    static List<String> serverCommand(Options o, String qos, int port) {
        List<String> cmd = new ArrayList<>();
        if (o.serverCommand() != null) {
            for (String part : o.serverCommand().trim().split("\\s+")) {
                cmd.add(part.replace("{port}", Integer.toString(port)).replace("{qos}", qos)
                        .replace("{container}", o.container()));
            }
            return cmd;
        }
        if (!Files.isRegularFile(o.jar())) {
            throw new IllegalArgumentException("--jar " + o.jar() + ": no such file; build the sample first"
                    + " (./mvnw -pl samples -am package -DskipTests, or run load-tests/run.sh)");
        }
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.add("-jar");
        cmd.add(o.jar().toString());
        cmd.addAll(List.of("--container", o.container(), "--port", Integer.toString(port), "--qos", qos));
        if (o.policy() != null) {
            cmd.addAll(List.of("--policy", o.policy().toString()));
        }
        return cmd;
    }

    static Options parse(String[] args) {
        Mode mode = Mode.FULL;
        List<String> qos = List.of("on", "off");
        String container = "tomcat";
        double capacity = LoadProfile.DEFAULT_CAPACITY;
        double load = 4;
        Path jar = Path.of("samples/target/qos-sample.jar");
        Path policy = null;
        String serverCommand = null;
        Path results = null;
        Path reports = Path.of("load-tests/target/gatling");
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--full" -> mode = Mode.FULL;
                case "--smoke" -> mode = Mode.SMOKE;
                case "--container" -> {
                    container = value(args, ++i, a);
                    if (!container.equals("tomcat") && !container.equals("jetty")) {
                        throw new IllegalArgumentException("--container " + container + ": must be tomcat or jetty");
                    }
                }
                case "--capacity" -> capacity = positive(a, value(args, ++i, a));
                case "--load" -> load = positive(a, value(args, ++i, a));
                case "--qos" -> {
                    String v = value(args, ++i, a);
                    qos = List.of(v.split(","));
                    if (qos.isEmpty() || !qos.stream().allMatch(q -> q.equals("on") || q.equals("off"))) {
                        throw new IllegalArgumentException("--qos " + v + ": must be on, off, or on,off");
                    }
                }
                case "--jar" -> jar = Path.of(value(args, ++i, a));
                case "--policy" -> policy = Path.of(value(args, ++i, a));
                case "--server-command" -> serverCommand = value(args, ++i, a);
                case "--results" -> results = Path.of(value(args, ++i, a));
                case "--reports" -> reports = Path.of(value(args, ++i, a));
                default -> throw new IllegalArgumentException(a + ": unknown option");
            }
        }
        if (capacity * load > LoadProfile.MAX_RATE) {
            throw new IllegalArgumentException("--capacity " + Results.number(capacity) + " --load " + Results.number(load)
                    + ": offers " + Results.number(capacity * load) + " sessions/s, more than the load generator's bound of "
                    + Results.number(LoadProfile.MAX_RATE));
        }
        if (policy != null && !Files.isRegularFile(policy)) {
            throw new IllegalArgumentException("--policy " + policy + ": no such file");
        }
        if (results == null) {
            results = mode == Mode.FULL ? Path.of("load-tests/results.md") : Path.of("load-tests/target/results-smoke.md");
        }
        return new Options(mode, qos, container, capacity, load, jar, policy, serverCommand, results, reports,
                "load-tests/run.sh " + String.join(" ", args));
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + ": needs a value");
        }
        return args[i];
    }

    private static double positive(String option, String v) {
        try {
            double d = Double.parseDouble(v);
            if (d > 0 && d < 1e6) {
                return d;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(option + " " + v + ": must be a positive number");
    }

    /** The 1-minute load average (Linux), or null where there is none: other work competes for the cores. */
    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII).split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}

package dev.servletqos.loadtests;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;

/**
 * What one Gatling run measured, per service class, over the sessions that started in the measurement window
 * (while the load held at its top). Written by the simulation when it ends and read back by {@link Results}.
 *
 * @param label        the run's name ({@code qos-on-4x})
 * @param capacity     the sessions per second that were taken as 1x
 * @param load         the multiple of capacity offered during the window
 * @param premiumShare fraction of arrivals that were premium
 * @param rampSeconds  length of the ramp before the window
 * @param holdSeconds  length of the window
 * @param timeoutMillis client timeout of each request
 * @param tierCookie   whether premium users carried a tier cookie (the server issued one at login)
 * @param classes      per class, in the order premium, basic
 */
public record RunSummary(String label, double capacity, double load, double premiumShare, double rampSeconds,
        double holdSeconds, long timeoutMillis, boolean tierCookie, Map<String, ClassStats> classes) {

    /**
     * One class's numbers.
     *
     * @param outcomes       sessions started in the window, by how they ended
     * @param allStarted     sessions started over the whole run (ramp and window)
     * @param allCompleted   of those, completed
     * @param servedRequests requests of the window's sessions that answered 2xx (work the server did)
     * @param usefulRequests of those, the requests of sessions that completed (work that was not wasted)
     * @param latencyCount   requests of the window's sessions with a response time (or a timeout)
     * @param p50Millis      median response time of those requests; a timeout counts as the timeout
     * @param p95Millis      95th percentile, the same way
     * @param p99Millis      99th percentile, the same way
     * @param maxMillis      longest
     */
    public record ClassStats(Map<Outcome, Long> outcomes, long allStarted, long allCompleted, long servedRequests,
            long usefulRequests, long latencyCount, long p50Millis, long p95Millis, long p99Millis,
            long maxMillis) {

        /** Sessions that started in the window. */
        public long started() {
            return outcomes.values().stream().mapToLong(Long::longValue).sum();
        }

        public long count(Outcome o) {
            return outcomes.getOrDefault(o, 0L);
        }

        public long completed() {
            return count(Outcome.COMPLETED);
        }

        /** Completed / started in the window, 0..1; 1 when none started. */
        public double completedShare() {
            return started() == 0 ? 1 : (double) completed() / started();
        }
    }

    /** Sessions per second offered to the server during the window (both classes). */
    public double offeredPerSecond() {
        return capacity * load;
    }

    /** Completed sessions per second of one class during the window. */
    public double completedPerSecond(String serviceClass) {
        return classes.get(serviceClass).completed() / holdSeconds;
    }

    /** Completed sessions per second of all classes during the window. */
    public double completedPerSecond() {
        return classes.values().stream().mapToLong(ClassStats::completed).sum() / holdSeconds;
    }

    /** Requests per second that answered 2xx for the window's sessions. */
    public double servedPerSecond() {
        return classes.values().stream().mapToLong(ClassStats::servedRequests).sum() / holdSeconds;
    }

    /** Requests per second that answered 2xx for the window's sessions that completed: useful work. */
    public double usefulPerSecond() {
        return classes.values().stream().mapToLong(ClassStats::usefulRequests).sum() / holdSeconds;
    }

    public void write(Path file) throws IOException {
        Properties p = new Properties();
        p.setProperty("label", label);
        p.setProperty("capacity", Double.toString(capacity));
        p.setProperty("load", Double.toString(load));
        p.setProperty("premiumShare", Double.toString(premiumShare));
        p.setProperty("rampSeconds", Double.toString(rampSeconds));
        p.setProperty("holdSeconds", Double.toString(holdSeconds));
        p.setProperty("timeoutMillis", Long.toString(timeoutMillis));
        p.setProperty("tierCookie", Boolean.toString(tierCookie));
        p.setProperty("classes", String.join(",", classes.keySet()));
        classes.forEach((name, s) -> {
            for (Outcome o : Outcome.values()) {
                p.setProperty(name + ".sessions." + key(o), Long.toString(s.count(o)));
            }
            p.setProperty(name + ".allStarted", Long.toString(s.allStarted()));
            p.setProperty(name + ".allCompleted", Long.toString(s.allCompleted()));
            p.setProperty(name + ".servedRequests", Long.toString(s.servedRequests()));
            p.setProperty(name + ".usefulRequests", Long.toString(s.usefulRequests()));
            p.setProperty(name + ".latencyCount", Long.toString(s.latencyCount()));
            p.setProperty(name + ".p50Millis", Long.toString(s.p50Millis()));
            p.setProperty(name + ".p95Millis", Long.toString(s.p95Millis()));
            p.setProperty(name + ".p99Millis", Long.toString(s.p99Millis()));
            p.setProperty(name + ".maxMillis", Long.toString(s.maxMillis()));
        });
        Files.createDirectories(file.toAbsolutePath().getParent());
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            p.store(w, "servlet-qos load test run " + label);
        }
    }

    public static RunSummary read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        Map<String, ClassStats> classes = new LinkedHashMap<>();
        for (String name : List.of(p.getProperty("classes", "").split(","))) {
            if (name.isEmpty()) {
                continue;
            }
            Map<Outcome, Long> outcomes = new EnumMap<>(Outcome.class);
            for (Outcome o : Outcome.values()) {
                outcomes.put(o, num(p, file, name + ".sessions." + key(o)));
            }
            classes.put(name, new ClassStats(outcomes, num(p, file, name + ".allStarted"),
                    num(p, file, name + ".allCompleted"), num(p, file, name + ".servedRequests"),
                    num(p, file, name + ".usefulRequests"), num(p, file, name + ".latencyCount"),
                    num(p, file, name + ".p50Millis"), num(p, file, name + ".p95Millis"),
                    num(p, file, name + ".p99Millis"), num(p, file, name + ".maxMillis")));
        }
        return new RunSummary(p.getProperty("label"), dec(p, file, "capacity"), dec(p, file, "load"),
                dec(p, file, "premiumShare"), dec(p, file, "rampSeconds"), dec(p, file, "holdSeconds"),
                num(p, file, "timeoutMillis"), Boolean.parseBoolean(p.getProperty("tierCookie")), classes);
    }

    private static String key(Outcome o) {
        return o.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    private static long num(Properties p, Path file, String key) {
        String v = p.getProperty(key);
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(file + ": " + key + " = " + v + ": not a whole number", e);
        }
    }

    private static double dec(Properties p, Path file, String key) {
        String v = p.getProperty(key);
        try {
            return Double.parseDouble(v);
        } catch (NullPointerException | NumberFormatException e) {
            throw new IllegalArgumentException(file + ": " + key + " = " + v + ": not a number", e);
        }
    }
}

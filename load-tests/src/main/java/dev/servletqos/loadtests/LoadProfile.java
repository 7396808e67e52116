package dev.servletqos.loadtests;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;

/**
 * What one Gatling run offers the server: open-model session arrivals ramping from zero to {@code load} times
 * the server's capacity, then holding there; premium one fifth of them by default. The statistics that count
 * are those of the sessions that start while the load holds (the measurement window).
 *
 * <p>Read from system properties {@code qos.*} (so that {@code gatling:test -Dqos.load=4} and the
 * {@link LoadTestRun} launcher pass them the same way); every value is checked and a bad one is reported with
 * its key and value.
 *
 * @param baseUrl      where the shop runs ({@code qos.baseUrl}, default {@code http://127.0.0.1:8080}); its host must
 *                     be 127.0.0.1, localhost or [::1]: the generator only loads this machine's loopback
 * @param capacity     sessions per second the server completes at capacity: the arrival rate of "1x"
 *                     ({@code qos.capacity}, default {@value #DEFAULT_CAPACITY})
 * @param load         the multiple of capacity offered while holding ({@code qos.load}, default 4); capacity times
 *                     load may not exceed {@link #MAX_RATE} sessions per second
 * @param ramp         time to ramp the arrival rate from 0 to its top ({@code qos.ramp}, default 20s)
 * @param hold         time at the top rate, the measurement window ({@code qos.hold}, default 60s)
 * @param premiumShare fraction of sessions that are premium ({@code qos.premiumShare}, default the workload's,
 *                     0.2)
 * @param timeout      client timeout of every request; a session completes only if every request answered
 *                     2xx within it ({@code qos.timeout}, default the workload's, 5s: paper 004's client timeout)
 * @param label        a name for this run in reports ({@code qos.label}, default {@code run})
 * @param summaryFile  where the run's {@link RunSummary} is written ({@code qos.summary}; none if absent)
 */
public record LoadProfile(URI baseUrl, double capacity, double load, Duration ramp, Duration hold,
        double premiumShare, Duration timeout, String label, Path summaryFile) {

    /**
     * Default capacity in sessions per second: the sample shop's, 16 requests executing at once over the 0.55 s of
     * worker time one session holds (docs/sample.md).
     */
    public static final double DEFAULT_CAPACITY = 29;

    /** The highest arrival rate, sessions per second, that a profile may offer (capacity times load). */
    public static final double MAX_RATE = 2000;

    /** The hosts a profile may target: this machine's loopback only. */
    static final Set<String> LOOPBACK_HOSTS = Set.of("127.0.0.1", "localhost", "[::1]");

    public LoadProfile {
        check("qos.capacity", capacity, capacity > 0 && capacity <= 100_000, "must be more than 0 sessions/s");
        check("qos.load", load, load > 0 && load <= 1000, "must be more than 0 (a multiple of capacity)");
        check("qos.premiumShare", premiumShare, premiumShare >= 0 && premiumShare <= 1, "must be 0..1");
        check("qos.ramp", ramp, !ramp.isNegative(), "must not be negative");
        check("qos.hold", hold, hold.compareTo(Duration.ofSeconds(1)) >= 0, "must be at least 1s");
        check("qos.timeout", timeout, timeout.compareTo(Duration.ofMillis(100)) >= 0, "must be at least 100ms");
        if (!"http".equals(baseUrl.getScheme()) || baseUrl.getHost() == null) {
            throw new IllegalArgumentException("qos.baseUrl = " + baseUrl + ": must be an http://host:port URL");
        }
        if (!LOOPBACK_HOSTS.contains(baseUrl.getHost().toLowerCase(Locale.ROOT))) {
            throw new IllegalArgumentException("qos.baseUrl = " + baseUrl + ": the load generator only targets this"
                    + " machine's loopback (127.0.0.1, localhost or [::1]), not " + baseUrl.getHost());
        }
        check("qos.capacity x qos.load", Results.number(capacity) + " x " + Results.number(load),
                capacity * load <= MAX_RATE, "offers more than " + Results.number(MAX_RATE)
                        + " sessions/s, the load generator's bound");
    }

    /** The profile the system properties describe. */
    public static LoadProfile fromSystemProperties() {
        return from(System.getProperties());
    }

    /** The profile these properties describe (keys {@code qos.*}; others are ignored). */
    public static LoadProfile from(Properties p) {
        String url = p.getProperty("qos.baseUrl", "http://127.0.0.1:8080");
        URI base;
        try {
            base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("qos.baseUrl = " + url + ": not a URL (" + e.getMessage() + ")", e);
        }
        String summary = p.getProperty("qos.summary");
        return new LoadProfile(base,
                decimal(p, "qos.capacity", DEFAULT_CAPACITY),
                decimal(p, "qos.load", 4),
                duration(p, "qos.ramp", Duration.ofSeconds(20)),
                duration(p, "qos.hold", Duration.ofSeconds(60)),
                decimal(p, "qos.premiumShare", ShopSessions.WORKLOAD.userClass(ShopSessions.PREMIUM).share()),
                duration(p, "qos.timeout", ShopSessions.WORKLOAD.clientTimeout()),
                p.getProperty("qos.label", "run"),
                summary == null || summary.isBlank() ? null : Path.of(summary));
    }

    /** This profile as the system properties that {@link #from} reads back. */
    public Map<String, String> toProperties() {
        Map<String, String> m = new TreeMap<>();
        m.put("qos.baseUrl", baseUrl.toString());
        m.put("qos.capacity", Double.toString(capacity));
        m.put("qos.load", Double.toString(load));
        m.put("qos.ramp", ramp.toMillis() + "ms");
        m.put("qos.hold", hold.toMillis() + "ms");
        m.put("qos.premiumShare", Double.toString(premiumShare));
        m.put("qos.timeout", timeout.toMillis() + "ms");
        m.put("qos.label", label);
        if (summaryFile != null) {
            m.put("qos.summary", summaryFile.toAbsolutePath().toString());
        }
        return m;
    }

    /** Session arrivals per second of both classes at the top of the ramp. */
    public double offeredRate() {
        return capacity * load;
    }

    /** Session arrivals per second of one class at the top of the ramp. */
    public double topRate(boolean premium) {
        return capacity * load * (premium ? premiumShare : 1 - premiumShare);
    }

    /** Longest a session can take: each request answers or fails within the timeout, and a failure ends it. */
    public Duration longestSession() {
        return timeout.multipliedBy(ShopSessions.REQUESTS_PER_SESSION);
    }

    /**
     * Bound on the whole run: the ramp, the hold, and time for the last sessions to end. Sessions still running
     * then are cut off and never recorded, so the bound must exceed {@link #longestSession()}.
     */
    public Duration maxDuration() {
        return ramp.plus(hold).plus(longestSession()).plusSeconds(10);
    }

    private static void check(String key, Object value, boolean ok, String why) {
        if (!ok) {
            throw new IllegalArgumentException(key + " = " + value + ": " + why);
        }
    }

    private static double decimal(Properties p, String key, double dflt) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            double d = Double.parseDouble(v.trim());
            if (Double.isNaN(d) || Double.isInfinite(d)) {
                throw new NumberFormatException("not finite");
            }
            return d;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " = " + v + ": not a number", e);
        }
    }

    /** {@code 500ms}, {@code 20s}, {@code 2m}, or ISO-8601 ({@code PT20S}). */
    static Duration duration(Properties p, String key, Duration dflt) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.startsWith("pt")) {
                return Duration.parse(s.toUpperCase(Locale.ROOT));
            }
            if (s.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            }
            if (s.endsWith("s")) {
                return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
            }
            if (s.endsWith("m")) {
                return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            }
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(key + " = " + v + ": not a duration (500ms, 20s, 2m)", e);
        }
        throw new IllegalArgumentException(key + " = " + v + ": a duration needs a unit (500ms, 20s, 2m)");
    }
}

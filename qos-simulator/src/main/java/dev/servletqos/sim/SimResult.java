package dev.servletqos.sim;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a simulation recorded: per class, a {@link ClassSeries} (a value per metric per period), the
 * {@link ClassTotals} over the whole run, and the engine's own counters at the end; helpers to write the
 * series as CSV and to chart them as SVG. Immutable.
 */
public final class SimResult {

    private final long seed;
    private final double periodSeconds;
    private final double loadSeconds;
    private final double endSeconds;
    private final boolean drained;
    private final Map<String, ClassSeries> series;
    private final Map<String, ClassTotals> totals;
    private final Map<String, SimEngine.EngineCounts> engineCounts;
    private final Map<String, ResponseTimes> responses;
    private final List<String> classes;
    private final long events;
    private final long realNanos;
    private final long cpuNanos;

    SimResult(long seed, double periodSeconds, double loadSeconds, double endSeconds, boolean drained,
              Map<String, ClassSeries> series, Map<String, ClassTotals> totals,
              Map<String, SimEngine.EngineCounts> engineCounts, Map<String, ResponseTimes> responses, long events,
              long realNanos, long cpuNanos) {
        this.responses = Map.copyOf(responses);
        this.seed = seed;
        this.periodSeconds = periodSeconds;
        this.loadSeconds = loadSeconds;
        this.endSeconds = endSeconds;
        this.drained = drained;
        this.series = Map.copyOf(series);
        this.totals = Map.copyOf(totals);
        this.engineCounts = new java.util.LinkedHashMap<>(engineCounts);
        this.classes = List.copyOf(series.keySet());
        this.events = events;
        this.realNanos = realNanos;
        this.cpuNanos = cpuNanos;
    }

    /** Every completed request's response time of one class, to take percentiles over a stretch of the run. */
    public ResponseTimes responses(String cls) {
        ResponseTimes r = responses.get(cls);
        if (r == null) {
            throw new IllegalArgumentException("no class " + cls + " in " + classes);
        }
        return r;
    }

    public long seed() {
        return seed;
    }

    /** The recording period, in seconds. */
    public double periodSeconds() {
        return periodSeconds;
    }

    /** When the load ended (no new sessions after it), in simulated seconds. */
    public double loadSeconds() {
        return loadSeconds;
    }

    /** When the run ended (after the drain), in simulated seconds. */
    public double endSeconds() {
        return endSeconds;
    }

    /** Whether every session and request had ended when the run stopped (else the drain limit cut it). */
    public boolean drained() {
        return drained;
    }

    /** The number of recorded periods. */
    public int periods() {
        return series.get(classes.get(0)).periods();
    }

    /** The end of each period, in simulated seconds: the x values of the series. */
    public double[] time() {
        double[] t = new double[periods()];
        for (int i = 0; i < t.length; i++) {
            t[i] = (i + 1) * periodSeconds;
        }
        return t;
    }

    /** The workload's classes, in its order. */
    public List<String> classes() {
        return classes;
    }

    /** The series of one class. */
    public ClassSeries series(String cls) {
        ClassSeries s = series.get(cls);
        if (s == null) {
            throw new IllegalArgumentException("no class " + cls + "; classes are " + classes);
        }
        return s;
    }

    /** The totals of one class over the whole run. */
    public ClassTotals totals(String cls) {
        series(cls);
        return totals.get(cls);
    }

    /** The engine's counters of the class of this name at the end of the run; null if the policy has none. */
    public SimEngine.EngineCounts engineCounts(String cls) {
        series(cls);
        return engineCounts.get(cls);
    }

    /** Events the simulation ran. */
    public long events() {
        return events;
    }

    /** Real (wall-clock) time the run took, in milliseconds. */
    public double realMillis() {
        return realNanos / 1e6;
    }

    /** CPU time the run's thread used, in milliseconds (less noisy than {@link #realMillis()} on a busy machine); -1 if unknown. */
    public double cpuMillis() {
        return cpuNanos < 0 ? -1 : cpuNanos / 1e6;
    }

    /**
     * The series as CSV, one row per period and class: {@code time_s,class,} then every {@link Metric}'s
     * column. Counts are whole numbers, other values have six significant digits, NaN is an empty field.
     */
    public String toCsv() {
        StringBuilder b = new StringBuilder();
        b.append("time_s,class");
        for (Metric m : Metric.values()) {
            b.append(',').append(m.column());
        }
        b.append('\n');
        double[] t = time();
        for (int i = 0; i < t.length; i++) {
            for (String c : classes) {
                ClassSeries s = series.get(c);
                b.append(format(t[i])).append(',').append(c);
                for (Metric m : Metric.values()) {
                    b.append(',').append(format(s.value(m, i)));
                }
                b.append('\n');
            }
        }
        return b.toString();
    }

    /** Writes {@link #toCsv()} to a file (its directory is created). */
    public void writeCsv(Path file) {
        write(file, toCsv());
    }

    /**
     * A chart of one metric over the load (the drain after it left out), a line per class, titled and
     * labelled; add reference lines, markers or more series on the returned builder.
     */
    public SvgChart.Builder chart(Metric m, String title) {
        SvgChart.Builder b = SvgChart.builder().title(title).xLabel("time (s)")
                .yLabel(m.column().replace('_', ' ') + " (" + m.unit() + ")").xRange(0, loadSeconds);
        int n = (int) Math.round(loadSeconds / periodSeconds);
        double[] t = java.util.Arrays.copyOf(time(), n);
        for (String c : classes) {
            b.series(c, t, java.util.Arrays.copyOf(series.get(c).values(m), n));
        }
        return b;
    }

    static void write(Path file, String text) {
        try {
            Path dir = file.toAbsolutePath().getParent();
            if (dir != null) {
                Files.createDirectories(dir);
            }
            Files.writeString(file, text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static String format(double v) {
        if (Double.isNaN(v)) {
            return "";
        }
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        String s = String.format(Locale.ROOT, "%.6g", v);
        if (s.indexOf('e') < 0 && s.indexOf('.') >= 0) {
            int end = s.length();
            while (s.charAt(end - 1) == '0') {
                end--;
            }
            if (s.charAt(end - 1) == '.') {
                end--;
            }
            s = s.substring(0, end);
        }
        return s;
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "SimResult{seed=%d, %d periods of %.3g s, load %.0f s, end %.0f s, %s,"
                + " %d events, %.1f ms real, %.1f ms cpu}", seed, periods(), periodSeconds, loadSeconds,
                endSeconds, drained ? "drained" : "NOT drained", events, realMillis(), cpuMillis());
    }
}

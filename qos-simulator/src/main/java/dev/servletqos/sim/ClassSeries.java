package dev.servletqos.sim;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * One class's recorded time series: a value per {@link Metric} per period. Period {@code i} covers simulated
 * time {@code [i p, (i+1) p)} for the recording period {@code p}. Immutable.
 */
public final class ClassSeries {

    private final String name;
    private final double periodSeconds;
    private final Map<Metric, double[]> values;
    private final int periods;

    ClassSeries(String name, double periodSeconds, Map<Metric, double[]> values, int periods) {
        this.name = name;
        this.periodSeconds = periodSeconds;
        this.periods = periods;
        this.values = new EnumMap<>(Metric.class);
        for (Map.Entry<Metric, double[]> e : values.entrySet()) {
            this.values.put(e.getKey(), Arrays.copyOf(e.getValue(), periods));
        }
    }

    public String name() {
        return name;
    }

    /** The number of periods. */
    public int periods() {
        return periods;
    }

    /** The values of a metric, one per period (a copy). */
    public double[] values(Metric m) {
        return values.get(m).clone();
    }

    /** The value of a metric in period {@code i}. */
    public double value(Metric m, int i) {
        return values.get(m)[i];
    }

    /**
     * A metric over the periods lying within {@code [fromSeconds, toSeconds]}: a mean weighted by the requests
     * it was taken over ({@link Metric#weight()}), else the plain mean over the periods (for a count: per
     * period). NaN values (periods without requests) are skipped; NaN if nothing is left.
     */
    public double mean(Metric m, double fromSeconds, double toSeconds) {
        double[] v = values.get(m);
        double[] w = m.weight() == null ? null : values.get(m.weight());
        double sum = 0;
        double weight = 0;
        for (int i = first(fromSeconds); i < end(toSeconds); i++) {
            if (Double.isNaN(v[i])) {
                continue;
            }
            double wi = w == null ? 1 : w[i];
            sum += v[i] * wi;
            weight += wi;
        }
        return weight == 0 ? Double.NaN : sum / weight;
    }

    /** The sum of a count over the periods within {@code [fromSeconds, toSeconds]}. */
    public double sum(Metric m, double fromSeconds, double toSeconds) {
        double[] v = values.get(m);
        double sum = 0;
        for (int i = first(fromSeconds); i < end(toSeconds); i++) {
            if (!Double.isNaN(v[i])) {
                sum += v[i];
            }
        }
        return sum;
    }

    /** A count per second over the periods within {@code [fromSeconds, toSeconds]}. */
    public double rate(Metric m, double fromSeconds, double toSeconds) {
        int n = end(toSeconds) - first(fromSeconds);
        return n <= 0 ? Double.NaN : sum(m, fromSeconds, toSeconds) / (n * periodSeconds);
    }

    private int first(double fromSeconds) {
        return Math.max(0, (int) Math.ceil(fromSeconds / periodSeconds - 1e-9));
    }

    private int end(double toSeconds) {
        return Math.min(periods, (int) Math.floor(toSeconds / periodSeconds + 1e-9));
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClassSeries c) || !c.name.equals(name) || c.periods != periods) {
            return false;
        }
        for (Metric m : Metric.values()) {
            if (!Arrays.equals(values.get(m), c.values.get(m))) {
                return false;
            }
        }
        return true;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(values.get(Metric.ARRIVALS));
    }

    @Override
    public String toString() {
        return "ClassSeries{" + name + ", " + periods + " periods}";
    }
}

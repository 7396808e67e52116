package dev.servletqos.sim;

import java.time.Duration;
import java.util.Arrays;

/**
 * A rate over simulated time (new sessions per second of an open class): constant, with steps, with linear
 * ramps, built in time order, e.g. {@code Rate.constant(10).step(ofSeconds(100), 30).ramp(ofSeconds(200),
 * ofSeconds(250), 5)}. Between the points given the rate is linear (a ramp) or constant; before the first
 * and after the last it stays at the nearest value. Immutable.
 */
public final class Rate {

    private final double[] times;
    private final double[] values;

    private Rate(double[] times, double[] values) {
        this.times = times;
        this.values = values;
    }

    /**
     * The same rate throughout.
     *
     * @throws IllegalArgumentException if negative or not finite
     */
    public static Rate constant(double perSecond) {
        check(perSecond);
        return new Rate(new double[] {0}, new double[] {perSecond});
    }

    /**
     * This rate until {@code at}, then {@code perSecond}.
     *
     * @throws IllegalArgumentException if {@code at} is before the last point, or the rate is negative
     */
    public Rate step(Duration at, double perSecond) {
        check(perSecond);
        double t = seconds(at);
        return append(t, last(), t, perSecond);
    }

    /**
     * This rate until {@code from}, then linearly to {@code perSecond} at {@code to}, and that rate after.
     *
     * @throws IllegalArgumentException if the times are out of order or the rate is negative
     */
    public Rate ramp(Duration from, Duration to, double perSecond) {
        check(perSecond);
        double a = seconds(from);
        double b = seconds(to);
        if (b < a) {
            throw new IllegalArgumentException("ramp ends (" + to + ") before it starts (" + from + ")");
        }
        return append(a, last(), b, perSecond);
    }

    /** The rate at {@code seconds} after the start, per second. */
    public double at(double seconds) {
        int n = times.length;
        if (seconds < times[0]) {
            return values[0];
        }
        // the last point at or before t; at a step (two points at one time) the later value applies
        int i = n - 1;
        while (i > 0 && times[i] > seconds) {
            i--;
        }
        if (i == n - 1) {
            return values[i];
        }
        double t0 = times[i];
        double t1 = times[i + 1];
        if (t1 == t0) {
            return values[i + 1];
        }
        return values[i] + (values[i + 1] - values[i]) * (seconds - t0) / (t1 - t0);
    }

    /** The highest rate anywhere. */
    public double max() {
        double m = 0;
        for (double v : values) {
            m = Math.max(m, v);
        }
        return m;
    }

    /** The expected number of events between {@code from} and {@code to} seconds (the integral of the rate). */
    public double expected(double from, double to) {
        // between two consecutive points the rate is a line: the trapezoid rule is exact there, with the value
        // just after the left point and just before the right one (they differ from at() only at steps)
        double sum = 0;
        double[] cuts = cuts(from, to);
        for (int i = 0; i + 1 < cuts.length; i++) {
            double a = cuts[i];
            double b = cuts[i + 1];
            sum += (b - a) * (at(a) + before(b)) / 2;
        }
        return sum;
    }

    /** The limit of the rate from the left at {@code seconds}: at a step, the value before it. */
    private double before(double seconds) {
        int i = 0;
        while (i < times.length && times[i] < seconds) {
            i++;
        }
        if (i == times.length) {
            return values[i - 1];
        }
        if (i == 0 || times[i] == seconds) {
            return values[i];
        }
        double t0 = times[i - 1];
        double t1 = times[i];
        return values[i - 1] + (values[i] - values[i - 1]) * (seconds - t0) / (t1 - t0);
    }

    private double[] cuts(double from, double to) {
        double[] c = new double[times.length + 2];
        int n = 0;
        c[n++] = from;
        for (double t : times) {
            if (t > from && t < to) {
                c[n++] = t;
            }
        }
        c[n++] = to;
        return Arrays.copyOf(c, n);
    }

    private double last() {
        return values[values.length - 1];
    }

    private Rate append(double t0, double v0, double t1, double v1) {
        if (t0 < times[times.length - 1]) {
            throw new IllegalArgumentException("rate changes must be given in time order: " + t0
                    + " s comes before " + times[times.length - 1] + " s");
        }
        double[] t = Arrays.copyOf(times, times.length + 2);
        double[] v = Arrays.copyOf(values, values.length + 2);
        t[t.length - 2] = t0;
        v[v.length - 2] = v0;
        t[t.length - 1] = t1;
        v[v.length - 1] = v1;
        return new Rate(t, v);
    }

    private static double seconds(Duration d) {
        if (d.isNegative()) {
            throw new IllegalArgumentException("time must not be negative, was " + d);
        }
        return d.toNanos() / 1e9;
    }

    private static void check(double perSecond) {
        if (!(perSecond >= 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate must be 0 or more per second, was " + perSecond);
        }
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("Rate{");
        for (int i = 0; i < times.length; i++) {
            b.append(i == 0 ? "" : ", ").append(times[i]).append("s:").append(values[i]);
        }
        return b.append('}').toString();
    }
}

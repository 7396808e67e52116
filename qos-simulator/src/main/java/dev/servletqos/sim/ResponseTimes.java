package dev.servletqos.sim;

import java.util.Arrays;

/**
 * Every completed request's response time (entry to end of service) of one class and when it completed, so that
 * a test can take a percentile over any stretch of the run (a percentile of periods does not combine).
 */
public final class ResponseTimes {

    private double[] at = new double[256];
    private double[] seconds = new double[256];
    private int size;

    void add(double atSeconds, double responseSeconds) {
        if (size == at.length) {
            at = Arrays.copyOf(at, size * 2);
            seconds = Arrays.copyOf(seconds, size * 2);
        }
        at[size] = atSeconds;
        seconds[size++] = responseSeconds;
    }

    /**
     * The {@code q} quantile (nearest rank) of the response times of the requests completed from
     * {@code fromSeconds} to {@code toSeconds}; NaN if none.
     */
    public double quantile(double q, double fromSeconds, double toSeconds) {
        double[] in = new double[size];
        int n = 0;
        for (int i = 0; i < size; i++) {
            if (at[i] >= fromSeconds && at[i] < toSeconds) {
                in[n++] = seconds[i];
            }
        }
        if (n == 0) {
            return Double.NaN;
        }
        Arrays.sort(in, 0, n);
        return in[Math.max(0, (int) Math.ceil(q * n) - 1)];
    }
}

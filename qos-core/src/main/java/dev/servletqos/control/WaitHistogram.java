package dev.servletqos.control;

import java.util.Arrays;

/**
 * Counts of queue delays in fixed buckets, four per doubling from 1 ms: bucket 0 holds delays up to 1 ms
 * (requests run at once among them), bucket {@code i} those up to {@code 2^(i/4)} ms, the last one everything
 * above about 55 s. Quantiles are interpolated within a bucket, so they are exact to about 19 %. The same
 * buckets are kept by the engine (cumulative, per class) and exported as meters, so a sample built from
 * either has the same quantiles. Immutable.
 */
public final class WaitHistogram {

    /** Number of buckets, the last one unbounded. */
    public static final int BUCKETS = 65;

    private static final long[] UPPER_NANOS = new long[BUCKETS - 1];

    static {
        for (int i = 0; i < UPPER_NANOS.length; i++) {
            UPPER_NANOS[i] = Math.round(1_000_000.0 * Math.pow(2, i / 4.0));
        }
    }

    private static final WaitHistogram EMPTY = new WaitHistogram(new long[BUCKETS]);

    private final long[] counts;
    private final long count;

    private WaitHistogram(long[] counts) {
        this.counts = counts;
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        this.count = n;
    }

    /** A histogram of these bucket counts (copied); {@code counts.length} must be {@link #BUCKETS}. */
    public static WaitHistogram of(long[] counts) {
        if (counts.length != BUCKETS) {
            throw new IllegalArgumentException(counts.length + " buckets, expected " + BUCKETS);
        }
        for (long c : counts) {
            if (c < 0) {
                throw new IllegalArgumentException("negative bucket count " + c);
            }
        }
        return new WaitHistogram(counts.clone());
    }

    /** No delays. */
    public static WaitHistogram empty() {
        return EMPTY;
    }

    /** The counts of {@code later} minus those of {@code earlier} (two cumulative readings). */
    public static WaitHistogram difference(long[] later, long[] earlier) {
        long[] d = new long[BUCKETS];
        for (int i = 0; i < BUCKETS; i++) {
            d[i] = Math.max(0, later[i] - (earlier == null ? 0 : earlier[i]));
        }
        return new WaitHistogram(d);
    }

    /** The bucket a delay falls into. */
    public static int bucket(long nanos) {
        if (nanos <= UPPER_NANOS[0]) {
            return 0;
        }
        int i = Arrays.binarySearch(UPPER_NANOS, nanos);
        return i >= 0 ? i : Math.min(-i - 1, BUCKETS - 1);
    }

    /** The upper bound of bucket {@code i} in seconds; infinity for the last one. */
    public static double upperSeconds(int i) {
        return i >= UPPER_NANOS.length ? Double.POSITIVE_INFINITY : UPPER_NANOS[i] / 1e9;
    }

    /** The number of delays counted. */
    public long count() {
        return count;
    }

    /**
     * The {@code q} quantile in seconds (0 < q <= 1), interpolated linearly within its bucket; NaN when
     * empty. A quantile in the last, unbounded bucket is reported as that bucket's lower bound.
     */
    public double quantile(double q) {
        if (count == 0) {
            return Double.NaN;
        }
        double rank = Math.max(0, Math.min(1, q)) * count;
        long seen = 0;
        for (int i = 0; i < BUCKETS; i++) {
            long c = counts[i];
            if (c > 0 && seen + c >= rank) {
                double lower = i == 0 ? 0 : UPPER_NANOS[i - 1] / 1e9;
                if (i == BUCKETS - 1) {
                    return lower;
                }
                double upper = UPPER_NANOS[i] / 1e9;
                return lower + (upper - lower) * Math.max(0, rank - seen) / c;
            }
            seen += c;
        }
        return UPPER_NANOS[UPPER_NANOS.length - 1] / 1e9;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof WaitHistogram h && Arrays.equals(h.counts, counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts);
    }

    @Override
    public String toString() {
        return "WaitHistogram{n=" + count + ", p50=" + quantile(0.5) + ", p95=" + quantile(0.95) + "}";
    }
}

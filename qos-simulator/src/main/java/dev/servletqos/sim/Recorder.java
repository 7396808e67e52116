package dev.servletqos.sim;

import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;

/**
 * Counts what happens to each class and closes a period at every recording boundary: per-period counts,
 * the queue delays of the period (for the mean and the 95th percentile), and time integrals of the queue,
 * the permits held and the requests in the system. Also the totals over the whole run.
 */
final class Recorder {

    private final int n;
    private final ClassRun[] classes;
    private final long periodNanos;
    private final SimEngine engine;
    private final int[] policyIndex;

    // the current period
    private final long[][] counts;
    private final double[] delaySum;
    private final double[][] delays;
    private final int[] delayCount;
    private final double[] responseSum;
    private final double[] serviceSum;

    // levels and their integrals (nanosecond-requests) since the period began
    private final int[] queued;
    private final int[] holding;
    private final double[] queuedArea;
    private final double[] holdingArea;
    private long lastTouch;
    private long periodStart;

    // totals
    private final long[][] total;
    private final long[] sessionRefusals;
    private final long[] laterAdmissionRefusals;
    private final double[] totalDelay;
    private final double[] totalExpiredWait;
    private final double[] totalResponse;
    private final double[] totalService;
    private final ResponseTimes[] responses;

    // series
    private final double[][][] series;
    private int periods;

    private final double[] budget;
    private final double[] engineQueued;
    private final double[] engineExecuting;

    /** Indexes into {@link #counts} and {@link #total}. */
    private static final int ARRIVALS = 0;
    private static final int GRANTS = 1;
    private static final int COMPLETIONS = 2;
    private static final int REJECTIONS = 3;
    private static final int EXPIRATIONS = 4;
    private static final int SESSIONS_STARTED = 5;
    private static final int SESSIONS_COMPLETED = 6;
    private static final int SESSIONS_REFUSED = 7;
    private static final int SESSIONS_FAILED = 8;
    private static final int COUNTERS = 9;

    Recorder(ClassRun[] classes, long periodNanos, SimEngine engine) {
        this.n = classes.length;
        this.classes = classes;
        this.periodNanos = periodNanos;
        this.engine = engine;
        this.policyIndex = new int[n];
        for (int i = 0; i < n; i++) {
            policyIndex[i] = classes[i].policyIndex;
        }
        counts = new long[n][COUNTERS];
        total = new long[n][COUNTERS];
        delaySum = new double[n];
        delays = new double[n][64];
        delayCount = new int[n];
        responseSum = new double[n];
        serviceSum = new double[n];
        queued = new int[n];
        holding = new int[n];
        queuedArea = new double[n];
        holdingArea = new double[n];
        sessionRefusals = new long[n];
        laterAdmissionRefusals = new long[n];
        totalDelay = new double[n];
        totalExpiredWait = new double[n];
        totalResponse = new double[n];
        totalService = new double[n];
        responses = new ResponseTimes[n];
        for (int i = 0; i < n; i++) {
            responses[i] = new ResponseTimes();
        }
        series = new double[n][Metric.values().length][256];
        budget = new double[n];
        engineQueued = new double[n];
        engineExecuting = new double[n];
    }

    void arrival(int c) {
        counts[c][ARRIVALS]++;
    }

    void parked(int c, long now) {
        touch(now);
        queued[c]++;
    }

    /** A permit granted after {@code delayNanos} in the queue (0: at once). */
    void granted(int c, boolean wasParked, long delayNanos, long now) {
        touch(now);
        if (wasParked) {
            queued[c]--;
        }
        holding[c]++;
        counts[c][GRANTS]++;
        double d = delayNanos / 1e9;
        delaySum[c] += d;
        totalDelay[c] += d;
        if (delayCount[c] == delays[c].length) {
            delays[c] = Arrays.copyOf(delays[c], delayCount[c] * 2);
        }
        delays[c][delayCount[c]++] = d;
    }

    void completed(int c, long responseNanos, long serviceNanos, long now) {
        touch(now);
        holding[c]--;
        counts[c][COMPLETIONS]++;
        responseSum[c] += responseNanos / 1e9;
        serviceSum[c] += serviceNanos / 1e9;
        totalResponse[c] += responseNanos / 1e9;
        totalService[c] += serviceNanos / 1e9;
        responses[c].add(now / 1e9, responseNanos / 1e9);
    }

    /** Every completed request's response time of class {@code c}. */
    ResponseTimes responses(int c) {
        return responses[c];
    }

    void rejected(int c, Refusal why, boolean firstRequest) {
        counts[c][REJECTIONS]++;
        if (why.admission()) {
            sessionRefusals[c]++;
            if (!firstRequest) {
                laterAdmissionRefusals[c]++;
            }
        }
    }

    void expired(int c, long waitNanos, long now) {
        touch(now);
        queued[c]--;
        counts[c][EXPIRATIONS]++;
        totalExpiredWait[c] += waitNanos / 1e9;
    }

    void sessionStarted(int c) {
        counts[c][SESSIONS_STARTED]++;
    }

    void sessionCompleted(int c) {
        counts[c][SESSIONS_COMPLETED]++;
    }

    void sessionRefused(int c) {
        counts[c][SESSIONS_REFUSED]++;
    }

    void sessionFailed(int c) {
        counts[c][SESSIONS_FAILED]++;
    }

    /** Requests entered and not ended, all classes. */
    int inFlight() {
        int s = 0;
        for (int c = 0; c < n; c++) {
            s += queued[c] + holding[c];
        }
        return s;
    }

    /** Closes the period ending now. */
    void closePeriod(long now) {
        if (now <= periodStart) {
            throw new IllegalStateException("empty period ending at " + now);
        }
        touch(now);
        double span = now - periodStart;
        engine.readClasses(policyIndex, budget, engineQueued, engineExecuting);
        if (periods == series[0][0].length) {
            for (double[][] perClass : series) {
                for (int m = 0; m < perClass.length; m++) {
                    perClass[m] = Arrays.copyOf(perClass[m], periods * 2);
                }
            }
        }
        for (int c = 0; c < n; c++) {
            double[][] s = series[c];
            long[] k = counts[c];
            int p = periods;
            s[Metric.ARRIVALS.ordinal()][p] = k[ARRIVALS];
            s[Metric.GRANTS.ordinal()][p] = k[GRANTS];
            s[Metric.COMPLETIONS.ordinal()][p] = k[COMPLETIONS];
            s[Metric.REJECTIONS.ordinal()][p] = k[REJECTIONS];
            s[Metric.EXPIRATIONS.ordinal()][p] = k[EXPIRATIONS];
            s[Metric.QUEUE_DELAY_MEAN.ordinal()][p] = k[GRANTS] == 0 ? Double.NaN : delaySum[c] / k[GRANTS];
            s[Metric.QUEUE_DELAY_P95.ordinal()][p] = p95(delays[c], delayCount[c]);
            s[Metric.RESPONSE_TIME_MEAN.ordinal()][p] = k[COMPLETIONS] == 0 ? Double.NaN
                    : responseSum[c] / k[COMPLETIONS];
            s[Metric.SERVICE_TIME_MEAN.ordinal()][p] = k[COMPLETIONS] == 0 ? Double.NaN
                    : serviceSum[c] / k[COMPLETIONS];
            s[Metric.BUDGET.ordinal()][p] = budget[c];
            s[Metric.QUEUED.ordinal()][p] = engineQueued[c];
            s[Metric.EXECUTING.ordinal()][p] = engineExecuting[c];
            s[Metric.QUEUED_MEAN.ordinal()][p] = queuedArea[c] / span;
            s[Metric.BUSY_MEAN.ordinal()][p] = holdingArea[c] / span;
            s[Metric.IN_SYSTEM_MEAN.ordinal()][p] = (queuedArea[c] + holdingArea[c]) / span;
            s[Metric.SESSIONS_STARTED.ordinal()][p] = k[SESSIONS_STARTED];
            s[Metric.SESSIONS_COMPLETED.ordinal()][p] = k[SESSIONS_COMPLETED];
            s[Metric.SESSIONS_REFUSED.ordinal()][p] = k[SESSIONS_REFUSED];
            s[Metric.SESSIONS_FAILED.ordinal()][p] = k[SESSIONS_FAILED];
            s[Metric.SESSIONS_ACTIVE.ordinal()][p] = classes[c].visits;
            s[Metric.USERS.ordinal()][p] = classes[c].users;
            for (int i = 0; i < COUNTERS; i++) {
                total[c][i] += k[i];
            }
            Arrays.fill(k, 0);
            delaySum[c] = 0;
            delayCount[c] = 0;
            responseSum[c] = 0;
            serviceSum[c] = 0;
            queuedArea[c] = 0;
            holdingArea[c] = 0;
        }
        periods++;
        periodStart = now;
    }

    ClassSeries series(int c, double periodSeconds) {
        Map<Metric, double[]> m = new EnumMap<>(Metric.class);
        for (Metric metric : Metric.values()) {
            m.put(metric, series[c][metric.ordinal()]);
        }
        return new ClassSeries(classes[c].load.name(), periodSeconds, m, periods);
    }

    /** The totals of the closed periods. */
    ClassTotals totals(int c) {
        long[] t = total[c];
        return new ClassTotals(t[ARRIVALS], t[GRANTS], t[COMPLETIONS], t[REJECTIONS], sessionRefusals[c],
                laterAdmissionRefusals[c], t[EXPIRATIONS], t[SESSIONS_STARTED], t[SESSIONS_COMPLETED],
                t[SESSIONS_REFUSED], t[SESSIONS_FAILED], totalDelay[c], totalExpiredWait[c], totalResponse[c],
                totalService[c]);
    }

    long periodNanos() {
        return periodNanos;
    }

    private void touch(long now) {
        long dt = now - lastTouch;
        if (dt > 0) {
            for (int c = 0; c < n; c++) {
                queuedArea[c] += (double) queued[c] * dt;
                holdingArea[c] += (double) holding[c] * dt;
            }
            lastTouch = now;
        }
    }

    /** Nearest-rank 95th percentile; sorts the buffer's first {@code count} values. NaN when empty. */
    private static double p95(double[] values, int count) {
        if (count == 0) {
            return Double.NaN;
        }
        Arrays.sort(values, 0, count);
        int rank = (int) Math.ceil(0.95 * count);
        return values[Math.max(0, rank - 1)];
    }
}

package dev.servletqos.workload;

/**
 * What one request costs the server, in milliseconds at cost scale 1: a back-end wait (a database, a stock
 * service, a payment gateway; the worker thread is held, as with a blocking JDBC call) and CPU work of the
 * application itself. A slower back end multiplies the wait, never the CPU. Immutable.
 *
 * @param waitMillis back-end wait, 0 or more
 * @param cpuMillis  CPU time, 0 or more
 */
public record Cost(double waitMillis, double cpuMillis) {

    /** No cost. */
    public static final Cost NONE = new Cost(0, 0);

    public Cost {
        if (!(waitMillis >= 0) || Double.isInfinite(waitMillis)) {
            throw new IllegalArgumentException("waitMillis must be a finite number, 0 or more, was " + waitMillis);
        }
        if (!(cpuMillis >= 0) || Double.isInfinite(cpuMillis)) {
            throw new IllegalArgumentException("cpuMillis must be a finite number, 0 or more, was " + cpuMillis);
        }
    }

    /** Milliseconds of worker time in all, with the back end at normal speed. */
    public double millis() {
        return waitMillis + cpuMillis;
    }

    /** Milliseconds of worker time in all with the back-end wait multiplied by {@code backendFactor}. */
    public double millis(double backendFactor) {
        return waitMillis * backendFactor + cpuMillis;
    }

    /** This cost and {@code other}, added. */
    public Cost plus(Cost other) {
        return new Cost(waitMillis + other.waitMillis, cpuMillis + other.cpuMillis);
    }

    /** This cost {@code n} times. */
    public Cost times(int n) {
        return new Cost(waitMillis * n, cpuMillis * n);
    }
}

package dev.servletqos;

/**
 * The {@link Scheduler}'s measured service times (grant to completion) of the timed completions: per class (in its
 * {@link Lane}), per route ({@link Routes}) and a moving mean of all, which the queue guard reads. Guarded by the
 * scheduler's lock; not thread-safe.
 */
final class ServiceTimes {

    /** Per route, all classes: the timed completions' service time and their number. */
    final long[] routeNanos = new long[Routes.MAX];
    final long[] routeTimed = new long[Routes.MAX];
    /** Per route, a moving mean of its timed service times in ns (0: none timed yet); for the queue guard. */
    private final double[] routeServiceNanos = new double[Routes.MAX];
    /** A moving mean of the timed service times, all classes; 0 before the first. */
    double meanNanos;

    /** Counts the service time of ticket {@code t} of {@code lane}, which ends at {@code now}. */
    void timedLocked(Ticket t, Lane lane, long now) {
        timedLocked(lane, Math.max(0, now - t.timeNanos), t.route);
    }

    /** Counts a service time of {@code took} ns, at least 0, of a request of {@code lane} and {@code route}. */
    void timedLocked(Lane lane, long took, int route) {
        lane.serviceNanos += took;
        lane.serviceTimed++;
        routeNanos[route] += took;
        routeTimed[route]++;
        meanNanos = meanNanos == 0 ? took : meanNanos + (took - meanNanos) / 32;
        double mean = routeServiceNanos[route];
        routeServiceNanos[route] = mean == 0 ? took : mean + (took - mean) / 32;
    }

    /** The service time the requests waiting in {@code lanes} 0..{@code index} will take ({@link Scheduler#queuedWorkNanos}). */
    double queuedWorkNanos(Lane[] lanes, int index) {
        double work = 0;
        for (int i = 0; i <= index; i++) {
            Lane lane = lanes[i];
            int seen = 0;
            for (Ticket t = lane.head; t != null; t = t.next) {
                double mean = routeServiceNanos[t.route];
                work += mean > 0 ? mean : meanNanos;
                seen++;
            }
            work += Math.max(0, lane.queued - seen) * meanNanos;
        }
        return work;
    }
}

package dev.servletqos.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What one session does: a list of requests, each with a mean service cost (the server model draws the
 * actual time around it) and a mean think time before the next request. Think times are exponential unless
 * set otherwise. Immutable.
 */
public final class SessionProfile {

    /**
     * One request of a session.
     *
     * @param path        the path the request presents (for path rules); default {@code /}
     * @param meanService its mean service time at full backend speed
     * @param thinkAfter  the mean time the client thinks after its answer before the next request (unused
     *                    after the last request)
     */
    public record Step(String path, Duration meanService, Duration thinkAfter) {

        public Step {
            if (path == null || !path.startsWith("/")) {
                throw new IllegalArgumentException("path must start with /, was " + path);
            }
            nonNegative("meanService", meanService);
            nonNegative("thinkAfter", thinkAfter);
        }

        /** A request to {@code /}. */
        public static Step of(Duration meanService, Duration thinkAfter) {
            return new Step("/", meanService, thinkAfter);
        }
    }

    private final List<Step> steps;
    private final Distribution think;
    private final double[] service;
    private final double[] thinkAfter;

    private SessionProfile(List<Step> steps, Distribution think) {
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("a session has at least one request");
        }
        this.steps = List.copyOf(steps);
        this.think = think;
        this.service = new double[steps.size()];
        this.thinkAfter = new double[steps.size()];
        for (int i = 0; i < service.length; i++) {
            service[i] = steps.get(i).meanService().toNanos() / 1e9;
            thinkAfter[i] = steps.get(i).thinkAfter().toNanos() / 1e9;
        }
    }

    /** A session of one request (open arrivals of single requests: the M of M/M/c). */
    public static SessionProfile single(Duration meanService) {
        return steps(Step.of(meanService, Duration.ZERO));
    }

    /** {@code requests} requests of the same mean cost, separated by think times of the same mean. */
    public static SessionProfile of(int requests, Duration meanService, Duration meanThink) {
        if (requests < 1) {
            throw new IllegalArgumentException("requests must be at least 1, was " + requests);
        }
        List<Step> s = new ArrayList<>();
        for (int i = 0; i < requests; i++) {
            s.add(Step.of(meanService, meanThink));
        }
        return new SessionProfile(s, Distribution.exponential());
    }

    /** These requests in this order. */
    public static SessionProfile steps(Step... steps) {
        return new SessionProfile(List.of(steps), Distribution.exponential());
    }

    /** The same steps with think times drawn from {@code d}; default exponential. */
    public SessionProfile thinkTimes(Distribution d) {
        return new SessionProfile(steps, java.util.Objects.requireNonNull(d, "think distribution"));
    }

    public List<Step> steps() {
        return steps;
    }

    /** The number of requests. */
    public int size() {
        return steps.size();
    }

    /** The distribution of think times. */
    public Distribution thinkTimes() {
        return think;
    }

    /** The mean service cost of all requests together, in seconds. */
    public double meanWorkSeconds() {
        double w = 0;
        for (double s : service) {
            w += s;
        }
        return w;
    }

    double serviceSeconds(int step) {
        return service[step];
    }

    double thinkSeconds(int step) {
        return thinkAfter[step];
    }

    String path(int step) {
        return steps.get(step).path();
    }

    static void nonNegative(String what, Duration d) {
        if (d == null || d.isNegative()) {
            throw new IllegalArgumentException(what + " must be 0 or more, was " + d);
        }
    }

    @Override
    public String toString() {
        return "SessionProfile{" + steps.size() + " requests, " + meanWorkSeconds() + " s of work, think " + think
                + "}";
    }
}

package dev.servletqos.sim;

import java.util.random.RandomGenerator;

/**
 * A distribution of positive times (service times, think times) given its mean: each draw takes the mean
 * and a random source, so one shape serves requests of different mean cost. Implementations are immutable.
 */
@FunctionalInterface
public interface Distribution {

    /**
     * One draw.
     *
     * @param mean   the mean of the distribution, in seconds, at least 0
     * @param random the stream to draw from
     * @return a time in seconds, at least 0
     */
    double sample(double mean, RandomGenerator random);

    /** Always the mean. */
    static Distribution deterministic() {
        return Distributions.Deterministic.INSTANCE;
    }

    /** Exponential (coefficient of variation 1): memoryless, the M of M/M/c. */
    static Distribution exponential() {
        return Distributions.Exponential.INSTANCE;
    }

    /**
     * Lognormal with the given coefficient of variation (standard deviation / mean): heavy-tailed for a cv
     * above 1, as web service times are.
     *
     * @throws IllegalArgumentException if {@code cv} is not positive and finite
     */
    static Distribution lognormal(double cv) {
        return new Distributions.Lognormal(cv);
    }

    /**
     * Bounded Pareto on {@code [L, L * maxOverMin]} with shape {@code alpha}, {@code L} chosen so that the
     * mean is the requested one: a few requests cost orders of magnitude more than most.
     *
     * @throws IllegalArgumentException if {@code alpha <= 0} or {@code maxOverMin <= 1}
     */
    static Distribution boundedPareto(double alpha, double maxOverMin) {
        return new Distributions.BoundedPareto(alpha, maxOverMin);
    }
}

package dev.servletqos.sim;

import java.util.random.RandomGenerator;

/** The implementations behind {@link Distribution}'s factories. */
final class Distributions {

    private Distributions() {
    }

    enum Deterministic implements Distribution {
        INSTANCE;

        @Override
        public double sample(double mean, RandomGenerator random) {
            return mean;
        }

        @Override
        public String toString() {
            return "deterministic";
        }
    }

    enum Exponential implements Distribution {
        INSTANCE;

        @Override
        public double sample(double mean, RandomGenerator random) {
            // 1 - u lies in (0, 1], so the log is finite
            return -mean * Math.log(1.0 - random.nextDouble());
        }

        @Override
        public String toString() {
            return "exponential";
        }
    }

    static final class Lognormal implements Distribution {
        private final double cv;
        private final double sigma;
        private final double shift;

        Lognormal(double cv) {
            if (!(cv > 0) || Double.isInfinite(cv)) {
                throw new IllegalArgumentException("lognormal cv must be positive and finite, was " + cv);
            }
            this.cv = cv;
            double s2 = Math.log1p(cv * cv);
            this.sigma = Math.sqrt(s2);
            // E[exp(mu + sigma Z)] = exp(mu + s2/2): take mu = ln(mean) - s2/2 for the requested mean
            this.shift = -s2 / 2;
        }

        @Override
        public double sample(double mean, RandomGenerator random) {
            if (mean <= 0) {
                return 0;
            }
            return mean * Math.exp(shift + sigma * random.nextGaussian());
        }

        @Override
        public String toString() {
            return "lognormal(cv=" + cv + ")";
        }
    }

    static final class BoundedPareto implements Distribution {
        private final double alpha;
        private final double ratio;
        /** (L/H)^alpha with L = 1. */
        private final double tail;
        /** The mean for L = 1; draws are scaled by mean / unitMean. */
        private final double unitMean;

        BoundedPareto(double alpha, double maxOverMin) {
            if (!(alpha > 0) || !(maxOverMin > 1) || Double.isInfinite(maxOverMin)) {
                throw new IllegalArgumentException("bounded Pareto needs alpha > 0 and maxOverMin > 1, was alpha="
                        + alpha + ", maxOverMin=" + maxOverMin);
            }
            this.alpha = alpha;
            this.ratio = maxOverMin;
            this.tail = Math.pow(1 / maxOverMin, alpha);
            double h = maxOverMin;
            if (Math.abs(alpha - 1) < 1e-12) {
                this.unitMean = Math.log(h) / (1 - 1 / h);
            } else {
                this.unitMean = alpha / (alpha - 1) * (1 - Math.pow(h, 1 - alpha)) / (1 - tail);
            }
        }

        @Override
        public double sample(double mean, RandomGenerator random) {
            if (mean <= 0) {
                return 0;
            }
            double u = random.nextDouble();
            double x = Math.pow(1 - u * (1 - tail), -1 / alpha);
            return mean * x / unitMean;
        }

        @Override
        public String toString() {
            return "boundedPareto(alpha=" + alpha + ", max/min=" + ratio + ")";
        }
    }
}

package dev.servletqos.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One experiment's clients and server: the classes' loads, the server model, how long the load lasts and
 * how often the simulation records. Immutable; build with {@link #builder()}.
 *
 * <p>After {@link #duration()} no new session starts (open arrivals stop, closed users leave after their
 * current session, pending retries are dropped); sessions in progress finish, and the run ends at the first
 * recording boundary at which nothing is left in flight, or after {@link #drainLimit()}.
 */
public final class Workload {

    private final Duration duration;
    private final Duration period;
    private final Duration drainLimit;
    private final ServerModel server;
    private final List<ClassLoad> classes;

    private Workload(Builder b) {
        this.duration = b.duration;
        this.period = b.period;
        this.drainLimit = b.drainLimit;
        this.server = b.server;
        this.classes = List.copyOf(b.classes);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** How long sessions start, simulated; default 300 s. */
    public Duration duration() {
        return duration;
    }

    /** The recording period; default 1 s. */
    public Duration period() {
        return period;
    }


    /** The longest simulated time the run goes on after {@link #duration()} to let sessions finish; default 1 h. */
    public Duration drainLimit() {
        return drainLimit;
    }

    public ServerModel server() {
        return server;
    }

    /** The classes' loads, in the order given (the results keep it). */
    public List<ClassLoad> classes() {
        return classes;
    }

    /** Builds a {@link Workload}. Not thread-safe. */
    public static final class Builder {
        private Duration duration = Duration.ofSeconds(300);
        private Duration period = Duration.ofSeconds(1);
        private Duration drainLimit = Duration.ofHours(1);
        private ServerModel server = ServerModel.defaults();
        private final List<ClassLoad> classes = new ArrayList<>();

        private Builder() {
        }

        public Builder duration(Duration d) {
            this.duration = positive("duration", d);
            return this;
        }

        public Builder period(Duration d) {
            this.period = positive("period", d);
            return this;
        }


        public Builder drainLimit(Duration d) {
            SessionProfile.nonNegative("drainLimit", d);
            this.drainLimit = d;
            return this;
        }

        public Builder server(ServerModel s) {
            this.server = Objects.requireNonNull(s, "server");
            return this;
        }

        public Builder add(ClassLoad c) {
            classes.add(Objects.requireNonNull(c, "class load"));
            return this;
        }

        /**
         * @throws IllegalArgumentException without classes, with two of one name, or with a duration that is
         *                                  not a whole number of periods
         */
        public Workload build() {
            if (classes.isEmpty()) {
                throw new IllegalArgumentException("a workload needs at least one class");
            }
            Set<String> names = new HashSet<>();
            for (ClassLoad c : classes) {
                if (!names.add(c.name())) {
                    throw new IllegalArgumentException("class " + c.name() + " listed twice");
                }
            }
            if (duration.toNanos() % period.toNanos() != 0) {
                throw new IllegalArgumentException("duration " + duration + " is not a whole number of periods ("
                        + period + ")");
            }
            return new Workload(this);
        }

        private static Duration positive(String what, Duration d) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, was " + d);
            }
            return d;
        }
    }
}

package dev.servletqos.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The clients of one service class: either <em>open</em> (sessions arrive as a Poisson process whose rate
 * follows a {@link Rate}: constant, steps, ramps), or <em>closed</em> (a population of users, each running
 * sessions back to back with a think time in between, as SURGE's user equivalents in paper 001; the
 * population can change at given times). Every request presents the header {@link SimEngine#CLASS_HEADER}
 * with the class's header value (default: its name), which the test policy maps to a class, and, once the
 * session was admitted, the engine's admission cookie.
 *
 * <p>A session whose first request is refused at entry ends there; it is tried again after a delay up to
 * {@link #retries} times (default 0). A session with a later request refused or expired, or whose first
 * request expired in the queue, fails and ends. Immutable.
 */
public final class ClassLoad {

    /** A change of a closed class's population at a time. */
    public record PopulationChange(Duration at, int users) {
    }

    private final String name;
    private final String header;
    private final Rate rate;
    private final int users;
    private final List<PopulationChange> changes;
    private final Duration thinkBetweenSessions;
    private final SessionProfile session;
    private final int retries;
    private final Duration retryDelay;
    private final String host;

    private ClassLoad(String name, String header, Rate rate, int users, List<PopulationChange> changes,
                      Duration thinkBetweenSessions, SessionProfile session, int retries, Duration retryDelay) {
        this(name, header, rate, users, changes, thinkBetweenSessions, session, retries, retryDelay, "localhost");
    }

    private ClassLoad(String name, String header, Rate rate, int users, List<PopulationChange> changes,
                      Duration thinkBetweenSessions, SessionProfile session, int retries, Duration retryDelay,
                      String host) {
        this.name = name;
        this.header = header;
        this.rate = rate;
        this.users = users;
        this.changes = List.copyOf(changes);
        this.thinkBetweenSessions = thinkBetweenSessions;
        this.session = session;
        this.retries = retries;
        this.retryDelay = retryDelay;
        this.host = host;
    }

    /** The Host the requests are sent to (for virtual servers); default {@code localhost}. */
    public ClassLoad host(String h) {
        return new ClassLoad(name, header, rate, users, changes, thinkBetweenSessions, session, retries, retryDelay,
                Objects.requireNonNull(h, "host"));
    }

    public String host() {
        return host;
    }

    /**
     * Open arrivals: new sessions at {@code sessionsPerSecond} (Poisson), one request of 100 ms each until
     * {@link #session} says otherwise.
     */
    public static ClassLoad open(String name, Rate sessionsPerSecond) {
        return new ClassLoad(checkName(name), name, Objects.requireNonNull(sessionsPerSecond, "rate"), 0,
                List.of(), Duration.ZERO, SessionProfile.single(Duration.ofMillis(100)), 0, Duration.ofSeconds(10));
    }

    /** Open arrivals at a constant rate. */
    public static ClassLoad open(String name, double sessionsPerSecond) {
        return open(name, Rate.constant(sessionsPerSecond));
    }

    /**
     * A closed population of {@code users} users, each running sessions back to back with an exponential
     * think time between sessions (default 1 s, see {@link #thinkBetweenSessions}).
     */
    public static ClassLoad closed(String name, int users) {
        if (users < 0) {
            throw new IllegalArgumentException("users must be 0 or more, was " + users);
        }
        return new ClassLoad(checkName(name), name, null, users, List.of(), Duration.ofSeconds(1),
                SessionProfile.single(Duration.ofMillis(100)), 0, Duration.ofSeconds(10));
    }

    /** The sessions this class's clients run; default one request of 100 ms mean service. */
    public ClassLoad session(SessionProfile s) {
        return new ClassLoad(name, header, rate, users, changes, thinkBetweenSessions, Objects.requireNonNull(s),
                retries, retryDelay, host);
    }

    /** The value of {@link SimEngine#CLASS_HEADER} the requests carry; default the class name. */
    public ClassLoad header(String value) {
        return new ClassLoad(name, Objects.requireNonNull(value), rate, users, changes, thinkBetweenSessions,
                session, retries, retryDelay, host);
    }

    /** Closed classes: the mean (exponential) time a user waits between two sessions; default 1 s. */
    public ClassLoad thinkBetweenSessions(Duration mean) {
        SessionProfile.nonNegative("thinkBetweenSessions", mean);
        return new ClassLoad(name, header, rate, users, changes, mean, session, retries, retryDelay, host);
    }

    /**
     * Closed classes: from {@code at} on the population is {@code users}. New users start after a think time;
     * when it shrinks, users leave as they finish their current session. Changes are given in time order.
     */
    public ClassLoad populationAt(Duration at, int users) {
        if (rate != null) {
            throw new IllegalStateException(name + " is an open class: it has a rate, not a population");
        }
        if (users < 0 || at.isNegative()) {
            throw new IllegalArgumentException("population change needs users >= 0 and a time >= 0, was "
                    + users + " at " + at);
        }
        if (!changes.isEmpty() && at.compareTo(changes.get(changes.size() - 1).at()) < 0) {
            throw new IllegalArgumentException("population changes must be given in time order");
        }
        List<PopulationChange> c = new ArrayList<>(changes);
        c.add(new PopulationChange(at, users));
        return new ClassLoad(name, header, rate, this.users, c, thinkBetweenSessions, session, retries, retryDelay,
                host);
    }

    /**
     * A session refused at its first request is tried again up to {@code times} times, each after an
     * exponential delay of mean {@code meanDelay}; default 0 times.
     */
    public ClassLoad retries(int times, Duration meanDelay) {
        if (times < 0) {
            throw new IllegalArgumentException("retries must be 0 or more, was " + times);
        }
        SessionProfile.nonNegative("retry delay", meanDelay);
        return new ClassLoad(name, header, rate, users, changes, thinkBetweenSessions, session, times, meanDelay,
                host);
    }

    public String name() {
        return name;
    }

    public String header() {
        return header;
    }

    /** Whether the class is a closed population (else open arrivals). */
    public boolean closed() {
        return rate == null;
    }

    /** The session arrival rate of an open class; null for a closed one. */
    public Rate rate() {
        return rate;
    }

    /** The initial population of a closed class; 0 for an open one. */
    public int users() {
        return users;
    }

    public List<PopulationChange> populationChanges() {
        return changes;
    }

    public Duration thinkBetweenSessions() {
        return thinkBetweenSessions;
    }

    public SessionProfile session() {
        return session;
    }

    public int retries() {
        return retries;
    }

    public Duration retryDelay() {
        return retryDelay;
    }

    private static String checkName(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("a class load needs a name");
        }
        return name;
    }

    @Override
    public String toString() {
        return "ClassLoad{" + name + (closed() ? ", closed " + users + " users " + changes : ", open " + rate)
                + ", " + session + "}";
    }
}

package dev.servletqos.workload;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A session workload as plain data: the kinds of users and their shares of the new sessions, the steps one
 * session takes (pages, think times, what each costs the server), the catalogue the visit browses, and the
 * client's patience. It says nothing about arrivals over time (a load profile's business) nor about HTTP or a
 * load tool, so that the demo's generator, the Gatling simulation and the simulator read the same session from
 * it. {@link ShopWorkload#SHOP} is the sample shop's. Immutable and thread-safe.
 *
 * @param classes        the user classes, highest priority first; their shares add up to 1
 * @param steps          the steps of one session, in order; at least one
 * @param catalog        the catalogue the {@code {page}} and {@code {item}} placeholders draw from
 * @param clientTimeout  how long a user waits for each answer; a session completes only if every request is
 *                       answered 2xx within it (paper 004's client timeout)
 * @param returningUsers how many returning users there are (each holds a tier cookie from an earlier visit)
 */
public record Workload(List<UserClass> classes, List<Step> steps, Catalog catalog, Duration clientTimeout,
                       int returningUsers) {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([a-z]+)}");
    private static final List<String> PLACEHOLDERS = List.of("class", "page", "item");

    public Workload {
        classes = List.copyOf(classes);
        steps = List.copyOf(steps);
        Objects.requireNonNull(catalog, "catalog");
        Objects.requireNonNull(clientTimeout, "clientTimeout");
        if (classes.isEmpty()) {
            throw new IllegalArgumentException("a workload needs at least one user class");
        }
        double sum = 0;
        for (UserClass c : classes) {
            sum += c.share();
        }
        if (Math.abs(sum - 1) > 1e-9) {
            throw new IllegalArgumentException("the user classes' shares must add up to 1, they add up to " + sum);
        }
        if (steps.isEmpty()) {
            throw new IllegalArgumentException("a workload needs at least one step");
        }
        for (Step s : steps) {
            Matcher m = PLACEHOLDER.matcher(s.page().path());
            while (m.find()) {
                if (!PLACEHOLDERS.contains(m.group(1))) {
                    throw new IllegalArgumentException("page " + s.page().name() + ": unknown placeholder {"
                            + m.group(1) + "} in " + s.page().path() + " (known: " + PLACEHOLDERS + ")");
                }
            }
        }
        if (clientTimeout.isNegative() || clientTimeout.isZero()) {
            throw new IllegalArgumentException("clientTimeout must be positive, was " + clientTimeout);
        }
        if (returningUsers < 1) {
            throw new IllegalArgumentException("returningUsers must be at least 1, was " + returningUsers);
        }
    }

    /** The user class of this name, or null. */
    public UserClass userClass(String name) {
        for (UserClass c : classes) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** The names of the user classes, in order. */
    public List<String> classNames() {
        return classes.stream().map(UserClass::name).toList();
    }

    /**
     * The class of a new session for a uniform draw {@code u} in [0, 1): the classes' shares laid end to end,
     * in order (with premium first at 0.2, {@code u < 0.2} is premium).
     */
    public UserClass draw(double u) {
        double end = 0;
        for (UserClass c : classes) {
            end += c.share();
            if (u < end) {
                return c;
            }
        }
        return classes.get(classes.size() - 1);
    }

    /** Requests one session sends at full content (or degraded): its steps and what their pages embed. */
    public int requests(boolean degradedContent) {
        int n = 0;
        for (Step s : steps) {
            n += s.page().requests(degradedContent);
        }
        return n;
    }

    /** The worker time one session costs the server at full content (or degraded), at cost scale 1. */
    public Cost cost(boolean degradedContent) {
        Cost c = Cost.NONE;
        for (Step s : steps) {
            c = c.plus(s.page().cost(degradedContent));
        }
        return c;
    }

    /** The think time of one session, all steps. */
    public Duration thinkTime() {
        Duration d = Duration.ZERO;
        for (Step s : steps) {
            d = d.plus(s.thinkTime());
        }
        return d;
    }

    /**
     * Sessions per second a server completes at full content when {@code concurrency} requests execute at once
     * and each session holds a worker for {@link #cost(boolean) its cost} times {@code scale}, with back-end
     * waits multiplied by {@code backendFactor}.
     */
    public double capacity(int concurrency, double scale, double backendFactor) {
        return concurrency * 1000.0 / (scale * cost(false).millis(backendFactor));
    }

    /**
     * Plans one session of a user of class {@code userClass}: which returning user it is (if its class is
     * returning), which catalogue page it browses, and the path of every step, drawing from {@code random} in
     * that order ({@code {item}} draws a product of the browsed page each time it occurs).
     */
    public Visit plan(UserClass userClass, Random random) {
        int user = userClass.returning() ? random.nextInt(returningUsers) : -1;
        int page = 1 + random.nextInt(catalog.pages());
        List<Visit.Call> calls = new ArrayList<>(steps.size());
        for (Step s : steps) {
            Matcher m = PLACEHOLDER.matcher(s.page().path());
            StringBuilder path = new StringBuilder();
            while (m.find()) {
                String value = switch (m.group(1)) {
                    case "class" -> userClass.name();
                    case "page" -> Integer.toString(page);
                    case "item" -> Integer.toString((page - 1) * catalog.pageSize() + 1
                            + random.nextInt(catalog.pageSize()));
                    default -> throw new IllegalStateException(m.group(1)); // checked in the constructor
                };
                m.appendReplacement(path, Matcher.quoteReplacement(value));
            }
            m.appendTail(path);
            calls.add(new Visit.Call(s, path.toString()));
        }
        return new Visit(userClass, user, calls);
    }
}

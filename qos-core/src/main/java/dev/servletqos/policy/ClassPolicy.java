package dev.servletqos.policy;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of one service class. Immutable; build with {@link #named(String)} and the {@code with}
 * methods, or through {@link QosPolicy.Builder#addClass(ClassPolicy)}. A setting left unset takes its
 * default when the whole {@link QosPolicy} is built (some defaults depend on the policy, e.g. the budget
 * defaults to {@code max-executing}).
 *
 * <p>Property keys in the policy file: {@code class.<name>.<key>}, listed in {@code docs/configuration.md}.
 */
public final class ClassPolicy {

    /** Not set: the default applies. Not -1, so that a configured -1 is reported rather than taken for unset. */
    static final int UNSET = Integer.MIN_VALUE;

    /** The longest class name, in characters. */
    public static final int MAX_NAME_LENGTH = 32;

    private final String name;
    private final int budget;
    private final int minBudget;
    private final int weight;
    private final int reserve;
    private final int maxQueue;
    private final Duration maxWait;
    private final Duration delayTarget;
    private final double sessionRate;
    private final int sessionBurst;
    private final int totalQueuedTrigger;
    private final int higherQueuedTrigger;

    private ClassPolicy(String name, int budget, int minBudget, int weight, int reserve, int maxQueue,
                        Duration maxWait, Duration delayTarget, double sessionRate, int sessionBurst,
                        int totalQueuedTrigger, int higherQueuedTrigger) {
        this.name = name;
        this.budget = budget;
        this.minBudget = minBudget;
        this.weight = weight;
        this.reserve = reserve;
        this.maxQueue = maxQueue;
        this.maxWait = maxWait;
        this.delayTarget = delayTarget;
        this.sessionRate = sessionRate;
        this.sessionBurst = sessionBurst;
        this.totalQueuedTrigger = totalQueuedTrigger;
        this.higherQueuedTrigger = higherQueuedTrigger;
    }

    /**
     * A class with every setting unset (defaults apply when the policy is built).
     *
     * @throws IllegalArgumentException if the name is not 1 to 32 letters, digits, '-' or '_'
     */
    public static ClassPolicy named(String name) {
        if (!isValidName(name)) {
            throw new IllegalArgumentException("class name \"" + name
                    + "\": must be 1 to 32 letters, digits, '-' or '_'");
        }
        return new ClassPolicy(name, UNSET, UNSET, UNSET, UNSET, UNSET, null, null, Double.NaN, UNSET,
                UNSET, UNSET);
    }

    /**
     * Whether {@code name} is a service class name: 1 to {@value #MAX_NAME_LENGTH} ASCII letters, digits,
     * {@code '-'} or {@code '_'}. The one rule for class names: the signed cookies carry the class, and their
     * format relies on this alphabet being the base64url alphabet.
     */
    public static boolean isValidName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME_LENGTH) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-'
                    || c == '_')) {
                return false;
            }
        }
        return true;
    }

    /** The class name, as used in rules, cookies, meters and JMX. */
    public String name() {
        return name;
    }

    /** Concurrency permits of this class ({@code budget}); default {@code max-executing}; 0..max-executing. */
    public int budget() {
        return budget;
    }

    /** Lowest budget a controller may set ({@code min-budget}), against starvation; default 1. */
    public int minBudget() {
        return minBudget;
    }

    /** Share under the weighted policy ({@code weight}); default 1; 1..1000. */
    public int weight() {
        return weight;
    }

    /** Permits kept for this class and never lent to others ({@code reserve}); default 0; at most the budget. */
    public int reserve() {
        return reserve;
    }

    /** Longest queue of waiting requests ({@code max-queue}); default 100; a full queue answers 503. */
    public int maxQueue() {
        return maxQueue;
    }

    /** Longest time a request may wait for a permit ({@code max-wait}); default 10 s; then 503. */
    public Duration maxWait() {
        return maxWait;
    }

    /** Delay target ({@code delay-target}): the EDF deadline and the controller's goal; default 1 s. */
    public Duration delayTarget() {
        return delayTarget;
    }

    /** New sessions admitted per second ({@code session-rate}); default 0, meaning no rate limit. */
    public double sessionRate() {
        return sessionRate;
    }

    /** Token bucket depth for new sessions ({@code session-burst}); default max(1, ceil(rate)). */
    public int sessionBurst() {
        return sessionBurst;
    }

    /**
     * WebQoS trigger j ({@code admission.total-queued}): refuse new sessions of this class while at least
     * this many requests are queued in all classes; 0 = off. Default: the policy-wide value, except for the
     * highest class, for which it is off.
     */
    public int totalQueuedTrigger() {
        return totalQueuedTrigger;
    }

    /**
     * WebQoS trigger k ({@code admission.higher-queued}): refuse new sessions of this class while at least
     * this many requests of higher classes are queued; 0 = off. Default: the policy-wide value (never
     * applies to the highest class).
     */
    public int higherQueuedTrigger() {
        return higherQueuedTrigger;
    }

    public ClassPolicy withBudget(int v) {
        return new ClassPolicy(name, v, minBudget, weight, reserve, maxQueue, maxWait, delayTarget,
                sessionRate, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withMinBudget(int v) {
        return new ClassPolicy(name, budget, v, weight, reserve, maxQueue, maxWait, delayTarget,
                sessionRate, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withWeight(int v) {
        return new ClassPolicy(name, budget, minBudget, v, reserve, maxQueue, maxWait, delayTarget,
                sessionRate, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withReserve(int v) {
        return new ClassPolicy(name, budget, minBudget, weight, v, maxQueue, maxWait, delayTarget,
                sessionRate, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withMaxQueue(int v) {
        return new ClassPolicy(name, budget, minBudget, weight, reserve, v, maxWait, delayTarget,
                sessionRate, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withMaxWait(Duration v) {
        return new ClassPolicy(name, budget, minBudget, weight, reserve, maxQueue, v, delayTarget,
                sessionRate, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withDelayTarget(Duration v) {
        return new ClassPolicy(name, budget, minBudget, weight, reserve, maxQueue, maxWait, v,
                sessionRate, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withSessionRate(double perSecond) {
        return new ClassPolicy(name, budget, minBudget, weight, reserve, maxQueue, maxWait, delayTarget,
                perSecond, sessionBurst, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withSessionBurst(int v) {
        return new ClassPolicy(name, budget, minBudget, weight, reserve, maxQueue, maxWait, delayTarget,
                sessionRate, v, totalQueuedTrigger, higherQueuedTrigger);
    }

    public ClassPolicy withTotalQueuedTrigger(int v) {
        return new ClassPolicy(name, budget, minBudget, weight, reserve, maxQueue, maxWait, delayTarget,
                sessionRate, sessionBurst, v, higherQueuedTrigger);
    }

    public ClassPolicy withHigherQueuedTrigger(int v) {
        return new ClassPolicy(name, budget, minBudget, weight, reserve, maxQueue, maxWait, delayTarget,
                sessionRate, sessionBurst, totalQueuedTrigger, v);
    }

    /** Fills unset settings from the policy-wide defaults and checks ranges; messages name the key. */
    ClassPolicy resolve(int index, int maxExecuting, int policyTotalQueued, int policyHigherQueued) {
        String k = "class." + name + ".";
        int b = budget == UNSET ? maxExecuting : budget;
        check(b >= 0 && b <= maxExecuting, k + "budget", b, "must be 0.." + maxExecuting + " (max-executing)");
        int mb = minBudget == UNSET ? Math.min(1, b) : minBudget;
        check(mb >= 0 && mb <= b, k + "min-budget", mb, "must be 0.." + b + " (the class's budget)");
        int w = weight == UNSET ? 1 : weight;
        check(w >= 1 && w <= 1000, k + "weight", w, "must be 1..1000");
        int r = reserve == UNSET ? 0 : reserve;
        check(r >= 0 && r <= b, k + "reserve", r, "must be 0.." + b + " (the class's budget)");
        int q = maxQueue == UNSET ? 100 : maxQueue;
        check(q >= 0 && q <= 1_000_000, k + "max-queue", q, "must be 0..1000000");
        Duration mw = maxWait == null ? Duration.ofSeconds(10) : maxWait;
        check(!mw.isNegative() && !mw.isZero() && mw.compareTo(Duration.ofHours(1)) <= 0, k + "max-wait", mw,
                "must be more than 0 and at most 1h");
        Duration dt = delayTarget == null ? Duration.ofSeconds(1) : delayTarget;
        check(!dt.isNegative() && !dt.isZero() && dt.compareTo(Duration.ofHours(1)) <= 0, k + "delay-target", dt,
                "must be more than 0 and at most 1h");
        double rate = Double.isNaN(sessionRate) ? 0 : sessionRate;
        check(rate >= 0 && rate <= 1e9 && !Double.isInfinite(rate), k + "session-rate", rate,
                "must be 0 (no limit) or a positive number of sessions per second");
        int burst = sessionBurst == UNSET ? (int) Math.max(1, Math.ceil(rate)) : sessionBurst;
        check(burst >= 1 && burst <= 1_000_000, k + "session-burst", burst, "must be 1..1000000");
        int j = totalQueuedTrigger != UNSET ? totalQueuedTrigger : (index == 0 ? 0 : policyTotalQueued);
        check(j >= 0, k + "admission.total-queued", j, "must be 0 (off) or more");
        int kk = higherQueuedTrigger != UNSET ? higherQueuedTrigger : (index == 0 ? 0 : policyHigherQueued);
        check(kk >= 0, k + "admission.higher-queued", kk, "must be 0 (off) or more");
        check(index > 0 || kk == 0, k + "admission.higher-queued", kk,
                "the highest class has no higher class; leave it unset or 0");
        return new ClassPolicy(name, b, mb, w, r, q, mw, dt, rate, burst, j, kk);
    }

    static void check(boolean ok, String key, Object value, String reason) {
        if (!ok) {
            throw new PolicyException(key, String.valueOf(value), reason);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ClassPolicy)) {
            return false;
        }
        ClassPolicy c = (ClassPolicy) o;
        return name.equals(c.name) && budget == c.budget && minBudget == c.minBudget && weight == c.weight
                && reserve == c.reserve && maxQueue == c.maxQueue && Objects.equals(maxWait, c.maxWait)
                && Objects.equals(delayTarget, c.delayTarget)
                && Double.compare(sessionRate, c.sessionRate) == 0 && sessionBurst == c.sessionBurst
                && totalQueuedTrigger == c.totalQueuedTrigger && higherQueuedTrigger == c.higherQueuedTrigger;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, budget, weight, maxQueue, maxWait);
    }

    @Override
    public String toString() {
        return "ClassPolicy{" + name + ", budget=" + budget + ", minBudget=" + minBudget + ", weight=" + weight
                + ", reserve=" + reserve + ", maxQueue=" + maxQueue + ", maxWait=" + maxWait
                + ", delayTarget=" + delayTarget + ", sessionRate=" + sessionRate + ", sessionBurst="
                + sessionBurst + ", j=" + totalQueuedTrigger + ", k=" + higherQueuedTrigger + "}";
    }
}

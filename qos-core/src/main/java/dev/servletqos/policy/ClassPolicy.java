package dev.servletqos.policy;

import java.time.Duration;
import java.util.Objects;

/**
 * The settings of one service class, grouped by what they govern: its {@link Capacity} (permits), its
 * {@link Queue}, its {@link Delay} target, its session {@link Admission} and its {@link Content} levels.
 * Immutable; build with {@link #named(String)} and the {@code with} methods, or through
 * {@link QosPolicy.Builder#addClass(ClassPolicy)}.
 *
 * <p>A setting left unset takes its default when the whole {@link QosPolicy} is built (some defaults depend on
 * the policy, e.g. the budget defaults to {@code max-executing}); the classes of a built policy have every
 * setting resolved. Before that, an unset integer reads as {@link Integer#MIN_VALUE}, an unset duration as
 * null and an unset rate as NaN; -1 is not "unset", so a configured -1 is reported rather than ignored.
 *
 * <p>Property keys in the policy file: {@code class.<name>.<key>}, listed in {@code docs/configuration.md}.
 * A new per-class key is a component of one of the five records and one row of the key table.
 *
 * @param name      the class name, as used in rules, cookies, meters and JMX
 * @param capacity  budget, minimum budget, reserve and weight
 * @param queue     longest queue and longest wait
 * @param delay     the delay target
 * @param admission session rate and burst, WebQoS triggers j and k
 * @param content   the number of content levels
 */
public record ClassPolicy(String name, Capacity capacity, Queue queue, Delay delay, Admission admission,
                          Content content) {

    /** Not set: the default applies. Not -1, so that a configured -1 is reported rather than taken for unset. */
    static final int UNSET = Integer.MIN_VALUE;

    /** The longest class name, in characters. */
    public static final int MAX_NAME_LENGTH = 32;

    /**
     * Concurrency permits.
     *
     * @param budget    requests of this class executing at once on its own permits ({@code budget}); default
     *                  {@code max-executing}; 0..max-executing
     * @param minBudget the lowest budget a controller may set ({@code min-budget}), against starvation; default
     *                  1 (0 if the budget is 0); 0..budget
     * @param reserve   permits kept for this class and never lent to others ({@code reserve}); default 0,
     *                  but {@link QosPolicy#DEFAULT_TOP_RESERVE} for the highest class of two or more (see
     *                  {@link QosPolicy#defaultTopReserve()}); 0..budget
     * @param weight    share under the weighted policy ({@code weight}); default 1; 1..1000
     */
    public record Capacity(int budget, int minBudget, int reserve, int weight) {

        static final Capacity UNSET = new Capacity(ClassPolicy.UNSET, ClassPolicy.UNSET, ClassPolicy.UNSET,
                ClassPolicy.UNSET);





        Capacity resolve(String k, int maxExecuting) {
            int b = budget == ClassPolicy.UNSET ? maxExecuting : budget;
            check(b >= 0 && b <= maxExecuting, k + "budget", b, "must be 0.." + maxExecuting + " (max-executing)");
            int mb = minBudget == ClassPolicy.UNSET ? Math.min(1, b) : minBudget;
            check(mb >= 0 && mb <= b, k + "min-budget", mb, "must be 0.." + b + " (the class's budget)");
            int w = weight == ClassPolicy.UNSET ? 1 : weight;
            check(w >= 1 && w <= 1000, k + "weight", w, "must be 1..1000");
            int r = reserve == ClassPolicy.UNSET ? 0 : reserve;
            check(r >= 0 && r <= b, k + "reserve", r, "must be 0.." + b + " (the class's budget)");
            return new Capacity(b, mb, r, w);
        }
    }

    /**
     * The class's queue of waiting requests.
     *
     * @param maxQueue longest queue ({@code max-queue}); default 1000; 0..1000000; a full queue answers 503
     * @param maxWait  longest time a request may wait for a permit ({@code max-wait}); default 10 s; more than
     *                 0, at most 1 h; then 503
     */
    public record Queue(int maxQueue, Duration maxWait) {

        static final Queue UNSET = new Queue(ClassPolicy.UNSET, null);



        Queue resolve(String k) {
            int q = maxQueue == ClassPolicy.UNSET ? 1000 : maxQueue;
            check(q >= 0 && q <= 1_000_000, k + "max-queue", q, "must be 0..1000000");
            Duration mw = maxWait == null ? Duration.ofSeconds(10) : maxWait;
            check(!mw.isNegative() && !mw.isZero() && mw.compareTo(Duration.ofHours(1)) <= 0, k + "max-wait", mw,
                    "must be more than 0 and at most 1h");
            return new Queue(q, mw);
        }
    }

    /**
     * The class's delay target.
     *
     * @param target the target queueing delay ({@code delay-target}): the deadline under earliest-deadline
     *               scheduling and the delay controller's reference; default 1 s; more than 0, at most 1 h
     */
    public record Delay(Duration target) {

        static final Delay UNSET = new Delay(null);


        Delay resolve(String k) {
            Duration dt = target == null ? Duration.ofSeconds(1) : target;
            check(!dt.isNegative() && !dt.isZero() && dt.compareTo(Duration.ofHours(1)) <= 0, k + "delay-target",
                    dt, "must be more than 0 and at most 1h");
            return new Delay(dt);
        }
    }

    /**
     * Admission of new sessions of this class.
     *
     * @param sessionRate         new sessions admitted per second ({@code session-rate}); default 0, meaning no
     *                            rate limit; 0..1e9
     * @param sessionBurst        token bucket depth for new sessions ({@code session-burst}); default
     *                            max(1, ceil(rate)); 1..1000000
     * @param totalQueuedTrigger  WebQoS trigger j ({@code admission.total-queued}): refuse new sessions of this
     *                            class while at least this many requests are queued in all classes; 0 = off.
     *                            Default: the policy-wide value, except for the highest class, for which it is
     *                            off
     * @param higherQueuedTrigger WebQoS trigger k ({@code admission.higher-queued}): refuse new sessions of this
     *                            class while at least this many requests of higher classes are queued; 0 = off.
     *                            Default: the policy-wide value (never applies to the highest class)
     * @param clusterSessionRate  new sessions of the class admitted per second over every node of a cluster
     *                            ({@code cluster-session-rate}, docs/cluster.md); default 0: no cluster cap; 0..1e9
     */
    public record Admission(double sessionRate, int sessionBurst, int totalQueuedTrigger, int higherQueuedTrigger,
                            double clusterSessionRate) {

        static final Admission UNSET = new Admission(Double.NaN, ClassPolicy.UNSET, ClassPolicy.UNSET,
                ClassPolicy.UNSET, 0);





        /** The session bucket's depth: {@code given}, else (when {@link ClassPolicy#UNSET}) the rate rounded up. */
        static int burstFor(double rate, int given) {
            return given != ClassPolicy.UNSET ? given : (int) Math.max(1, Math.ceil(rate));
        }

        Admission resolve(String k, int index, int policyTotalQueued, int policyHigherQueued) {
            double rate = Double.isNaN(sessionRate) ? 0 : sessionRate;
            check(rate >= 0 && rate <= 1e9 && !Double.isInfinite(rate), k + "session-rate", rate,
                    "must be 0 (no limit) or a positive number of sessions per second");
            int burst = burstFor(rate, sessionBurst);
            check(burst >= 1 && burst <= 1_000_000, k + "session-burst", burst, "must be 1..1000000");
            int j = totalQueuedTrigger != ClassPolicy.UNSET ? totalQueuedTrigger
                    : (index == 0 ? 0 : policyTotalQueued);
            check(j >= 0, k + "admission.total-queued", j, "must be 0 (off) or more");
            int kk = higherQueuedTrigger != ClassPolicy.UNSET ? higherQueuedTrigger
                    : (index == 0 ? 0 : policyHigherQueued);
            check(kk >= 0, k + "admission.higher-queued", kk, "must be 0 (off) or more");
            check(index > 0 || kk == 0, k + "admission.higher-queued", kk,
                    "the highest class has no higher class; leave it unset or 0");
            check(clusterSessionRate >= 0 && clusterSessionRate <= 1e9, k + "cluster-session-rate",
                    clusterSessionRate, "must be 0 (no cluster cap) or new sessions per second over the cluster, "
                    + "at most 1e9");
            return new Admission(rate, burst, j, kk, clusterSessionRate);
        }
    }

    /**
     * The content levels the application can serve this class at (paper 000 section 4.2): level 0 means the
     * request is refused, level {@code levels} is full content, the levels between are lighter content. The
     * engine decides a request's level from the class's live fractional level ({@code Settings}).
     *
     * @param levels the number of content levels above "refuse" ({@code levels}), M; default 1 (full content
     *               only); {@value #MAX_LEVELS} at most
     */
    public record Content(int levels) {

        /** The most content levels a class may have. */
        public static final int MAX_LEVELS = 16;

        static final Content UNSET = new Content(ClassPolicy.UNSET);

        Content resolve(String k) {
            int m = levels == ClassPolicy.UNSET ? 1 : levels;
            check(m >= 1 && m <= MAX_LEVELS, k + "levels", m, "must be 1.." + MAX_LEVELS);
            return new Content(m);
        }
    }

    /**
     * @throws IllegalArgumentException if the name is not 1 to 32 letters, digits, '-' or '_'
     * @throws NullPointerException     if a group is null
     */
    public ClassPolicy {
        if (!isValidName(name)) {
            throw new IllegalArgumentException("class name \"" + name
                    + "\": must be 1 to " + MAX_NAME_LENGTH + " letters, digits, '-' or '_'");
        }
        Objects.requireNonNull(capacity, "capacity");
        Objects.requireNonNull(queue, "queue");
        Objects.requireNonNull(delay, "delay");
        Objects.requireNonNull(admission, "admission");
        Objects.requireNonNull(content, "content");
    }

    /**
     * A class with every setting unset (defaults apply when the policy is built).
     *
     * @throws IllegalArgumentException if the name is not 1 to 32 letters, digits, '-' or '_'
     */
    public static ClassPolicy named(String name) {
        return new ClassPolicy(name, Capacity.UNSET, Queue.UNSET, Delay.UNSET, Admission.UNSET, Content.UNSET);
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
            if (!isNameChar(name.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** A character of a class name: an ASCII letter or digit, '-' or '_' (cookie names also allow '.'). */
    static boolean isNameChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
    }

    // ---- one setting at a time, for code that builds a policy

    /** {@code budget}: see {@link Capacity#budget()}. */
    public ClassPolicy withBudget(int v) {
        return withCapacity(new Capacity(v, capacity.minBudget(), capacity.reserve(), capacity.weight()));
    }

    /** {@code min-budget}: see {@link Capacity#minBudget()}. */
    public ClassPolicy withMinBudget(int v) {
        return withCapacity(new Capacity(capacity.budget(), v, capacity.reserve(), capacity.weight()));
    }

    /** {@code reserve}: see {@link Capacity#reserve()}. */
    public ClassPolicy withReserve(int v) {
        return withCapacity(new Capacity(capacity.budget(), capacity.minBudget(), v, capacity.weight()));
    }

    /** {@code weight}: see {@link Capacity#weight()}. */
    public ClassPolicy withWeight(int v) {
        return withCapacity(new Capacity(capacity.budget(), capacity.minBudget(), capacity.reserve(), v));
    }

    /** {@code max-queue}: see {@link Queue#maxQueue()}. */
    public ClassPolicy withMaxQueue(int v) {
        return new ClassPolicy(name, capacity, new Queue(v, queue.maxWait()), delay, admission, content);
    }

    /** {@code max-wait}: see {@link Queue#maxWait()}. */
    public ClassPolicy withMaxWait(Duration v) {
        return new ClassPolicy(name, capacity, new Queue(queue.maxQueue(), v), delay, admission, content);
    }

    /** {@code delay-target}: see {@link Delay#target()}. */
    public ClassPolicy withDelayTarget(Duration v) {
        return new ClassPolicy(name, capacity, queue, new Delay(v), admission, content);
    }

    /** {@code session-rate}: see {@link Admission#sessionRate()}. */
    public ClassPolicy withSessionRate(double perSecond) {
        return withAdmission(new Admission(perSecond, admission.sessionBurst(), admission.totalQueuedTrigger(),
                admission.higherQueuedTrigger(), admission.clusterSessionRate()));
    }

    /** {@code session-burst}: see {@link Admission#sessionBurst()}. */
    public ClassPolicy withSessionBurst(int v) {
        return withAdmission(new Admission(admission.sessionRate(), v, admission.totalQueuedTrigger(),
                admission.higherQueuedTrigger(), admission.clusterSessionRate()));
    }

    /** {@code admission.total-queued}: see {@link Admission#totalQueuedTrigger()}. */
    public ClassPolicy withTotalQueuedTrigger(int v) {
        return withAdmission(new Admission(admission.sessionRate(), admission.sessionBurst(), v,
                admission.higherQueuedTrigger(), admission.clusterSessionRate()));
    }

    /** {@code admission.higher-queued}: see {@link Admission#higherQueuedTrigger()}. */
    public ClassPolicy withHigherQueuedTrigger(int v) {
        return withAdmission(new Admission(admission.sessionRate(), admission.sessionBurst(),
                admission.totalQueuedTrigger(), v, admission.clusterSessionRate()));
    }

    /** {@code cluster-session-rate}: see {@link Admission#clusterSessionRate()}. */
    public ClassPolicy withClusterSessionRate(double perSecond) {
        return withAdmission(new Admission(admission.sessionRate(), admission.sessionBurst(),
                admission.totalQueuedTrigger(), admission.higherQueuedTrigger(), perSecond));
    }

    /** {@code levels}: see {@link Content#levels()}. */
    public ClassPolicy withLevels(int v) {
        return new ClassPolicy(name, capacity, queue, delay, admission, new Content(v));
    }

    private ClassPolicy withCapacity(Capacity c) {
        return new ClassPolicy(name, c, queue, delay, admission, content);
    }

    /**
     * This resolved class with the session rate {@code perSecond} the policy defaults it to, and the bucket depth
     * {@code givenBurst} or, when not given ({@link #UNSET}), the rate rounded up.
     */
    ClassPolicy withDefaultSessionRate(double perSecond, int givenBurst) {
        int burst = Admission.burstFor(perSecond, givenBurst);
        return withAdmission(new Admission(perSecond, burst, admission.totalQueuedTrigger(),
                admission.higherQueuedTrigger(), admission.clusterSessionRate()));
    }

    private ClassPolicy withAdmission(Admission a) {
        return new ClassPolicy(name, capacity, queue, delay, a, content);
    }

    /** Fills unset settings from the policy-wide defaults and checks ranges; messages name the key. */
    ClassPolicy resolve(int index, int maxExecuting, int policyTotalQueued, int policyHigherQueued) {
        String k = "class." + name + ".";
        return new ClassPolicy(name, capacity.resolve(k, maxExecuting), queue.resolve(k), delay.resolve(k),
                admission.resolve(k, index, policyTotalQueued, policyHigherQueued), content.resolve(k));
    }

    static void check(boolean ok, String key, Object value, String reason) {
        if (!ok) {
            throw new PolicyException(key, String.valueOf(value), reason);
        }
    }
}

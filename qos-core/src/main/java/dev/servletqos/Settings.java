package dev.servletqos;

import dev.servletqos.policy.ControlPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * The settings the engine acts on now: the total concurrency, each class's budget, minimum budget, session
 * rate, delay target and content level, and the controller's mode, period and gains. One immutable value that
 * the engine replaces whole ({@link QosEngine#apply(Settings, Settings.Source)}), clamped there in one place, so
 * that the request path always reads one consistent set. The snapshot says which settings are in force and who
 * set them last.
 *
 * <p>Build a changed copy with the {@code with} methods; they do not validate (the engine does when the
 * value is applied). Thread-safe (immutable).
 *
 * @param maxExecuting requests executing at once over all classes
 * @param ceiling      the most {@code maxExecuting} may be: the policy's {@code max-executing} (or
 *                     {@value dev.servletqos.policy.QosPolicy#DEFAULT_CEILING} without one), lowered to fit the
 *                     container's threads; the capacity law's upper bound
 * @param classes      per class, highest priority first, in the policy's order
 * @param control      the controller's mode, period, delay statistic, gains and anti-windup (the policy's
 *                     {@code control.*}, changeable live)
 * @param source       who set these settings last
 * @param buckets      the token-bucket rules' rates, in the policy's order ({@code bucket.<name>.*}); empty
 *                     when the policy has none
 */
public record Settings(int maxExecuting, int ceiling, List<ClassSettings> classes, ControlPolicy control, Source source,
                       List<BucketSettings> buckets) {

    /** Settings without token-bucket rules. */
    public Settings(int maxExecuting, int ceiling, List<ClassSettings> classes, ControlPolicy control, Source source) {
        this(maxExecuting, ceiling, classes, control, source, List.of());
    }

    /**
     * One token-bucket rule's live settings (paper 002): its rate, set by the bucket law or an operator, never
     * below its minimum; the depth is fixed by the policy.
     *
     * @param name    the bucket
     * @param rate    requests per second it admits now
     * @param minRate the lowest rate it may be set to ({@code bucket.<name>.min-rate})
     * @param depth   its depth, fixed ({@code bucket.<name>.depth})
     */
    public record BucketSettings(String name, double rate, double minRate, int depth) {

        public BucketSettings {
            Objects.requireNonNull(name, "name");
        }

        public BucketSettings withRate(double r) {
            return new BucketSettings(name, r, minRate, depth);
        }
    }

    /** Who changed the settings last. */
    public enum Source {
        /** As the policy file (or builder) gave them. */
        POLICY,
        /** Changed by hand: a setter, JMX, an operator. */
        OPERATOR,
        /** Changed by the feedback controller. */
        CONTROLLER
    }

    /**
     * One class's live settings.
     *
     * @param name           the class
     * @param budget         concurrency permits, 0..max-executing
     * @param minBudget      the lowest budget the controller may set
     * @param sessionRate    new sessions per second, 0 = no limit
     * @param sessionBurst   the session token bucket's depth, at least 1
     * @param delayTarget    the class's delay target: the absolute controller's reference, and (as a ratio to
     *                       the next class's) the relative controller's; also the EDF deadline
     * @param levels         the class's content levels M ({@code class.<name>.levels}), fixed by the policy:
     *                       {@link QosEngine#apply} keeps the policy's value whatever is proposed
     * @param level          the live fractional content level m, 0..M (M: full content for everyone): with
     *                       {@code m = I + F}, a fraction F of the sessions is served at level I+1 and the rest at
     *                       I, level 0 refusing new sessions ({@link QosEngine#enter}); set by the controller or an
     *                       operator through {@link QosEngine#apply}, clamped there to 0..M (not a number: the
     *                       old value stays)
     */
    public record ClassSettings(String name, int budget, int minBudget, double sessionRate, int sessionBurst,
                                Duration delayTarget, int levels, double level) {

        public ClassSettings {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(delayTarget, "delayTarget");
        }

        /** A class with one content level (full content only) and its level at full. */
        public ClassSettings(String name, int budget, int minBudget, double sessionRate, int sessionBurst,
                             Duration delayTarget) {
            this(name, budget, minBudget, sessionRate, sessionBurst, delayTarget, 1, 1);
        }

        public ClassSettings withBudget(int b) {
            return new ClassSettings(name, b, minBudget, sessionRate, sessionBurst, delayTarget, levels, level);
        }

        public ClassSettings withSessionRate(double perSecond, int burst) {
            return new ClassSettings(name, budget, minBudget, perSecond, burst, delayTarget, levels, level);
        }

        public ClassSettings withMinBudget(int m) {
            return new ClassSettings(name, budget, m, sessionRate, sessionBurst, delayTarget, levels, level);
        }

        public ClassSettings withDelayTarget(Duration d) {
            return new ClassSettings(name, budget, minBudget, sessionRate, sessionBurst, d, levels, level);
        }

        /**
         * The share of the class's sessions that its level {@code m = I + F} serves lighter content, at a level
         * 1..M-1 ({@link QosEngine#enter}: a fraction F at I+1, the rest at I): 0 at full content, 1 - F just
         * below it, 1 further down less the {@link #refusedShare()}. Sessions are spread evenly over the shares
         * by their id, so this is the fraction of them, not of requests. 0 with one level (nothing lighter).
         */
        public double degradedShare() {
            return Math.max(0, Math.min(1, levels - level)) - refusedShare();
        }

        /**
         * The share of the class's sessions at level 0 ({@code m < 1}: 1 - m): new ones among them are refused,
         * admitted ones are served the lightest content.
         */
        public double refusedShare() {
            return Math.max(0, Math.min(1, 1 - level));
        }

        /** A copy with the fractional content level {@code m} (0..{@link #levels()}; clamped when applied). */
        public ClassSettings withLevel(double m) {
            return new ClassSettings(name, budget, minBudget, sessionRate, sessionBurst, delayTarget, levels, m);
        }
    }

    public Settings {
        classes = List.copyOf(classes);
        buckets = buckets == null ? List.of() : List.copyOf(buckets);
        Objects.requireNonNull(control, "control");
        Objects.requireNonNull(source, "source");
    }

    /** The class at {@code index} (0 = highest priority). */
    public ClassSettings get(int index) {
        return classes.get(index);
    }

    /** The budgets, highest priority first. */
    public int[] budgets() {
        int[] b = new int[classes.size()];
        for (int i = 0; i < b.length; i++) {
            b[i] = classes.get(i).budget();
        }
        return b;
    }

    /** A copy with these budgets (highest priority first). */
    public Settings withBudgets(int... budgets) {
        if (budgets.length != classes.size()) {
            throw new IllegalArgumentException(budgets.length + " budgets for " + classes.size() + " classes");
        }
        ClassSettings[] c = classes.toArray(new ClassSettings[0]);
        for (int i = 0; i < c.length; i++) {
            c[i] = c[i].withBudget(budgets[i]);
        }
        return new Settings(maxExecuting, ceiling, Arrays.asList(c), control, source, buckets);
    }

    /** A copy with one class's settings replaced. */
    public Settings withClass(int index, ClassSettings c) {
        ClassSettings[] all = classes.toArray(new ClassSettings[0]);
        all[index] = c;
        return new Settings(maxExecuting, ceiling, Arrays.asList(all), control, source, buckets);
    }

    public Settings withMaxExecuting(int max) {
        return new Settings(max, ceiling, classes, control, source, buckets);
    }

    public Settings withCeiling(int c) {
        return new Settings(maxExecuting, c, classes, control, source, buckets);
    }

    public Settings withControl(ControlPolicy c) {
        return new Settings(maxExecuting, ceiling, classes, c, source, buckets);
    }

    public Settings withSource(Source s) {
        return new Settings(maxExecuting, ceiling, classes, control, s, buckets);
    }

    /** A copy with these bucket settings (one per bucket of the policy, in its order). */
    public Settings withBuckets(List<BucketSettings> b) {
        return new Settings(maxExecuting, ceiling, classes, control, source, b);
    }

    /** A copy with one bucket's rate replaced. */
    public Settings withBucketRate(int index, double rate) {
        BucketSettings[] all = buckets.toArray(new BucketSettings[0]);
        all[index] = all[index].withRate(rate);
        return withBuckets(Arrays.asList(all));
    }

    /** The index of the bucket named {@code name}, or -1. */
    public int bucketIndex(String name) {
        for (int i = 0; i < buckets.size(); i++) {
            if (buckets.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}

package dev.servletqos.policy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The whole configuration of one engine: service classes in priority order, scheduling, capacity and
 * classification rules here; every other concern in one record that checks itself: the cookies
 * ({@link #cookies()}), the session table ({@link #sessionTable()}), the admission limits ({@link #admission()}),
 * the feedback controller ({@link #control()}), the content trees ({@link #contentTrees()}), the streams
 * ({@link #streams()}), the token buckets and the virtual servers. Immutable and thread-safe; changing settings
 * at run time means building a new policy ({@link #toBuilder()}) or calling the engine's setters. Read one from
 * a properties file with {@link PolicyParser}; every key is described in the key table ({@code PolicyKeys}) and
 * documented in {@code docs/configuration.md}.
 */
public final class QosPolicy {

    /** How waiting requests are chosen when a permit frees up (paper 004, section 4.4). */
    public enum Scheduling {
        /** Higher classes always first. */
        STRICT_PRIORITY("strict-priority"),
        /** Each busy class gets dispatches in proportion to its weight. */
        WEIGHTED("weighted"),
        /** Each class has its budget; idle permits are lent to others, except each class's reserve. */
        SHARED_CAPACITY("shared-capacity"),
        /** Each class has its budget and never lends or borrows. */
        FIXED_CAPACITY("fixed-capacity"),
        /** Earliest deadline (arrival + the class's delay target) first, across classes. */
        EARLIEST_DEADLINE("earliest-deadline");

        private final String key;

        Scheduling(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }

        /** The policy for a policy-file name, or null. */
        public static Scheduling fromKey(String key) {
            for (Scheduling s : values()) {
                if (s.key.equals(key)) {
                    return s;
                }
            }
            return null;
        }
    }

    private final List<ClassPolicy> classes;
    private final String defaultClass;
    private final Scheduling scheduling;
    private final int maxExecuting;
    private final int maxExecutingCeiling;
    private final boolean maxExecutingGiven;
    /** The highest class's reserve when it is the default ({@link #DEFAULT_TOP_RESERVE}), else 0. */
    private final int defaultTopReserve;
    /** The classes and control settings as the builder had them, unresolved: what {@link #toBuilder()} gives back. */
    private final List<ClassPolicy> givenClasses;
    private final ControlPolicy givenControl;
    private final boolean borrowing;
    private final List<Rule> rules;
    private final Duration watch;
    private final CookiePolicy cookies;
    private final SessionTablePolicy sessionTable;
    private final AdmissionLimits admission;
    private final ControlPolicy control;
    private final List<BucketPolicy> buckets;
    private final BucketControl bucketControl;
    private final List<VirtualServerPolicy> virtualServers;
    private final VirtualServerPlan virtualServerPlan;
    /** {@code content.*} as given, for {@link #toBuilder()}; {@link #contentTrees} is it checked and built. */
    private final ContentPolicy content;
    private final ContentTrees contentTrees;
    private final List<ExemptRule> exempt;
    private final StreamsPolicy streams;
    private final ClusterPolicy cluster;

    private QosPolicy(Builder b, List<ClassPolicy> resolved, int start, int ceiling, ControlPolicy control,
                      ContentTrees contentTrees) {
        this.classes = List.copyOf(resolved);
        this.defaultClass = b.defaultClass != null ? b.defaultClass : resolved.get(resolved.size() - 1).name();
        this.scheduling = b.scheduling;
        this.maxExecuting = start;
        this.maxExecutingCeiling = ceiling;
        this.maxExecutingGiven = b.maxExecuting != ClassPolicy.UNSET;
        this.defaultTopReserve = b.classes.get(0).capacity().reserve() == ClassPolicy.UNSET
                ? resolved.get(0).capacity().reserve() : 0;
        this.givenClasses = List.copyOf(b.classes);
        this.givenControl = b.control;
        this.borrowing = b.borrowing && b.scheduling != Scheduling.FIXED_CAPACITY;
        this.rules = List.copyOf(b.rules);
        this.watch = b.watch;
        this.cookies = b.cookies;
        this.sessionTable = b.sessionTable;
        this.admission = b.admission;
        this.control = control;
        this.buckets = List.copyOf(b.buckets);
        this.bucketControl = b.bucketControl;
        this.virtualServers = List.copyOf(b.virtualServers);
        this.virtualServerPlan = b.virtualServerPlan;
        this.content = b.content;
        this.contentTrees = contentTrees;
        this.exempt = List.copyOf(b.exempt);
        this.streams = b.streams;
        this.cluster = b.cluster;
    }

    /**
     * Default {@code session-rate} of the highest class, in new sessions per second (bucket depth the same), when it
     * is not the default class and admission is by triggers ({@code control.admission = triggers}); with automatic
     * admission the admission law sets every class's rate, and with {@code control.degradation = pi} the degradation
     * law refuses the new sessions of every class, the highest included, once no lighter content is left.
     */
    public static final double DEFAULT_TOP_SESSION_RATE = 50;

    /**
     * Default {@code reserve} of the highest class of a policy with two classes or more (when its budget is not
     * 0 and {@code max-executing} leaves a permit beyond it and the other classes' reserves): a permit the lower
     * classes never take, so that a flood of theirs cannot keep the highest class waiting for a permit to be
     * released. The engine keeps it only while {@code max-executing} is at least 2 plus the other classes'
     * reserves ({@link #defaultTopReserve()}); {@code class.<highest>.reserve = 0} turns it off.
     */
    public static final int DEFAULT_TOP_RESERVE = 1;

    /** The ceiling of {@code max-executing} when the policy gives none: Tomcat's and Jetty's default thread pools. */
    public static final int DEFAULT_CEILING = 200;
    /**
     * Where the capacity law starts when it finds {@code max-executing} itself (it moves from there within a few
     * periods), and {@code max-executing} of a fixed capacity that is not configured.
     */
    public static final int INITIAL_LIMIT = 16;

    public static Builder builder() {
        return new Builder();
    }

    /**
     * A builder holding every setting of this policy as it was given (what was left unset stays unset, so a
     * change means what it would have meant in the first place), to change some and build a new one.
     */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.classes.addAll(givenClasses);
        b.defaultClass = defaultClass;
        b.scheduling = scheduling;
        b.maxExecuting = maxExecutingGiven ? maxExecutingCeiling : ClassPolicy.UNSET;
        b.borrowing = borrowing;
        b.rules.addAll(rules);
        b.watch = watch;
        b.cookies = cookies;
        b.sessionTable = sessionTable;
        b.admission = admission;
        b.control = givenControl;
        b.buckets.addAll(buckets);
        b.bucketControl = bucketControl;
        b.virtualServers.addAll(virtualServers);
        b.virtualServerPlan = virtualServerPlan;
        b.content = content;
        b.exempt.addAll(exempt);
        b.streams = streams;
        b.cluster = cluster;
        return b;
    }

    /** The classes, highest priority first, every setting resolved. */
    public List<ClassPolicy> classes() {
        return classes;
    }

    /** The class's position (0 = highest priority), or -1 if there is no such class. */
    public int classIndex(String name) {
        for (int i = 0; i < classes.size(); i++) {
            if (classes.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    /** The class of requests no rule matched ({@code default-class}); default: the lowest class. */
    public String defaultClass() {
        return defaultClass;
    }

    /** {@code scheduling}; default strict-priority. */
    public Scheduling scheduling() {
        return scheduling;
    }

    /**
     * Requests executing at once over all classes when the engine starts: {@code max-executing} as configured
     * when the capacity is fixed; with {@code control.capacity = auto} the capacity law's starting point,
     * {@value #INITIAL_LIMIT} or the ceiling if that is lower.
     */
    public int maxExecuting() {
        return maxExecuting;
    }

    /**
     * The most requests that may ever execute at once: the configured {@code max-executing}, or without one
     * {@value #DEFAULT_CEILING} (the default thread pool of Tomcat and Jetty); the engine lowers it further to fit
     * the container's threads when the adapter knows them. The ceiling of the capacity law; with a fixed
     * capacity, equal to {@link #maxExecuting()}.
     */
    public int maxExecutingCeiling() {
        return maxExecutingCeiling;
    }

    /**
     * The highest class's reserve ({@code class.<name>.reserve}) when the policy does not give it but takes the
     * default, {@value #DEFAULT_TOP_RESERVE}; 0 when the policy gives it (0 included) or the default is 0 (a single
     * class, a budget of 0, or {@code max-executing} too low). Unlike a reserve the policy gives, which
     * {@code max-executing} can never go below, the engine keeps this one only while {@code max-executing} is at
     * least 2 plus the other classes' reserves, so that it never takes the last permit the other classes could
     * use (a capacity law or an operator lowering {@code max-executing} to 1 leaves the highest class none).
     */
    public int defaultTopReserve() {
        return defaultTopReserve;
    }

    /** Whether a class may use idle permits beyond its budget ({@code borrowing}); default true, never for fixed-capacity. */
    public boolean borrowing() {
        return borrowing;
    }

    /** Classification rules, in order; the first match wins. */
    public List<Rule> rules() {
        return rules;
    }

    /** The tier and session cookies and their signing keys ({@code tier-cookie.*}, {@code session-cookie.*}). */
    public CookiePolicy cookies() {
        return cookies;
    }

    /** The bounds of the session table ({@code session-table.*}). */
    public SessionTablePolicy sessionTable() {
        return sessionTable;
    }

    /** The policy-wide admission limits ({@code admission.*}). */
    public AdmissionLimits admission() {
        return admission;
    }

    /** How often a running engine checks its policy file and reloads it if changed ({@code policy.watch}); 0: never. */
    public Duration watch() {
        return watch;
    }

    /** The feedback controller's settings ({@code control.*}); default: off. */
    public ControlPolicy control() {
        return control;
    }

    /** The token-bucket rules ({@code bucket.<name>.*}), in the order of their names; empty when none. */
    public List<BucketPolicy> buckets() {
        return buckets;
    }

    /** How the bucket law adapts the buckets' rates ({@code buckets.*}). */
    public BucketControl bucketControl() {
        return bucketControl;
    }

    /** The virtual servers ({@code vhost.<name>.*}), in the order of their names; empty when none. */
    public List<VirtualServerPolicy> virtualServers() {
        return virtualServers;
    }

    /** The virtual servers' capacity plan ({@code vhosts.*}). */
    public VirtualServerPlan virtualServerPlan() {
        return virtualServerPlan;
    }

    /** Static content served from a lighter tree per content level ({@code content.*}); default: none. */
    public ContentTrees contentTrees() {
        return contentTrees;
    }

    /** The exempt rules ({@code exempt.<n>.*}), in order; default: none (nothing is exempt). */
    public List<ExemptRule> exempt() {
        return exempt;
    }

    /** Whether and how limits, settings and status are shared with a cluster ({@code cluster.*}); default off. */
    public ClusterPolicy cluster() {
        return cluster;
    }

    /** Which requests are streams and how many may be open at once ({@code streams.*}). */
    public StreamsPolicy streams() {
        return streams;
    }

    /** Equal when every setting is (secrets included). */
    @Override
    public boolean equals(Object o) {
        return o instanceof QosPolicy p && settings().equals(p.settings()) && cookies.equals(p.cookies);
    }

    /** Of every setting but the secrets, so that it tells nothing about them. */
    @Override
    public int hashCode() {
        return settings().hashCode() * 31 + cookies.hashCode();
    }

    private List<Object> settings() {
        return Arrays.asList(classes, defaultTopReserve, defaultClass, scheduling, maxExecuting, maxExecutingCeiling,
                borrowing, rules, sessionTable, admission, watch, control, buckets, bucketControl, virtualServers,
                virtualServerPlan, contentTrees, exempt, streams, cluster);
    }

    @Override
    public String toString() {
        return "QosPolicy{classes=" + classes + ", default=" + defaultClass + ", scheduling=" + scheduling.key()
                + ", maxExecuting=" + maxExecuting + ", ceiling=" + maxExecutingCeiling + ", borrowing=" + borrowing + ", rules=" + rules
                + ", control=" + control + (contentTrees.isEmpty() ? "" : ", content=" + contentTrees) + "}";
    }

    /**
     * Builds a {@link QosPolicy}: the classes, rules, scheduling and capacity here, every other concern as one
     * record ({@link #cookies}, {@link #sessionTable}, {@link #admission}, {@link #control}, {@link #content},
     * {@link #streams}), each set whole or changed by a function. Not thread-safe. {@link #build()} checks
     * everything and throws a {@link PolicyException} naming the key, the value and the reason.
     */
    public static final class Builder {
        private final List<ClassPolicy> classes = new ArrayList<>();
        private String defaultClass;
        private Scheduling scheduling = Scheduling.STRICT_PRIORITY;
        private int maxExecuting = ClassPolicy.UNSET;
        private boolean borrowing = true;
        private final List<BucketPolicy> buckets = new ArrayList<>();
        private BucketControl bucketControl = BucketControl.DEFAULTS;
        private final List<VirtualServerPolicy> virtualServers = new ArrayList<>();
        private VirtualServerPlan virtualServerPlan = VirtualServerPlan.DEFAULTS;
        private final List<Rule> rules = new ArrayList<>();
        private Duration watch = Duration.ZERO;
        private CookiePolicy cookies = CookiePolicy.DEFAULTS;
        private SessionTablePolicy sessionTable = SessionTablePolicy.DEFAULTS;
        private AdmissionLimits admission = AdmissionLimits.DEFAULTS;
        private ControlPolicy control = ControlPolicy.DEFAULTS;
        private ContentPolicy content = ContentPolicy.NONE;
        private final List<ExemptRule> exempt = new ArrayList<>();
        private StreamsPolicy streams = StreamsPolicy.DEFAULTS;
        private ClusterPolicy cluster = ClusterPolicy.DEFAULTS;

        private Builder() {
        }

        /** Appends a class below the ones added so far (the first added has the highest priority). */
        public Builder addClass(ClassPolicy c) {
            classes.add(c);
            return this;
        }

        /** Replaces the class of the same name, keeping its position. */
        public Builder replaceClass(ClassPolicy c) {
            for (int i = 0; i < classes.size(); i++) {
                if (classes.get(i).name().equals(c.name())) {
                    classes.set(i, c);
                    return this;
                }
            }
            throw new PolicyException("class " + c.name() + ": no such class");
        }

        public Builder defaultClass(String name) {
            this.defaultClass = name;
            return this;
        }

        public Builder scheduling(Scheduling s) {
            this.scheduling = s;
            return this;
        }

        public Builder maxExecuting(int n) {
            this.maxExecuting = n;
            return this;
        }

        public Builder borrowing(boolean b) {
            this.borrowing = b;
            return this;
        }

        public Builder addRule(Rule r) {
            rules.add(r);
            return this;
        }

        public Builder clearRules() {
            rules.clear();
            return this;
        }

        /** How often a running engine checks its policy file for a change ({@code policy.watch}); zero: never. */
        public Builder watch(Duration d) {
            this.watch = d;
            return this;
        }

        /** The cookies ({@code tier-cookie.*}, {@code session-cookie.*}); default {@link CookiePolicy#DEFAULTS}. */
        public Builder cookies(CookiePolicy c) {
            this.cookies = Objects.requireNonNull(c, "cookies");
            return this;
        }

        /** Changes the cookies: {@code cookies(c -> c.withTierMaxAge(Duration.ofDays(30)))}. */
        public Builder cookies(UnaryOperator<CookiePolicy> change) {
            return cookies(change.apply(cookies));
        }

        /** The session table's bounds ({@code session-table.*}); default {@link SessionTablePolicy#DEFAULTS}. */
        public Builder sessionTable(SessionTablePolicy t) {
            this.sessionTable = Objects.requireNonNull(t, "sessionTable");
            return this;
        }

        /** Changes the session table's bounds. */
        public Builder sessionTable(UnaryOperator<SessionTablePolicy> change) {
            return sessionTable(change.apply(sessionTable));
        }

        /** The admission limits ({@code admission.*}); default {@link AdmissionLimits#DEFAULTS}. */
        public Builder admission(AdmissionLimits a) {
            this.admission = Objects.requireNonNull(a, "admission");
            return this;
        }

        /** Changes the admission limits: {@code admission(a -> a.withRejectStatus(429))}. */
        public Builder admission(UnaryOperator<AdmissionLimits> change) {
            return admission(change.apply(admission));
        }

        /** The controller's settings; default {@link ControlPolicy#DEFAULTS} (off). */
        public Builder control(ControlPolicy c) {
            this.control = c;
            return this;
        }

        /** The content trees as given ({@code content.*}); default {@link ContentPolicy#NONE}. */
        public Builder content(ContentPolicy c) {
            this.content = Objects.requireNonNull(c, "content");
            return this;
        }

        /** Changes the content trees: {@code content(c -> c.withPaths(List.of("/img/")).withPrefix(1, "/lo"))}. */
        public Builder content(UnaryOperator<ContentPolicy> change) {
            return content(change.apply(content));
        }

        /** Which requests are streams ({@code streams.*}); default {@link StreamsPolicy#DEFAULTS}. */
        public Builder streams(StreamsPolicy s) {
            this.streams = Objects.requireNonNull(s, "streams");
            return this;
        }

        /** Changes the streams' settings: {@code streams(s -> s.withMaxOpen(100))}. */
        public Builder streams(UnaryOperator<StreamsPolicy> change) {
            return streams(change.apply(streams));
        }

        public Builder cluster(ClusterPolicy c) {
            this.cluster = Objects.requireNonNull(c, "cluster");
            return this;
        }

        // Shorthands kept because many tests and embedders call them; each changes one record.

        /** The signing secret, at least 16 bytes; also signs the session cookie ({@link CookiePolicy#withSecret}). */
        public Builder secret(String s) {
            return cookies(cookies.withSecret(s));
        }

        /** {@link CookiePolicy#withPreviousSecret}. */
        public Builder previousSecret(String s) {
            return cookies(cookies.withPreviousSecret(s));
        }

        /** {@link SessionTablePolicy#withMaxEntries}. */
        public Builder sessionTableMaxEntries(long n) {
            return sessionTable(sessionTable.withMaxEntries(n));
        }

        /** {@link AdmissionLimits#withTotalQueuedTrigger}. */
        public Builder totalQueuedTrigger(int j) {
            return admission(admission.withTotalQueuedTrigger(j));
        }

        /** {@link AdmissionLimits#withHigherQueuedTrigger}. */
        public Builder higherQueuedTrigger(int k) {
            return admission(admission.withHigherQueuedTrigger(k));
        }

        /** {@link AdmissionLimits#withRetryAfter}. */
        public Builder retryAfter(Duration d) {
            return admission(admission.withRetryAfter(d));
        }

        /** {@link AdmissionLimits#withMaxPerSession}. */
        public Builder maxPerSession(int n) {
            return admission(admission.withMaxPerSession(n));
        }

        /** {@link AdmissionLimits#withMaxQueuedPerAddress}. */
        public Builder maxQueuedPerAddress(int n) {
            return admission(admission.withMaxQueuedPerAddress(n));
        }

        /** Adds a token-bucket rule ({@code bucket.<name>.*}). */
        public Builder addBucket(BucketPolicy b) {
            buckets.add(b);
            return this;
        }

        /** How the bucket law adapts the rates; default {@link BucketControl#DEFAULTS}. */
        public Builder bucketControl(BucketControl c) {
            this.bucketControl = c;
            return this;
        }

        /** Adds a virtual server ({@code vhost.<name>.*}). */
        public Builder addVirtualServer(VirtualServerPolicy v) {
            virtualServers.add(v);
            return this;
        }

        /** The virtual servers' capacity plan: a, b and the bound ({@code vhosts.*}). */
        public Builder virtualServerPlan(VirtualServerPlan p) {
            this.virtualServerPlan = p;
            return this;
        }

        /** Appends an exempt rule ({@code exempt.<n>.*}): the requests it matches bypass QoS. */
        public Builder addExempt(ExemptRule e) {
            exempt.add(Objects.requireNonNull(e));
            return this;
        }

        /** Removes every exempt rule. */
        public Builder clearExempt() {
            exempt.clear();
            return this;
        }

        /**
         * Checks every setting and builds the policy.
         *
         * @throws PolicyException naming the key, value and reason of the first problem found
         */
        public QosPolicy build() {
            if (classes.isEmpty()) {
                throw new PolicyException("classes", "", "at least one service class is required");
            }
            ClassPolicy.check(scheduling != null, "scheduling", "null", "required");
            ResolvedClasses r = ResolvedClasses.of(classes, defaultClass, maxExecuting, control, admission);
            List<ClassPolicy> resolved = r.classes();
            Set<String> names = r.names();
            if (defaultClass != null && !names.contains(defaultClass)) {
                throw new PolicyException("default-class", defaultClass, "no such class; classes are " + names);
            }
            ClassPolicy.check(bucketControl != null, "buckets.law", "null", "required");
            bucketControl.check(buckets);
            if (!virtualServers.isEmpty()) {
                ClassPolicy.check(virtualServerPlan != null, "vhosts.request-cost", "null", "required");
                virtualServerPlan.check(virtualServers);
            }
            boolean tierRule = false;
            for (int i = 0; i < rules.size(); i++) {
                tierRule |= rules.get(i).check("rule." + (i + 1), names);
            }
            cookies.check(tierRule);
            sessionTable.check();
            admission.check();
            ClassPolicy.check(watch != null && (watch.isZero() || watch.compareTo(Duration.ofSeconds(1)) >= 0
                    && watch.compareTo(Duration.ofHours(1)) <= 0), "policy.watch", watch, "must be 0s (never) or "
                    + "1s..1h");
            r.control().check(classes.size());
            ContentTrees trees = content.trees(resolved.stream().mapToInt(c -> c.content().levels()).max().orElse(1));
            for (int i = 0; i < exempt.size(); i++) {
                exempt.get(i).check("exempt." + (i + 1));
            }
            streams.check();
            return new QosPolicy(this, resolved, r.start(), r.ceiling(), r.control(), trees);
        }
    }
}

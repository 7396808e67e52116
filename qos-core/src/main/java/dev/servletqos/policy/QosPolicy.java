package dev.servletqos.policy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The whole configuration of one engine: service classes in priority order, scheduling, classification
 * rules, cookies, the session table, admission, the feedback controller ({@link #control()}) and the content
 * trees ({@link #contentTrees()}). Immutable
 * and thread-safe; changing settings at run time means building a new policy ({@link #toBuilder()}) or
 * calling the engine's setters. Read one from a properties file with {@link PolicyParser}; every key is
 * described in the key table ({@code PolicyKeys}) and documented in {@code docs/configuration.md}.
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
    private final String tierCookieName;
    /** The secrets as given, for {@link #toBuilder()} and {@link #equals}; never handed out. */
    private final String secret;
    private final String previousSecret;
    private final SigningKeys signingKeys;
    private final Duration tierCookieMaxAge;
    private final Boolean tierCookieSecureGiven;
    private final boolean tierCookieSecure;
    private final String sessionCookieName;
    private final Duration sessionMaxAge;
    private final Boolean sessionCookieSecureGiven;
    private final boolean sessionCookieSecure;
    private final long sessionTableMaxEntries;
    private final Duration sessionIdleTimeout;
    private final int totalQueuedTrigger;
    private final int higherQueuedTrigger;
    private final int rejectStatus;
    private final Duration retryAfter;
    private final Duration watch;
    private final int maxPerSession;
    private final int maxQueuedPerAddress;
    private final double maxNewSessionsPerAddress;
    private final int newSessionsPerAddressBurst;
    /** As given (UNSET: derived from the rate), for {@link #toBuilder()}. */
    private final int newSessionsPerAddressBurstGiven;
    private final ControlPolicy control;
    private final List<BucketPolicy> buckets;
    private final BucketControl bucketControl;
    private final List<VirtualServerPolicy> virtualServers;
    private final VirtualServerPlan virtualServerPlan;
    private final ContentTrees contentTrees;
    /** {@code content.*} as given, for {@link #toBuilder()}. */
    private final List<String> givenContentPaths;
    private final SortedMap<Integer, String> givenContentPrefixes;
    private final List<ExemptRule> exempt;
    private final boolean streamsEventStream;
    private final List<String> streamsPaths;
    private final int streamsMaxOpen;

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
        this.tierCookieName = b.tierCookieName;
        this.secret = b.secret;
        this.previousSecret = b.previousSecret;
        this.signingKeys = SigningKeys.of(b.secret, b.previousSecret);
        this.tierCookieMaxAge = b.tierCookieMaxAge;
        this.tierCookieSecureGiven = b.tierCookieSecure;
        this.tierCookieSecure = b.tierCookieSecure != null ? b.tierCookieSecure : requiresSecure(b.tierCookieName);
        this.sessionCookieName = b.sessionCookieName;
        this.sessionMaxAge = b.sessionMaxAge;
        this.sessionCookieSecureGiven = b.sessionCookieSecure;
        this.sessionCookieSecure = b.sessionCookieSecure != null ? b.sessionCookieSecure
                : requiresSecure(b.sessionCookieName);
        this.sessionTableMaxEntries = b.sessionTableMaxEntries;
        this.sessionIdleTimeout = b.sessionIdleTimeout;
        this.totalQueuedTrigger = b.totalQueuedTrigger;
        this.higherQueuedTrigger = b.higherQueuedTrigger;
        this.rejectStatus = b.rejectStatus;
        this.retryAfter = b.retryAfter;
        this.watch = b.watch;
        this.maxPerSession = b.maxPerSession;
        this.maxQueuedPerAddress = b.maxQueuedPerAddress;
        this.maxNewSessionsPerAddress = b.maxNewSessionsPerAddress;
        this.newSessionsPerAddressBurstGiven = b.newSessionsPerAddressBurst;
        this.newSessionsPerAddressBurst = newSessionsPerAddressBurstFor(b.maxNewSessionsPerAddress,
                b.newSessionsPerAddressBurst);
        this.control = control;
        this.buckets = List.copyOf(b.buckets);
        this.bucketControl = b.bucketControl;
        this.virtualServers = List.copyOf(b.virtualServers);
        this.virtualServerPlan = b.virtualServerPlan;
        this.contentTrees = contentTrees;
        this.givenContentPaths = b.contentPaths;
        this.givenContentPrefixes = Collections.unmodifiableSortedMap(new TreeMap<>(b.contentPrefixes));
        this.exempt = List.copyOf(b.exempt);
        this.streamsEventStream = b.streamsEventStream;
        this.streamsPaths = b.streamsPaths;
        this.streamsMaxOpen = b.streamsMaxOpen;
    }

    /**
     * Default {@code session-rate} of the highest class, in new sessions per second (bucket depth the same), when it
     * is not the default class and admission is by triggers ({@code control.admission = triggers}); with automatic
     * admission the admission law sets every class's rate, and with {@code control.degradation = pi} the degradation
     * law refuses the new sessions of every class, the highest included, once no lighter content is left.
     */
    public static final double DEFAULT_TOP_SESSION_RATE = 50;

    /**
     * Default of {@code admission.max-per-session}: a browser opens at most six HTTP/1.1 connections to a host, so
     * eight requests at once of one session are as many as a browser's, and a cookie shared by many clients gets
     * no more of the server.
     */
    public static final int DEFAULT_MAX_PER_SESSION = 8;
    /**
     * Default of {@code streams.max-open}: far above what one node's users keep open (one event stream per open
     * page), far below what the container's connections and the heap bear (an open asynchronous request holds no
     * thread, some kilobytes of buffers).
     */
    public static final int DEFAULT_STREAMS_MAX_OPEN = 10_000;
    /**
     * Default of {@code admission.max-queued-per-address}: a tenth of one class's default queue, the least share of a
     * scarce queue each address keeps (it binds only while the queue is half full or its class rations new sessions,
     * and other addresses wait too).
     */
    public static final int DEFAULT_MAX_QUEUED_PER_ADDRESS = 100;
    /**
     * Default of {@code admission.max-new-sessions-per-address}, in new sessions per second: the least share of its
     * class's new sessions an address keeps while the class rations them (above it, the address gets its max-min
     * fair share). Small, so that the share a flood keeps at the floor is taken from nobody's demand.
     */
    public static final double DEFAULT_MAX_NEW_SESSIONS_PER_ADDRESS = 1;

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
    /** The shortest {@code tier-cookie.secret} and {@code tier-cookie.previous-secret}: 16 bytes of UTF-8, 128 bits. */
    public static final int MIN_SECRET_BYTES = 16;

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
        b.tierCookieName = tierCookieName;
        b.secret = secret;
        b.previousSecret = previousSecret;
        b.tierCookieMaxAge = tierCookieMaxAge;
        b.tierCookieSecure = tierCookieSecureGiven;
        b.sessionCookieName = sessionCookieName;
        b.sessionMaxAge = sessionMaxAge;
        b.sessionCookieSecure = sessionCookieSecureGiven;
        b.sessionTableMaxEntries = sessionTableMaxEntries;
        b.sessionIdleTimeout = sessionIdleTimeout;
        b.totalQueuedTrigger = totalQueuedTrigger;
        b.higherQueuedTrigger = higherQueuedTrigger;
        b.rejectStatus = rejectStatus;
        b.retryAfter = retryAfter;
        b.watch = watch;
        b.maxPerSession = maxPerSession;
        b.maxQueuedPerAddress = maxQueuedPerAddress;
        b.maxNewSessionsPerAddress = maxNewSessionsPerAddress;
        b.newSessionsPerAddressBurst = newSessionsPerAddressBurstGiven;
        b.control = givenControl;
        b.buckets.addAll(buckets);
        b.bucketControl = bucketControl;
        b.virtualServers.addAll(virtualServers);
        b.virtualServerPlan = virtualServerPlan;
        b.contentPaths = givenContentPaths;
        b.contentPrefixes.putAll(givenContentPrefixes);
        b.exempt.addAll(exempt);
        b.streamsEventStream = streamsEventStream;
        b.streamsPaths = streamsPaths;
        b.streamsMaxOpen = streamsMaxOpen;
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

    /** Name of the signed subscription cookie the application issues ({@code tier-cookie.name}); default QOSTIER. */
    public String tierCookieName() {
        return tierCookieName;
    }

    /**
     * The keys of {@code tier-cookie.secret} and {@code tier-cookie.previous-secret}, which sign and check the tier
     * and session cookies; {@link SigningKeys#configured()} is false when no secret is set. The secrets themselves
     * are not readable through the policy.
     */
    public SigningKeys signingKeys() {
        return signingKeys;
    }

    /**
     * Lifetime of an issued tier cookie ({@code tier-cookie.max-age}); default 365 days. Also the oldest a tier
     * cookie may be to be honoured, whatever expiry it carries: lowering it shortens cookies already issued.
     */
    public Duration tierCookieMaxAge() {
        return tierCookieMaxAge;
    }

    /**
     * Whether tier cookies carry the {@code Secure} attribute ({@code tier-cookie.secure}); default true when
     * {@code tier-cookie.name} starts with {@code __Host-} or {@code __Secure-}, else false.
     */
    public boolean tierCookieSecure() {
        return tierCookieSecure;
    }

    /**
     * Whether admission cookies carry the {@code Secure} attribute ({@code session-cookie.secure}); default true
     * when {@code session-cookie.name} starts with {@code __Host-} or {@code __Secure-}, else false.
     */
    public boolean sessionCookieSecure() {
        return sessionCookieSecure;
    }

    /**
     * Whether a cookie of this name must be {@code Secure}: its name starts with {@code __Secure-} or
     * {@code __Host-} (RFC 6265bis, which compares the prefixes ignoring case). Browsers refuse to store such a
     * cookie without {@code Secure}, and a {@code __Host-} one also needs {@code Path=/} and no {@code Domain},
     * which the engine's cookies always have.
     */
    public static boolean requiresSecure(String cookieName) {
        return cookieName != null && (cookieName.regionMatches(true, 0, "__Secure-", 0, 9)
                || cookieName.regionMatches(true, 0, "__Host-", 0, 7));
    }

    /** Name of the signed per-session admission cookie ({@code session-cookie.name}); default QOSSESSION. */
    public String sessionCookieName() {
        return sessionCookieName;
    }

    /** How long an admission stays valid without renewal ({@code session-cookie.max-age}); default 30 min. */
    public Duration sessionMaxAge() {
        return sessionMaxAge;
    }

    /** Bound of the session table ({@code session-table.max-entries}); default 100000. */
    public long sessionTableMaxEntries() {
        return sessionTableMaxEntries;
    }

    /** Idle time after which a session is forgotten ({@code session-table.idle-timeout}); default 30 min. */
    public Duration sessionIdleTimeout() {
        return sessionIdleTimeout;
    }

    /** Policy-wide WebQoS trigger j ({@code admission.total-queued}); default 0 (off). */
    public int totalQueuedTrigger() {
        return totalQueuedTrigger;
    }

    /** Policy-wide WebQoS trigger k ({@code admission.higher-queued}); default 0 (off). */
    public int higherQueuedTrigger() {
        return higherQueuedTrigger;
    }

    /** Status of a refusal ({@code admission.reject-status}): 503 (default) or 429. */
    public int rejectStatus() {
        return rejectStatus;
    }

    /** The {@code Retry-After} sent with refusals ({@code admission.retry-after}); default 10 s. */
    public Duration retryAfter() {
        return retryAfter;
    }

    /**
     * How often a running engine checks its policy file for a change and reloads it ({@code policy.watch}); zero,
     * the default, for never.
     */
    public Duration watch() {
        return watch;
    }

    /**
     * The most requests one admitted session may have executing or waiting in their class's queue at once; its
     * others wait in the session's line ({@code admission.max-per-session}); 0 = no limit; default
     * {@value #DEFAULT_MAX_PER_SESSION}.
     */
    public int maxPerSession() {
        return maxPerSession;
    }

    /**
     * The least share of a scarce queue one client address keeps ({@code admission.max-queued-per-address}): while
     * a class's queue is half full or the class rations new sessions, and other addresses wait too, an anonymous
     * request that would wait is refused once its address has {@code max(this, max-queue / addresses waiting)}
     * waiting; 0 = no limit; default {@value #DEFAULT_MAX_QUEUED_PER_ADDRESS}.
     */
    public int maxQueuedPerAddress() {
        return maxQueuedPerAddress;
    }

    /**
     * The least share of its class's new sessions one client address keeps while the class rations them, per second
     * ({@code admission.max-new-sessions-per-address}; capped at half of what the class admits); above it an address
     * gets its max-min fair share. 0 = no per-address share at all; default
     * {@value #DEFAULT_MAX_NEW_SESSIONS_PER_ADDRESS}.
     */
    public double maxNewSessionsPerAddress() {
        return maxNewSessionsPerAddress;
    }

    /**
     * No longer used ({@code admission.new-sessions-per-address-burst}: a policy that sets it fails to build); kept
     * for source compatibility: {@code max(1, ceil(max-new-sessions-per-address))}.
     */
    @Deprecated
    public int newSessionsPerAddressBurst() {
        return newSessionsPerAddressBurst;
    }

    private static int newSessionsPerAddressBurstFor(double rate, int given) {
        return given != ClassPolicy.UNSET ? given : (int) Math.max(1, Math.min(1_000_000, Math.ceil(rate)));
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

    /**
     * Whether a request asking for {@code text/event-stream} in its {@code Accept} header is a stream
     * ({@code streams.event-stream}); default true.
     */
    public boolean streamsEventStream() {
        return streamsEventStream;
    }

    /** The paths whose requests are streams ({@code streams.paths}, path patterns); default: none. */
    public List<String> streamsPaths() {
        return streamsPaths;
    }

    /**
     * The most streams open at once ({@code streams.max-open}); 0: no stream pool (streams are ordinary requests);
     * default {@value #DEFAULT_STREAMS_MAX_OPEN}.
     */
    public int streamsMaxOpen() {
        return streamsMaxOpen;
    }

    /** Equal when every setting is (secrets included). */
    @Override
    public boolean equals(Object o) {
        return o instanceof QosPolicy p && settings().equals(p.settings()) && signingKeys.equals(p.signingKeys);
    }

    /** Of every setting but the secrets, so that it tells nothing about them. */
    @Override
    public int hashCode() {
        return settings().hashCode();
    }

    private List<Object> settings() {
        return Arrays.asList(classes, defaultTopReserve, defaultClass, scheduling, maxExecuting, maxExecutingCeiling,
                borrowing, rules,
                tierCookieName, tierCookieMaxAge, tierCookieSecure, sessionCookieName, sessionMaxAge,
                sessionCookieSecure, sessionTableMaxEntries, sessionIdleTimeout, totalQueuedTrigger,
                higherQueuedTrigger, rejectStatus, retryAfter, watch, maxPerSession, maxQueuedPerAddress, maxNewSessionsPerAddress,
                newSessionsPerAddressBurst, control, buckets, bucketControl, virtualServers, virtualServerPlan, contentTrees,
                exempt, streamsEventStream, streamsPaths, streamsMaxOpen);
    }

    @Override
    public String toString() {
        return "QosPolicy{classes=" + classes + ", default=" + defaultClass + ", scheduling=" + scheduling.key()
                + ", maxExecuting=" + maxExecuting + ", ceiling=" + maxExecutingCeiling + ", borrowing=" + borrowing + ", rules=" + rules
                + ", control=" + control + (contentTrees.isEmpty() ? "" : ", content=" + contentTrees) + "}";
    }

    /**
     * Builds a {@link QosPolicy}. Not thread-safe. {@link #build()} checks everything and throws a
     * {@link PolicyException} naming the key, the value and the reason.
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
        private String tierCookieName = "QOSTIER";
        private String secret;
        private String previousSecret;
        private Duration tierCookieMaxAge = Duration.ofDays(365);
        private Boolean tierCookieSecure;
        private String sessionCookieName = "QOSSESSION";
        private Duration sessionMaxAge = Duration.ofMinutes(30);
        private Boolean sessionCookieSecure;
        private long sessionTableMaxEntries = 100_000;
        private Duration sessionIdleTimeout = Duration.ofMinutes(30);
        private int totalQueuedTrigger;
        private int higherQueuedTrigger;
        private int rejectStatus = 503;
        private Duration retryAfter = Duration.ofSeconds(10);
        private Duration watch = Duration.ZERO;
        private int maxPerSession = DEFAULT_MAX_PER_SESSION;
        private int maxQueuedPerAddress = DEFAULT_MAX_QUEUED_PER_ADDRESS;
        private double maxNewSessionsPerAddress = DEFAULT_MAX_NEW_SESSIONS_PER_ADDRESS;
        private int newSessionsPerAddressBurst = ClassPolicy.UNSET;
        private ControlPolicy control = ControlPolicy.DEFAULTS;
        private List<String> contentPaths = List.of();
        private final SortedMap<Integer, String> contentPrefixes = new TreeMap<>();
        private final List<ExemptRule> exempt = new ArrayList<>();
        private boolean streamsEventStream = true;
        private List<String> streamsPaths = List.of();
        private int streamsMaxOpen = DEFAULT_STREAMS_MAX_OPEN;

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

        public Builder tierCookieName(String name) {
            this.tierCookieName = name;
            return this;
        }

        /** The signing secret, at least 16 bytes; also signs the session cookie. */
        public Builder secret(String s) {
            this.secret = s;
            return this;
        }

        public Builder previousSecret(String s) {
            this.previousSecret = s;
            return this;
        }

        public Builder tierCookieMaxAge(Duration d) {
            this.tierCookieMaxAge = d;
            return this;
        }

        /**
         * Whether tier cookies carry {@code Secure} ({@code tier-cookie.secure}); unset, true for a name with the
         * {@code __Host-} or {@code __Secure-} prefix, else false. False with such a name fails {@link #build()}.
         */
        public Builder tierCookieSecure(boolean secure) {
            this.tierCookieSecure = secure;
            return this;
        }

        /** As {@link #tierCookieSecure(boolean)}, for the admission cookie ({@code session-cookie.secure}). */
        public Builder sessionCookieSecure(boolean secure) {
            this.sessionCookieSecure = secure;
            return this;
        }

        public Builder sessionCookieName(String name) {
            this.sessionCookieName = name;
            return this;
        }

        public Builder sessionMaxAge(Duration d) {
            this.sessionMaxAge = d;
            return this;
        }

        public Builder sessionTableMaxEntries(long n) {
            this.sessionTableMaxEntries = n;
            return this;
        }

        public Builder sessionIdleTimeout(Duration d) {
            this.sessionIdleTimeout = d;
            return this;
        }

        public Builder totalQueuedTrigger(int j) {
            this.totalQueuedTrigger = j;
            return this;
        }

        public Builder higherQueuedTrigger(int k) {
            this.higherQueuedTrigger = k;
            return this;
        }

        public Builder rejectStatus(int status) {
            this.rejectStatus = status;
            return this;
        }

        public Builder retryAfter(Duration d) {
            this.retryAfter = d;
            return this;
        }

        /** How often a running engine checks its policy file for a change ({@code policy.watch}); zero: never. */
        public Builder watch(Duration d) {
            this.watch = d;
            return this;
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

        /** {@code admission.max-per-session}: 0 (no limit) or more; default {@value #DEFAULT_MAX_PER_SESSION}. */
        public Builder maxPerSession(int n) {
            this.maxPerSession = n;
            return this;
        }

        /**
         * {@code admission.max-queued-per-address}: 0 (no limit) or more; default
         * {@value #DEFAULT_MAX_QUEUED_PER_ADDRESS}.
         */
        public Builder maxQueuedPerAddress(int n) {
            this.maxQueuedPerAddress = n;
            return this;
        }

        /**
         * {@code admission.max-new-sessions-per-address}: new sessions per second one client address may start, 0 (no
         * limit) or more; default {@value #DEFAULT_MAX_NEW_SESSIONS_PER_ADDRESS}.
         */
        public Builder maxNewSessionsPerAddress(double perSecond) {
            this.maxNewSessionsPerAddress = perSecond;
            return this;
        }

        /**
         * {@code admission.new-sessions-per-address-burst}: the depth of each address's new-session bucket, 1 or
         * more; default {@code max(1, ceil(max-new-sessions-per-address))}.
         */
        public Builder newSessionsPerAddressBurst(int sessions) {
            this.newSessionsPerAddressBurst = sessions;
            return this;
        }

        /** The controller's settings; default {@link ControlPolicy#DEFAULTS} (off). */
        public Builder control(ControlPolicy c) {
            this.control = c;
            return this;
        }

        private void checkBuckets() {
            ClassPolicy.check(bucketControl != null, "buckets.law", "null", "required");
            bucketControl.check();
            Set<String> seen = new HashSet<>();
            for (BucketPolicy b : buckets) {
                ClassPolicy.check(seen.add(b.name()), "bucket." + b.name(), b.name(), "bucket given twice");
                b.check();
            }
        }

        /**
         * Paper 000's capacity planning: the virtual servers' planned utilizations {@code a Rmax + b Wmax} must sum
         * to at most {@code vhosts.utilization-bound}; the message names every virtual server and its hosts.
         */
        private void checkVirtualServers() {
            if (virtualServers.isEmpty()) {
                return;
            }
            VirtualServerPlan p = virtualServerPlan;
            ClassPolicy.check(p != null, "vhosts.request-cost", "null", "required");
            if (!(p.requestCost() >= 0) || p.requestCost() > 1) {
                throw new PolicyException("vhosts.request-cost", Double.isNaN(p.requestCost()) ? "(unset)"
                        : String.valueOf(p.requestCost()), "required with virtual servers: the share of the "
                        + "bottleneck one request per second takes, 0..1 (a of paper 000's U = aR + bW)");
            }
            if (!(p.byteCost() >= 0) || p.byteCost() > 1) {
                throw new PolicyException("vhosts.byte-cost", Double.isNaN(p.byteCost()) ? "(unset)"
                        : String.valueOf(p.byteCost()), "required with virtual servers: the share of the "
                        + "bottleneck one response byte per second takes, 0..1 (b of paper 000's U = aR + bW)");
            }
            ClassPolicy.check(p.bound() > 0 && p.bound() < 1, "vhosts.utilization-bound", p.bound(),
                    "must be more than 0 and less than 1");
            Set<String> seen = new HashSet<>();
            double sum = 0;
            List<String> plans = new ArrayList<>();
            for (VirtualServerPolicy v : virtualServers) {
                ClassPolicy.check(seen.add(v.name()), "vhost." + v.name(), v.name(), "virtual server given twice");
                v.check();
                double u = v.plannedUtilization(p);
                sum += u;
                plans.add(v.name() + " (" + String.join(", ", v.hosts()) + ") " + String.format(java.util.Locale.ROOT,
                        "%.3f", u));
            }
            if (sum > p.bound()) {
                throw new PolicyException("vhosts.utilization-bound", String.valueOf(p.bound()), String.format(
                        java.util.Locale.ROOT, "capacity planning: the virtual servers plan a utilization of %.3f "
                        + "(a Rmax + b Wmax with a = %s, b = %s): %s; lower their vhost.<name>.rmax or .wmax, or "
                        + "raise the bound (below 1, for throughput guarantees only)", sum, p.requestCost(),
                        p.byteCost(), String.join(", ", plans)));
            }
        }

        /**
         * {@code content.paths}: the paths (patterns as a path rule's values) whose static content has a lighter
         * tree per content level; default none. See {@link ContentTrees}.
         */
        public Builder contentPaths(List<String> patterns) {
            this.contentPaths = List.copyOf(patterns);
            return this;
        }

        /**
         * {@code content.<level>.prefix}: where the content of {@code content.paths} is served from at this level
         * (below a class's full content), e.g. {@code /degraded}; null removes it. See {@link ContentTrees}.
         */
        public Builder contentPrefix(int level, String prefix) {
            if (prefix == null) {
                contentPrefixes.remove(level);
            } else {
                contentPrefixes.put(level, prefix);
            }
            return this;
        }

        /** Appends an exempt rule ({@code exempt.<n>.*}): the requests it matches bypass QoS. */
        public Builder addExempt(ExemptRule e) {
            exempt.add(java.util.Objects.requireNonNull(e));
            return this;
        }

        /** Removes every exempt rule. */
        public Builder clearExempt() {
            exempt.clear();
            return this;
        }

        /** {@code streams.event-stream}: whether an {@code Accept: text/event-stream} request is a stream. */
        public Builder streamsEventStream(boolean on) {
            this.streamsEventStream = on;
            return this;
        }

        /** {@code streams.paths}: the paths whose requests are streams (path patterns). */
        public Builder streamsPaths(List<String> patterns) {
            this.streamsPaths = List.copyOf(patterns);
            return this;
        }

        /** {@code streams.max-open}: the most streams open at once, 0..1000000 (0: no stream pool). */
        public Builder streamsMaxOpen(int n) {
            this.streamsMaxOpen = n;
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
            boolean given = maxExecuting != ClassPolicy.UNSET;
            ClassPolicy.check(!given || (maxExecuting >= 1 && maxExecuting <= 100_000), "max-executing",
                    maxExecuting, "must be 1..100000");
            ClassPolicy.check(control != null, "control", "null", "required");
            ControlPolicy.Capacity capacity = control.capacity() != null ? control.capacity()
                    : given ? ControlPolicy.Capacity.FIXED : ControlPolicy.Capacity.AUTO;
            int ceiling = given ? maxExecuting : capacity == ControlPolicy.Capacity.AUTO ? DEFAULT_CEILING
                    : INITIAL_LIMIT;
            int start = capacity == ControlPolicy.Capacity.AUTO ? Math.min(INITIAL_LIMIT, ceiling) : ceiling;
            ClassPolicy.check(totalQueuedTrigger >= 0, "admission.total-queued", totalQueuedTrigger,
                    "must be 0 (off) or more");
            ClassPolicy.check(higherQueuedTrigger >= 0, "admission.higher-queued", higherQueuedTrigger,
                    "must be 0 (off) or more");
            ClassPolicy.check(scheduling != null, "scheduling", "null", "required");
            Set<String> names = new HashSet<>();
            List<ClassPolicy> resolved = new ArrayList<>();
            for (int i = 0; i < classes.size(); i++) {
                ClassPolicy c = classes.get(i);
                if (!names.add(c.name())) {
                    throw new PolicyException("classes", c.name(), "class listed twice");
                }
                resolved.add(c.resolve(i, ceiling, totalQueuedTrigger, higherQueuedTrigger));
            }
            boolean anyTrigger = false;
            for (ClassPolicy c : resolved) {
                anyTrigger |= c.admission().totalQueuedTrigger() > 0 || c.admission().higherQueuedTrigger() > 0
                        || c.admission().sessionRate() > 0;
            }
            // a policy that gives numbers of its own (a limit, triggers, rates) keeps the static admission it was
            // written for; one that gives none is admitted by the laws
            ControlPolicy.Admission admission = control.admission() != null ? control.admission()
                    : anyTrigger || given ? ControlPolicy.Admission.TRIGGERS : ControlPolicy.Admission.AUTO;
            ControlPolicy resolvedControl = control.withCapacity(capacity).withAdmission(admission);
            String lowest = defaultClass != null ? defaultClass : resolved.get(resolved.size() - 1).name();
            if (admission == ControlPolicy.Admission.TRIGGERS && !resolved.get(0).name().equals(lowest)
                    && Double.isNaN(classes.get(0).admission().sessionRate())
                    && control.degradation().law() != ControlPolicy.DegradationLaw.PI) {
                // no trigger refuses the highest class, and its credentials can be shared (one tier cookie copied
                // to a botnet makes a premium session per request): it gets a session rate unless the policy gives
                // one, 0 (no limit) included, or the PI degradation law admits its new sessions (level below 1)
                resolved.set(0, resolved.get(0).withDefaultSessionRate(DEFAULT_TOP_SESSION_RATE,
                        classes.get(0).admission().sessionBurst()));
            }
            int reserves = 0;
            for (ClassPolicy c : resolved) {
                reserves += c.capacity().reserve();
            }
            ClassPolicy.check(reserves <= ceiling, "class.*.reserve", reserves,
                    "the reserves add up to more than max-executing (" + ceiling + ")");
            ClassPolicy top = resolved.get(0);
            if (resolved.size() > 1 && classes.get(0).capacity().reserve() == ClassPolicy.UNSET
                    && top.capacity().budget() >= DEFAULT_TOP_RESERVE
                    && ceiling >= reserves + DEFAULT_TOP_RESERVE + 1) {
                // a flood of the lower classes must not hold every permit when a request of the highest comes: it
                // keeps one, unless that would take the last permit the others could use (the given reserves aside)
                resolved.set(0, top.withReserve(DEFAULT_TOP_RESERVE));
            }
            if (defaultClass != null && !names.contains(defaultClass)) {
                throw new PolicyException("default-class", defaultClass, "no such class; classes are " + names);
            }
            checkBuckets();
            checkVirtualServers();
            boolean tierRule = false;
            for (int i = 0; i < rules.size(); i++) {
                Rule r = rules.get(i);
                String k = "rule." + (i + 1);
                if (r.type() == null) {
                    throw new PolicyException(k + ".type", "null", "required");
                }
                if (r.type() == Rule.Type.TIER_COOKIE) {
                    tierRule = true;
                    continue;
                }
                if (r.serviceClass() == null || !names.contains(r.serviceClass())) {
                    throw new PolicyException(k + ".class", String.valueOf(r.serviceClass()),
                            "no such class; classes are " + names);
                }
                if (r.type() == Rule.Type.HEADER && (r.header() == null || r.header().isBlank())) {
                    throw new PolicyException(k + ".header", String.valueOf(r.header()),
                            "a header rule needs the header name");
                }
                if (r.type() != Rule.Type.HEADER && r.values().isEmpty()) {
                    throw new PolicyException(k + ".value", "", "a " + r.type().key() + " rule needs a value");
                }
                try {
                    r.valueMatcher();
                } catch (IllegalArgumentException e) {
                    throw new PolicyException(k + ".value", String.join(", ", r.values()), e.getMessage());
                }
            }
            ClassPolicy.check(isToken(tierCookieName), "tier-cookie.name", tierCookieName,
                    "must be a cookie name (letters, digits, '-', '_', '.')");
            ClassPolicy.check(isToken(sessionCookieName), "session-cookie.name", sessionCookieName,
                    "must be a cookie name (letters, digits, '-', '_', '.')");
            ClassPolicy.check(!tierCookieName.equals(sessionCookieName), "session-cookie.name", sessionCookieName,
                    "must differ from tier-cookie.name");
            checkSecretLength(secret, "tier-cookie.secret");
            checkSecretLength(previousSecret, "tier-cookie.previous-secret");
            if (tierRule && secret == null) {
                throw new PolicyException("tier-cookie.secret", "(unset)",
                        "a tier-cookie rule needs a secret, else tier cookies cannot be trusted");
            }
            if (previousSecret != null && secret == null) {
                throw new PolicyException("tier-cookie.secret", "(unset)", "tier-cookie.previous-secret is set, "
                        + "which only checks cookies during a key rotation: set the key that signs here too");
            }
            checkSecure(tierCookieSecure, tierCookieName, "tier-cookie");
            checkSecure(sessionCookieSecure, sessionCookieName, "session-cookie");
            checkCookieAge(tierCookieMaxAge, "tier-cookie.max-age");
            checkCookieAge(sessionMaxAge, "session-cookie.max-age");
            checkPositive(sessionIdleTimeout, "session-table.idle-timeout");
            ClassPolicy.check(sessionTableMaxEntries >= 1 && sessionTableMaxEntries <= 100_000_000,
                    "session-table.max-entries", sessionTableMaxEntries, "must be 1..100000000");
            ClassPolicy.check(rejectStatus == 503 || rejectStatus == 429, "admission.reject-status", rejectStatus,
                    "must be 503 or 429");
            ClassPolicy.check(retryAfter != null && !retryAfter.isNegative() && retryAfter.getSeconds() <= 86_400,
                    "admission.retry-after", retryAfter, "must be 0s..1d");
            ClassPolicy.check(watch != null && (watch.isZero() || watch.compareTo(Duration.ofSeconds(1)) >= 0
                    && watch.compareTo(Duration.ofHours(1)) <= 0), "policy.watch", watch, "must be 0s (never) or "
                    + "1s..1h");
            ClassPolicy.check(maxPerSession >= 0 && maxPerSession <= 1_000_000, "admission.max-per-session",
                    maxPerSession, "must be 0 (no limit)..1000000");
            ClassPolicy.check(maxQueuedPerAddress >= 0 && maxQueuedPerAddress <= 1_000_000,
                    "admission.max-queued-per-address", maxQueuedPerAddress, "must be 0 (no limit)..1000000");
            ClassPolicy.check(maxNewSessionsPerAddress >= 0 && maxNewSessionsPerAddress <= 1_000_000,
                    "admission.max-new-sessions-per-address", maxNewSessionsPerAddress,
                    "must be 0 (no limit)..1000000 new sessions per second");
            ClassPolicy.check(newSessionsPerAddressBurst == ClassPolicy.UNSET,
                    "admission.new-sessions-per-address-burst", newSessionsPerAddressBurst, "is no longer used: an "
                    + "address's new sessions are a fair share of its class's admissions while the class rations "
                    + "them, with no bucket of their own (admission.max-new-sessions-per-address is the least share); "
                    + "remove the key, see docs/configuration.md, Admission");
            resolvedControl.check(classes.size());
            int maxLevels = 1;
            for (ClassPolicy c : resolved) {
                maxLevels = Math.max(maxLevels, c.content().levels());
            }
            String[] prefixes = new String[ClassPolicy.Content.MAX_LEVELS];
            for (Map.Entry<Integer, String> e : contentPrefixes.entrySet()) {
                int level = e.getKey();
                ClassPolicy.check(level >= 1 && level < prefixes.length, "content." + level + ".prefix", e.getValue(),
                        "the level must be 1.." + (prefixes.length - 1) + " (below the full content of a class)");
                prefixes[level] = e.getValue();
            }
            ContentTrees trees = ContentTrees.of(contentPaths, prefixes, maxLevels);
            for (int i = 0; i < exempt.size(); i++) {
                exempt.get(i).check("exempt." + (i + 1));
            }
            try {
                ValueMatcher.paths(streamsPaths);
            } catch (IllegalArgumentException e) {
                throw new PolicyException("streams.paths", String.join(", ", streamsPaths), e.getMessage());
            }
            ClassPolicy.check(streamsMaxOpen >= 0 && streamsMaxOpen <= 1_000_000, "streams.max-open", streamsMaxOpen,
                    "must be 0 (no stream pool)..1000000");
            return new QosPolicy(this, resolved, start, ceiling, resolvedControl, trees);
        }

        /** The length in bytes, never the value: {@code tier-cookie.secret = (hidden, 14 bytes): ...}. */
        private static void checkSecretLength(String secret, String key) {
            if (secret == null) {
                return;
            }
            int bytes = secret.getBytes(StandardCharsets.UTF_8).length;
            if (bytes < MIN_SECRET_BYTES) {
                throw new PolicyException(key, "(hidden, " + bytes + " bytes)",
                        "must be at least " + MIN_SECRET_BYTES + " bytes");
            }
        }

        private static void checkSecure(Boolean secure, String name, String cookie) {
            if (Boolean.FALSE.equals(secure) && requiresSecure(name)) {
                throw new PolicyException(cookie + ".secure", "false", "browsers keep a cookie named " + name
                        + " only with the Secure attribute; set it to true (the default for such a name) or drop the"
                        + " prefix from " + cookie + ".name");
            }
        }

        // Browsers cap cookie lifetimes at 400 days (RFC 6265bis); below a second Max-Age would be 0 and delete it.
        private static void checkCookieAge(Duration d, String key) {
            ClassPolicy.check(d != null && d.getSeconds() >= 1 && d.compareTo(Duration.ofDays(400)) <= 0, key, d,
                    "must be 1s..400d");
        }

        private static void checkPositive(Duration d, String key) {
            ClassPolicy.check(d != null && !d.isNegative() && !d.isZero(), key, d, "must be more than 0");
        }

        private static boolean isToken(String s) {
            if (s == null || s.isEmpty() || s.length() > 64) {
                return false;
            }
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                if (c != '.' && !ClassPolicy.isNameChar(c)) {
                    return false;
                }
            }
            return true;
        }
    }
}

package dev.servletqos.policy;

import static dev.servletqos.policy.Key.Default.NONE;
import static dev.servletqos.policy.Key.Default.REQUIRED;
import static dev.servletqos.policy.Key.Default.computed;
import static dev.servletqos.policy.Key.Default.of;
import static dev.servletqos.policy.ValueType.BOOLEAN;
import static dev.servletqos.policy.ValueType.DECIMAL;
import static dev.servletqos.policy.ValueType.DURATION;
import static dev.servletqos.policy.ValueType.INTEGER;
import static dev.servletqos.policy.ValueType.LIST;
import static dev.servletqos.policy.ValueType.LONG;
import static dev.servletqos.policy.ValueType.SECRET;
import static dev.servletqos.policy.ValueType.STRING;

import dev.servletqos.policy.Key.Default;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;

/**
 * The key table: every key of the policy file, described once. {@link PolicyParser} reads it to parse values,
 * to refuse unknown keys and to suggest the nearest one; a test holds {@code docs/configuration.md} to it
 * (every key documented, with the same default). Adding a key is one row here and one component of the record
 * its section applies to.
 *
 * <p>The keys fall in sections by what their values are applied to: the policy builder (keys without a
 * prefix), one record per concern ({@code tier-cookie.} and {@code session-cookie.} to {@link CookiePolicy},
 * {@code session-table.}, {@code admission.}, {@code content.}, {@code streams.}, {@code control.}), each class
 * ({@code class.<name>.}), each rule ({@code rule.<n>.}) and the other named entries.
 *
 * <p>Each row reads: name, type, default, range, unit, one-line description, setter (see {@link Key}).
 */
final class PolicyKeys {

    /**
     * Keys sharing a prefix and what they apply to.
     *
     * @param prefix the keys' common prefix as the docs write it: empty, {@code class.<name>.} or
     *               {@code rule.<n>.}
     * @param keys   the rows, in the order the parser applies them
     * @param <S>    what the keys' values are applied to
     */
    record Section<S>(String prefix, List<Key<S, ?>> keys) {

        Section {
            keys = List.copyOf(keys);
        }

        /** The prefix for one class or rule: {@code class.premium.} for {@code id} "premium". */
        String prefix(String id) {
            int open = prefix.indexOf('<');
            return open < 0 ? prefix : prefix.substring(0, open) + id + prefix.substring(prefix.indexOf('>') + 1);
        }

        /** The row named {@code name} (without the prefix), or null. */
        Key<S, ?> find(String name) {
            for (Key<S, ?> k : keys) {
                if (k.name().equals(name)) {
                    return k;
                }
            }
            return null;
        }

        /** The keys without the prefix: {@code budget, min-budget, ...}. */
        String suffixes() {
            List<String> names = new ArrayList<>(keys.size());
            for (Key<S, ?> k : keys) {
                names.add(k.name());
            }
            return String.join(", ", names);
        }

        /** The full keys for one class or rule, or the documented names when {@code id} is null. */
        List<String> names(String id) {
            String p = id == null ? prefix : prefix(id);
            List<String> names = new ArrayList<>(keys.size());
            for (Key<S, ?> k : keys) {
                names.add(p + k.name());
            }
            return names;
        }
    }

    private static final ValueType<QosPolicy.Scheduling> SCHEDULING = ValueType.oneOf("scheduling",
            QosPolicy.Scheduling.values(), QosPolicy.Scheduling::key);
    private static final ValueType<Rule.Type> RULE_TYPES = ValueType.oneOf("rule type", Rule.Type.values(),
            Rule.Type::key);

    private static final String SECRET_LENGTH = "at least " + CookiePolicy.MIN_SECRET_BYTES + " bytes (UTF-8)";

    static final Key<QosPolicy.Builder, List<String>> CLASSES = global("classes", LIST, REQUIRED,
            "at least one, each once", "", "The service classes, highest priority first.", (b, names) -> {
                for (String name : names) {
                    b.addClass(ClassPolicy.named(name));
                }
                return b;
            });

    /** Keys without a prefix, applied to the {@link QosPolicy.Builder}. */
    static final Section<QosPolicy.Builder> GLOBAL = new Section<>("", List.of(
            CLASSES,
            global("default-class", STRING, computed("the last (lowest) class"), "one of classes", "",
                    "The class of a new session that no rule matches.", QosPolicy.Builder::defaultClass),
            global("scheduling", SCHEDULING, of("strict-priority"), SCHEDULING.choiceList(), "",
                    "Which waiting request gets a permit when one frees up.", QosPolicy.Builder::scheduling),
            global("max-executing", INTEGER, computed("found by the capacity law, at most 200"), "1..100000",
                    "requests", "Requests executing at once over all classes; with control.capacity = auto, "
                    + "the ceiling of the limit the engine finds.", QosPolicy.Builder::maxExecuting),
            global("borrowing", BOOLEAN, of("true"), "", "",
                    "Whether a class may start requests on permits other classes leave idle.",
                    QosPolicy.Builder::borrowing),
            global("policy.watch", DURATION, of("0s"), "0s (never) or 1s..1h", "",
                    "How often a running engine checks its policy file for a change and reloads it, as the JMX "
                    + "operation reloadPolicy does; a file that does not load is logged and the policy in force "
                    + "stays. 0s: only on request.", QosPolicy.Builder::watch)));

    /** Keys {@code tier-cookie.*}, applied to the {@link CookiePolicy}. */
    static final Section<CookiePolicy> TIER_COOKIE = new Section<>("tier-cookie.", List.of(
            cookie("name", STRING, of("QOSTIER"), "1..64 letters, digits, '-', '_', '.'", "",
                    "Name of the signed subscription cookie the application issues.", CookiePolicy::withTierName),
            cookie("secret", SECRET, NONE, SECRET_LENGTH, "",
                    "Key that signs and checks the tier and session cookies (HMAC).", CookiePolicy::withSecret),
            cookie("previous-secret", SECRET, NONE, SECRET_LENGTH, "",
                    "A second key still accepted for checking, during key rotation.",
                    CookiePolicy::withPreviousSecret),
            cookie("max-age", DURATION, of("365d"), "1s..400d", "",
                    "Lifetime of an issued tier cookie, and the oldest one honoured.", CookiePolicy::withTierMaxAge),
            cookie("secure", BOOLEAN, computed("true if tier-cookie.name starts with __Host- or "
                    + "__Secure-, else false"), "", "", "Whether tier cookies carry the Secure attribute.",
                    CookiePolicy::withTierSecure)));

    /** Keys {@code session-cookie.*}, applied to the {@link CookiePolicy}. */
    static final Section<CookiePolicy> SESSION_COOKIE = new Section<>("session-cookie.", List.of(
            cookie("name", STRING, of("QOSSESSION"), "a cookie name other than tier-cookie.name", "",
                    "Name of the signed per-session admission cookie.", CookiePolicy::withSessionName),
            cookie("max-age", DURATION, of("30m"), "1s..400d", "",
                    "How long an admission stays valid without renewal.", CookiePolicy::withSessionMaxAge),
            cookie("secure", BOOLEAN, computed("true if session-cookie.name starts with __Host- or "
                    + "__Secure-, else false"), "", "", "Whether admission cookies carry the Secure attribute.",
                    CookiePolicy::withSessionSecure)));

    /** Keys {@code session-table.*}, applied to the {@link SessionTablePolicy}. */
    static final Section<SessionTablePolicy> SESSION_TABLE = new Section<>("session-table.", List.of(
            new Key<>("max-entries", LONG, of("100000"), "1..100000000", "sessions",
                    "Bound of this node's table of admitted sessions.", SessionTablePolicy::withMaxEntries),
            new Key<>("idle-timeout", DURATION, of("30m"), "more than 0", "",
                    "A session without a request for this long is forgotten by the table.",
                    SessionTablePolicy::withIdleTimeout)));

    /** Keys {@code admission.*}, applied to the {@link AdmissionLimits}. */
    static final Section<AdmissionLimits> ADMISSION = new Section<>("admission.", List.of(
            admission("total-queued", INTEGER, of("0", "off"), "0 or more", "requests",
                    "WebQoS trigger j for all classes but the highest.", AdmissionLimits::withTotalQueuedTrigger),
            admission("higher-queued", INTEGER, of("0", "off"), "0 or more", "requests",
                    "WebQoS trigger k for all classes but the highest.", AdmissionLimits::withHigherQueuedTrigger),
            admission("reject-status", INTEGER, of("503"), "503 or 429", "",
                    "HTTP status of a refused new session.", AdmissionLimits::withRejectStatus),
            admission("retry-after", DURATION, of("10s"), "0s..1d, rounded up to whole seconds", "",
                    "The Retry-After of every refusal; with control.admission = auto, the longest one the "
                    + "engine computes.", AdmissionLimits::withRetryAfter),
            admission("max-per-session", INTEGER, of(String.valueOf(AdmissionLimits.DEFAULT_MAX_PER_SESSION)),
                    "0 (no limit)..1000000", "requests", "Requests one session may have executing or waiting in "
                    + "their class's queue; the rest wait in the session's line (at most max-queue; beyond, 429).",
                    AdmissionLimits::withMaxPerSession),
            admission("max-queued-per-address", INTEGER,
                    of(String.valueOf(AdmissionLimits.DEFAULT_MAX_QUEUED_PER_ADDRESS)), "0 (no limit)..1000000",
                    "requests", "The least share of a scarce queue one client address keeps; beyond its share, 429.",
                    AdmissionLimits::withMaxQueuedPerAddress),
            admission("max-new-sessions-per-address", DECIMAL,
                    of(String.valueOf((int) AdmissionLimits.DEFAULT_MAX_NEW_SESSIONS_PER_ADDRESS)),
                    "0 (off)..1000000", "new sessions per second",
                    "The least fair share of its class's new sessions one client address keeps while the class "
                    + "rations them; beyond its share, admission.reject-status.",
                    AdmissionLimits::withMaxNewSessionsPerAddress),
            admission("new-sessions-per-address-burst", INTEGER,
                    NONE, "none: setting it fails", "",
                    "No longer used: setting it fails at start.", AdmissionLimits::retiredBurst)));

    /** Key {@code content.paths}, applied to the {@link ContentPolicy}; each level's prefix is {@link #CONTENT}'s. */
    static final Section<ContentPolicy> CONTENT_PATHS = new Section<>("content.", List.of(
            new Key<>("paths", LIST, NONE, "path patterns, as a path rule's values", "",
                    "Paths whose static content is served from a lighter tree below full content.",
                    ContentPolicy::withPaths)));

    /** Keys {@code streams.*}, applied to the {@link StreamsPolicy}. */
    static final Section<StreamsPolicy> STREAMS = new Section<>("streams.", List.of(
            new Key<>("event-stream", BOOLEAN, of("true"), "", "",
                    "Whether a request whose Accept header asks for text/event-stream (server-sent events) is a "
                    + "stream candidate: it enters with a permit like any request, and gives the permit back once "
                    + "its application went asynchronous.", StreamsPolicy::withEventStream),
            new Key<>("paths", LIST, NONE, "path patterns, as a path rule's values", "",
                    "Paths whose requests are stream candidates (long-poll, large downloads): a permit until the "
                    + "application goes asynchronous, none while the stream stays open.", StreamsPolicy::withPaths),
            new Key<>("max-open", INTEGER, of(String.valueOf(StreamsPolicy.DEFAULT_MAX_OPEN)),
                    "0 (no stream pool)..1000000", "streams",
                    "Streams open at once; beyond it a stream is refused with 503 (reason streams-full).",
                    StreamsPolicy::withMaxOpen)));

    /** Keys {@code cluster.*}, applied to the {@link ClusterPolicy}. */
    static final Section<ClusterPolicy> CLUSTER = new Section<>("cluster.", List.of(
            new Key<>("redis", STRING, NONE, "redis://host:port (rediss:// for TLS; user:password@ and /db allowed)",
                    "", "The Redis server the nodes of a cluster share their limits, settings and status through; "
                    + "none: this node alone (docs/cluster.md).", ClusterPolicy::withRedis),
            new Key<>("node-id", STRING, computed("the host name and the process id"),
                    "1..128 letters, digits, _ . : @ / -", "",
                    "This node's name in the cluster, unique among its nodes.", ClusterPolicy::withNodeId),
            new Key<>("period", DURATION, computed("control.period"), "100ms..1m", "",
                    "How often the node exchanges its demand and status with the cluster; the bound of "
                    + "over-admission is one period's lease per node.", ClusterPolicy::withPeriod),
            new Key<>("key-prefix", STRING, of(ClusterPolicy.DEFAULT_PREFIX), "1..64 letters, digits, _ . : / { } -",
                    "", "The prefix of every Redis key of the cluster, so that clusters can share one server.",
                    ClusterPolicy::withKeyPrefix)));

    /**
     * The sections of keys without an id, applied to the builder and to one record each: what the parser tries a
     * key against first, and the keys it suggests from.
     */
    static final List<Section<?>> PLAIN = List.of(GLOBAL, TIER_COOKIE, SESSION_COOKIE, SESSION_TABLE, ADMISSION,
            CONTENT_PATHS, STREAMS, CLUSTER);

    /** Keys {@code class.<name>.*}, applied to each {@link ClassPolicy}. */
    static final Section<ClassPolicy> CLASS = new Section<>("class.<name>.", List.of(
            perClass("budget", INTEGER, computed("max-executing"), "0..max-executing", "permits",
                    "Requests of the class executing at once on its own permits.", ClassPolicy::withBudget),
            perClass("min-budget", INTEGER, of("1", "0 if the budget is 0"), "0..the class's budget", "permits",
                    "The lowest budget a controller may set (its floor), against starvation.",
                    ClassPolicy::withMinBudget),
            perClass("weight", INTEGER, of("1"), "1..1000", "", "Share of dispatches under weighted scheduling.",
                    ClassPolicy::withWeight),
            perClass("reserve", INTEGER, computed("1 for the highest class of two or more (0 if its budget is 0), "
                    + "kept while max-executing is at least the other classes' reserves plus 2; else 0"),
                    "0..the class's budget; all reserves at most max-executing", "permits",
                    "Permits kept free for the class and never lent to others, even when it is idle.",
                    ClassPolicy::withReserve),
            perClass("max-queue", INTEGER, of("1000"), "0..1000000", "requests",
                    "Longest queue of waiting requests; a request finding it full is refused.",
                    ClassPolicy::withMaxQueue),
            perClass("max-wait", DURATION, of("10s"), "more than 0, at most 1h", "",
                    "Longest time a request waits for a permit; then it is refused.", ClassPolicy::withMaxWait),
            perClass("delay-target", DURATION, of("1s"), "more than 0, at most 1h", "",
                    "Target queueing delay: the earliest-deadline deadline and the delay controller's reference.",
                    ClassPolicy::withDelayTarget),
            perClass("session-rate", DECIMAL, computed("50 for the highest class with control.admission = triggers "
                    + "unless it is default-class or control.degradation = pi "
                    + "(that law refuses every class's new sessions once no lighter content is left); else 0 (no limit)"),
                    "0..1e9", "new sessions per second",
                    "Token bucket rate for admitting new sessions of the class.", ClassPolicy::withSessionRate),
            perClass("cluster-session-rate", DECIMAL, of("0", "no cluster cap"), "0..1e9", "new sessions per second",
                    "With cluster.redis: the class's new sessions admitted per second over all nodes, each node's "
                    + "share following its demand.", ClassPolicy::withClusterSessionRate),
            perClass("session-burst", INTEGER, computed("max(1, ⌈rate⌉)"), "1..1000000", "sessions",
                    "Depth of the new-session token bucket.", ClassPolicy::withSessionBurst),
            perClass("admission.total-queued", INTEGER,
                    computed("the policy-wide admission.total-queued; 0 (off) for the highest class"),
                    "0 (off) or more", "requests", "WebQoS trigger j for the class.",
                    ClassPolicy::withTotalQueuedTrigger),
            perClass("admission.higher-queued", INTEGER, computed("the policy-wide admission.higher-queued"),
                    "0 (off) or more; 0 for the highest class", "requests", "WebQoS trigger k for the class.",
                    ClassPolicy::withHigherQueuedTrigger),
            perClass("levels", INTEGER, of("1", "full content only"), "1.." + ClassPolicy.Content.MAX_LEVELS,
                    "levels", "Content levels above refusal (M): the engine serves each session at one of "
                    + "1..M, M full.", ClassPolicy::withLevels)));

    private static final ValueType<ControlPolicy.Mode> MODES = ValueType.oneOf("control mode",
            ControlPolicy.Mode.values(), ControlPolicy.Mode::key);
    private static final ValueType<Double> DELAYS = ValueType.oneOf("delay", ControlPolicy.DELAYS);
    private static final ValueType<ControlPolicy.Capacity> CAPACITIES = ValueType.oneOf("capacity",
            ControlPolicy.Capacity.values(), ControlPolicy.Capacity::key);
    private static final ValueType<ControlPolicy.Admission> ADMISSIONS = ValueType.oneOf("admission",
            ControlPolicy.Admission.values(), ControlPolicy.Admission::key);

    private static final ValueType<ControlPolicy.DegradationLaw> DEGRADATIONS = ValueType.oneOf("degradation",
            ControlPolicy.DegradationLaw.values(), ControlPolicy.DegradationLaw::key);
    private static final ValueType<ControlPolicy.UtilizationSource> SOURCES = ValueType.oneOf("utilization source",
            ControlPolicy.UtilizationSource.values(), ControlPolicy.UtilizationSource::key);

    /** Keys {@code control.*}, applied to the {@link ControlPolicy}, which then goes to the builder. */
    static final Section<ControlPolicy> CONTROL = new Section<>("control.", List.of(
            control("mode", MODES, of("off"), MODES.choiceList(), "",
                    "Which feedback law sets the budgets each period, if any.", ControlPolicy::withMode),
            control("capacity", CAPACITIES, computed("auto without max-executing, else fixed"),
                    CAPACITIES.choiceList(), "",
                    "Whether the capacity law finds max-executing (a configured one is then its ceiling).",
                    ControlPolicy::withCapacity),
            control("admission", ADMISSIONS, computed("auto unless max-executing, a trigger or a session-rate is set"),
                    ADMISSIONS.choiceList(), "",
                    "Whether each class's admission law sets its session rate from its delay target.",
                    ControlPolicy::withAdmission),
            control("period", DURATION, of("1s"), "100ms..1m", "", "The sampling period: how often the law runs.",
                    ControlPolicy::withPeriod),
            control("delay", DELAYS, of("mean"), DELAYS.choiceList(), "",
                    "Which queue delay the controller holds at each class's delay-target.",
                    ControlPolicy::withDelayQuantile),
            control("absolute.gain", DECIMAL, of(String.valueOf(ControlPolicy.DEFAULT_ABSOLUTE_GAIN)),
                    "finite, not 0", "", "Gain g of the absolute delay law.",
                    (c, g) -> c.withAbsolute(new ControlPolicy.Gains(g, c.absolute().zero()))),
            control("absolute.zero", DECIMAL, of(String.valueOf(ControlPolicy.DEFAULT_ABSOLUTE_ZERO)),
                    "at least 0, less than 1", "", "Zero r of the absolute delay law.",
                    (c, r) -> c.withAbsolute(new ControlPolicy.Gains(c.absolute().gain(), r))),
            control("relative.gain", DECIMAL, of(String.valueOf(ControlPolicy.DEFAULT_RELATIVE_GAIN)),
                    "finite, not 0", "", "Gain g of the relative delay law.",
                    (c, g) -> c.withRelative(new ControlPolicy.Gains(g, c.relative().zero()))),
            control("relative.zero", DECIMAL, of(String.valueOf(ControlPolicy.DEFAULT_RELATIVE_ZERO)),
                    "at least 0, less than 1", "", "Zero r of the relative delay law.",
                    (c, r) -> c.withRelative(new ControlPolicy.Gains(c.relative().gain(), r))),
            control("anti-windup", BOOLEAN, of("true"), "", "",
                    "Whether the laws stop integrating while a budget is held at a limit.",
                    ControlPolicy::withAntiWindup),
            control("degradation", DEGRADATIONS, of("none"), DEGRADATIONS.choiceList(), "",
                    "Which law sets each class's content level from the server's utilization, if any.",
                    (c, v) -> c.withDegradation(c.degradation().withLaw(v))),
            control("utilization.source", SOURCES, of("auto"), SOURCES.choiceList(), "",
                    "Which utilization the degradation laws hold: process CPU, worker occupancy, or the busier.",
                    (c, v) -> c.withDegradation(c.degradation().withSource(v))),
            control("utilization.target", DECIMAL, of(String.valueOf(ControlPolicy.Degradation.DEFAULT_TARGET)),
                    "0.05..0.98", "", "The utilization the PI degradation law holds.",
                    (c, v) -> c.withDegradation(c.degradation().withTarget(v))),
            control("utilization.gain-margin", DECIMAL,
                    of(String.valueOf(ControlPolicy.Degradation.DEFAULT_GAIN_MARGIN)), "2.5..100", "",
                    "The gain margin G the PI degradation law's gains are designed for.",
                    (c, v) -> c.withDegradation(c.degradation().withGainMargin(v))),
            control("threshold.high", DECIMAL, of(String.valueOf(ControlPolicy.Degradation.DEFAULT_HIGH)),
                    "above low, at most 1", "", "Threshold mode degrades content above this averaged utilization.",
                    (c, v) -> c.withDegradation(c.degradation().withThresholds(v, c.degradation().low()))),
            control("threshold.low", DECIMAL, of(String.valueOf(ControlPolicy.Degradation.DEFAULT_LOW)),
                    "0..high", "", "Threshold mode restores full content below this averaged utilization.",
                    (c, v) -> c.withDegradation(c.degradation().withThresholds(c.degradation().high(), v))),
            control("threshold.network-high", DECIMAL,
                    of(String.valueOf(ControlPolicy.Degradation.DEFAULT_NETWORK_HIGH)), "above network-low, at most 1",
                    "", "Threshold mode degrades content above this averaged network utilization.",
                    (c, v) -> c.withDegradation(c.degradation().withNetworkThresholds(v,
                            c.degradation().networkLow()))),
            control("threshold.network-low", DECIMAL,
                    of(String.valueOf(ControlPolicy.Degradation.DEFAULT_NETWORK_LOW)), "0..network-high", "",
                    "Threshold mode restores full content below this averaged network utilization.",
                    (c, v) -> c.withDegradation(c.degradation().withNetworkThresholds(
                            c.degradation().networkHigh(), v))),
            control("threshold.weight", DECIMAL, of(String.valueOf(ControlPolicy.Degradation.DEFAULT_WEIGHT)),
                    "more than 0, at most 1", "", "The newest period's weight in threshold mode's averages.",
                    (c, v) -> c.withDegradation(c.degradation().withWeight(v))),
            control("utilization.rejection-cost", DECIMAL, of("0", "refusals cost nothing"), "0..1000", "ms",
                    "Paper 000's c: the utilization one refused request per second costs.",
                    (c, v) -> c.withDegradation(c.degradation().withRejectionCost(v / 1000))),
            control("threshold.interval", DURATION, of("40s"), "100ms..10m", "",
                    "Threshold mode's measurement interval, averaged before the exponential average.",
                    (c, v) -> c.withDegradation(c.degradation().withInterval(v))),
            control("network.capacity", LONG, of("0", "the network is not watched"), "0..", "bytes/s",
                    "The bytes per second the network carries at most, for the network utilization.",
                    (c, v) -> c.withDegradation(c.degradation().withNetworkCapacity(v)))));

    static final Key<Rule, Rule.Type> RULE_TYPE = rule("type", RULE_TYPES, REQUIRED, RULE_TYPES.choiceList(), "",
            "What the rule looks at.",
            (r, type) -> new Rule(type, r.values(), r.header(), r.serviceClass(), r.trusted()));

    /**
     * Keys {@code rule.<n>.*}, applied to a {@link Rule} that starts empty. Which keys a rule needs or
     * refuses depends on its type; the parser checks that.
     */
    static final Section<Rule> RULE = new Section<>("rule.<n>.", List.of(
            RULE_TYPE,
            rule("value", LIST, NONE, "by type", "", "What the rule matches.",
                    (r, values) -> new Rule(r.type(), values, r.header(), r.serviceClass(), r.trusted())),
            rule("header", STRING, NONE, "a header name", "", "For header rules: the request header to look at.",
                    (r, header) -> new Rule(r.type(), r.values(), header, r.serviceClass(), r.trusted())),
            rule("class", STRING, computed("required, except for tier-cookie"), "one of classes", "",
                    "The class of matching requests.",
                    (r, serviceClass) -> new Rule(r.type(), r.values(), r.header(), serviceClass, r.trusted())),
            rule("trusted", BOOLEAN, of("false"), "", "",
                    "For path, host and header rules: whether the rule gives a session its class (a credential), "
                    + "not only lowers requests.",
                    (r, trusted) -> new Rule(r.type(), r.values(), r.header(), r.serviceClass(), trusted))));

    /**
     * Keys {@code exempt.<n>.*}, applied to an {@link ExemptRule} that starts empty: requests it matches bypass
     * QoS. A rule gives at least one of them; the parser checks that.
     */
    static final Section<ExemptRule> EXEMPT = new Section<>("exempt.<n>.", List.of(
            exempt("paths", LIST, NONE, "path patterns, as a path rule's values", "",
                    "The paths of the exempt requests; none: any path.", ExemptRule::withPaths),
            exempt("methods", LIST, NONE, "HTTP methods such as GET, HEAD", "",
                    "The methods of the exempt requests; none: any method.", ExemptRule::withMethods),
            exempt("addresses", LIST, NONE, "IP addresses and CIDR ranges, as an ip rule's values", "",
                    "The client addresses of the exempt requests; none: any address.", ExemptRule::withAddresses)));

    private static final ValueType<BucketControl.Law> BUCKET_LAWS = ValueType.oneOf("bucket law",
            BucketControl.Law.values(), BucketControl.Law::key);

    /** Keys {@code buckets.*}: how the bucket law adapts the token-bucket rules' rates. */
    static final Section<BucketControl> BUCKETS = new Section<>("buckets.", List.of(
            buckets("law", BUCKET_LAWS, of("cpu"), BUCKET_LAWS.choiceList(), "",
                    "Which controller adapts the buckets' rates: P on CPU utilization or PD on the queue length.",
                    BucketControl::withLaw),
            buckets("cpu-target", DECIMAL, of("0.9"), "more than 0, at most 1", "",
                    "The CPU utilization the P controller holds.", BucketControl::withCpuTarget),
            buckets("cpu-gain", DECIMAL, of("20"), "more than 0", "requests/s per unit of utilization",
                    "Kp of the P controller on CPU.", BucketControl::withCpuGain),
            buckets("queue-target", DECIMAL, of("10"), "0..1000000", "requests",
                    "The number of requests queued in the engine that the PD controller holds.",
                    BucketControl::withQueueTarget),
            buckets("queue-gain", DECIMAL, of("0.0625"), "more than 0", "requests/s per queued request",
                    "Kp of the PD controller on the queue length.", BucketControl::withQueueGain),
            buckets("queue-derivative", DECIMAL, of("0.25"), "0 or more", "requests/s per request of growth",
                    "Kd of the PD controller on the queue length.", BucketControl::withQueueDerivative)));

    /** Keys {@code bucket.<name>.*}, applied to a {@link BucketPolicy}: one token-bucket rule each. */
    static final Section<BucketPolicy> BUCKET = new Section<>("bucket.<name>.", List.of(
            bucket("path", LIST, NONE, "path patterns, as a path rule's; this or cookie", "",
                    "The paths whose requests take a token of this bucket.", BucketPolicy::withPaths),
            bucket("cookie", STRING, NONE, "NAME or NAME=VALUE; this or path", "",
                    "The cookie whose requests take a token of this bucket.", BucketPolicy::withCookie),
            bucket("rate", DECIMAL, REQUIRED, "more than 0, at most 1e9", "requests per second",
                    "The bucket's starting rate, adapted each control period by the bucket law.",
                    BucketPolicy::withRate),
            bucket("min-rate", DECIMAL, computed("0: no minimum"), "0..the rate", "requests per second",
                    "The lowest rate the bucket law sets.", BucketPolicy::withMinRate),
            bucket("depth", INTEGER, computed("5 (paper 002's)"), "1..1000000", "requests",
                    "The bucket's depth (burst), fixed.", BucketPolicy::withDepth),
            bucket("cluster-rate", DECIMAL, computed("0: no cluster cap"), "0..1e9", "requests per second",
                    "With cluster.redis: the bucket's rate over all nodes, each node's share following its demand.",
                    BucketPolicy::withClusterRate)));

    /** Keys {@code vhosts.*}: the virtual servers' capacity plan. */
    static final Section<VirtualServerPlan> VHOSTS = new Section<>("vhosts.", List.of(
            vhosts("request-cost", DECIMAL, computed("required with virtual servers"), "0..1",
                    "utilization per request/s", "a of U = aR + bW: the bottleneck's share one request per second "
                    + "takes.", VirtualServerPlan::withRequestCost),
            vhosts("byte-cost", DECIMAL, computed("required with virtual servers"), "0..1",
                    "utilization per byte/s", "b of U = aR + bW: the bottleneck's share one response byte per "
                    + "second takes.", VirtualServerPlan::withByteCost),
            vhosts("utilization-bound", DECIMAL, of("0.58"), "more than 0, less than 1", "",
                    "The most the virtual servers' planned utilizations a Rmax + b Wmax may sum to.",
                    VirtualServerPlan::withBound)));

    /** Keys {@code vhost.<name>.*}, applied to a {@link VirtualServerPolicy}: one virtual server each. */
    static final Section<VirtualServerPolicy> VHOST = new Section<>("vhost.<name>.", List.of(
            vhost("hosts", LIST, REQUIRED, "host names, as a host rule's", "",
                    "The Host names the virtual server serves.", VirtualServerPolicy::withHosts),
            vhost("rmax", DECIMAL, REQUIRED, "more than 0, at most 1e9", "requests per second",
                    "Guaranteed request rate.", VirtualServerPolicy::withRmax),
            vhost("wmax", DECIMAL, REQUIRED, "more than 0, at most 1e15", "bytes per second",
                    "Guaranteed response bytes per second, within the request rate.",
                    VirtualServerPolicy::withWmax)));

    /** Keys {@code content.<level>.*}, applied to a {@link ContentTrees.Tree} of that level. */
    static final Section<ContentTrees.Tree> CONTENT = new Section<>("content.<level>.", List.of(
            new Key<>("prefix", STRING, NONE, "a path such as /degraded; level 1.."
                    + (ClassPolicy.Content.MAX_LEVELS - 1), "",
                    "Where the content.paths are served from at this content level.",
                    (ContentTrees.Tree t, String prefix) -> new ContentTrees.Tree(t.level(), prefix))));

    /** Every section, in the order the parser applies them. */
    static final List<Section<?>> SECTIONS = List.of(GLOBAL, TIER_COOKIE, SESSION_COOKIE, SESSION_TABLE, ADMISSION,
            CONTENT_PATHS, STREAMS, CLUSTER, CONTROL, CLASS, RULE, CONTENT, BUCKETS, BUCKET, VHOSTS, VHOST, EXEMPT);

    private PolicyKeys() {
    }

    private static <T> Key<QosPolicy.Builder, T> global(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<QosPolicy.Builder, T, QosPolicy.Builder> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<CookiePolicy, T> cookie(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<CookiePolicy, T, CookiePolicy> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<AdmissionLimits, T> admission(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<AdmissionLimits, T, AdmissionLimits> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<ControlPolicy, T> control(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<ControlPolicy, T, ControlPolicy> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<ClassPolicy, T> perClass(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<ClassPolicy, T, ClassPolicy> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<BucketControl, T> buckets(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<BucketControl, T, BucketControl> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<BucketPolicy, T> bucket(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<BucketPolicy, T, BucketPolicy> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<VirtualServerPlan, T> vhosts(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description, BiFunction<VirtualServerPlan, T, VirtualServerPlan> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<VirtualServerPolicy, T> vhost(String name, ValueType<T> type, Default byDefault,
            String range, String unit, String description,
            BiFunction<VirtualServerPolicy, T, VirtualServerPolicy> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<ExemptRule, T> exempt(String name, ValueType<T> type, Default byDefault, String range,
            String unit, String description, BiFunction<ExemptRule, T, ExemptRule> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }

    private static <T> Key<Rule, T> rule(String name, ValueType<T> type, Default byDefault, String range,
            String unit, String description, BiFunction<Rule, T, Rule> set) {
        return new Key<>(name, type, byDefault, range, unit, description, set);
    }
}

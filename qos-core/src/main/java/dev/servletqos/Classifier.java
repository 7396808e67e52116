package dev.servletqos;

import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Classifies requests by the policy's rules (paper 004 section 4.2), in two parts ({@link Rule#credential()}):
 * <ul>
 *   <li>{@link #classify}: the class of a new session, from its credentials (tier cookie, ip rules, rules marked
 *       trusted), in order, first match wins, else the default class; the session keeps it;</li>
 *   <li>{@link #requestClass}: the class one request runs in, from the request rules (path, host, header not
 *       marked trusted), in order, first match wins, capped by the session's class: a request rule can lower a
 *       request, never raise it above what the session's credentials give.</li>
 * </ul>
 * A tier cookie is trusted only when its signature checks out; every other outcome (missing, malformed, forged,
 * expired, oversized, naming an unknown class) is counted and the rule simply does not match. Thread-safe; never
 * throws for anything a request carries.
 */
final class Classifier {

    /** The engine's logger: the policy's warnings are the engine's, as users' logging configurations name it. */
    private static final System.Logger ENGINE_LOG = System.getLogger(QosEngine.class.getName());

    private final int[] classOf;
    private final RequestMatcher[] matchers;
    private final boolean[] tierRule;
    /** The request rules, in order: their matchers and classes. */
    private final RequestMatcher[] requestMatchers;
    private final int[] requestClassOf;
    /** The lowest class a request rule names: a session at or below it is never changed by them. */
    private final int requestRulesFloor;
    private final int defaultClass;
    private final TierCookies tierCookies;
    private final QosPolicy policy;
    private final LongAdder[] tierResults;
    private final LongAdder tierUnknownClass;

    Classifier(QosPolicy policy, TierCookies tierCookies) {
        this(policy, tierCookies, null);
    }

    /** A classifier for a reloaded policy: it goes on counting where {@code previous} (if any) left off. */
    Classifier(QosPolicy policy, TierCookies tierCookies, Classifier previous) {
        this.policy = policy;
        this.tierCookies = tierCookies;
        this.tierResults = previous != null ? previous.tierResults
                : newAdders(TierCookies.Verified.Status.values().length);
        this.tierUnknownClass = previous != null ? previous.tierUnknownClass : new LongAdder();
        List<Rule> credentials = policy.rules().stream().filter(Rule::credential).toList();
        List<Rule> requestRules = policy.rules().stream().filter(r -> !r.credential()).toList();
        this.classOf = new int[credentials.size()];
        this.matchers = new RequestMatcher[credentials.size()];
        this.tierRule = new boolean[credentials.size()];
        for (int i = 0; i < credentials.size(); i++) {
            Rule r = credentials.get(i);
            tierRule[i] = r.type() == Rule.Type.TIER_COOKIE;
            matchers[i] = RuleMatchers.forRule(r);
            classOf[i] = tierRule[i] ? -1 : policy.classIndex(r.serviceClass());
        }
        this.requestMatchers = new RequestMatcher[requestRules.size()];
        this.requestClassOf = new int[requestRules.size()];
        int floor = -1;
        for (int i = 0; i < requestRules.size(); i++) {
            requestMatchers[i] = RuleMatchers.forRule(requestRules.get(i));
            requestClassOf[i] = policy.classIndex(requestRules.get(i).serviceClass());
            floor = Math.max(floor, requestClassOf[i]);
        }
        this.requestRulesFloor = floor;
        this.defaultClass = policy.classIndex(policy.defaultClass());
    }

    /** Or'ed into {@link #classifyNew}'s class index when a credential gave it. */
    static final int CREDENTIAL = 1 << 30;

    /** The class index of a new session: by its credentials, else the default class. */
    int classify(RequestView request) {
        return classifyNew(request) & ~CREDENTIAL;
    }

    /**
     * The class index of a new session, with {@link #CREDENTIAL} or'ed in when a credential gave it (a valid tier
     * cookie, an ip rule or a rule marked trusted matched), not when it is the default class for want of one; so
     * the engine knows, without allocating, whether the per-address limits may apply.
     */
    int classifyNew(RequestView request) {
        for (int i = 0; i < matchers.length; i++) {
            if (tierRule[i]) {
                int c = tierClass(request);
                if (c >= 0) {
                    return c | CREDENTIAL;
                }
            } else if (matchers[i].matches(request)) {
                return classOf[i] | CREDENTIAL;
            }
        }
        return defaultClass;
    }

    /**
     * The class index one request of a session of class {@code sessionClass} runs in: the first matching request
     * rule's class when it is lower than the session's, else the session's. Reads nothing of the request when no
     * request rule names a class below the session's.
     */
    int requestClass(RequestView request, int sessionClass) {
        if (sessionClass >= requestRulesFloor) {
            return sessionClass;
        }
        for (int i = 0; i < requestMatchers.length; i++) {
            if (requestMatchers[i].matches(request)) {
                return Math.max(sessionClass, requestClassOf[i]);
            }
        }
        return sessionClass;
    }

    private int tierClass(RequestView request) {
        TierCookies.Verified v = tierCookies.verify(request.cookie(tierCookies.cookieName()));
        tierResults[v.status().ordinal()].increment();
        if (v.status() != TierCookies.Verified.Status.VALID) {
            return -1;
        }
        int c = policy.classIndex(v.serviceClass());
        if (c < 0) {
            tierUnknownClass.increment();
        }
        return c;
    }

    long[] tierResults() {
        return sums(tierResults);
    }

    long tierUnknownClass() {
        return tierUnknownClass.sum();
    }

    static LongAdder[] newAdders(int n) {
        LongAdder[] a = new LongAdder[n];
        for (int i = 0; i < n; i++) {
            a[i] = new LongAdder();
        }
        return a;
    }

    static long[] sums(LongAdder[] adders) {
        long[] s = new long[adders.length];
        for (int i = 0; i < adders.length; i++) {
            s[i] = adders[i].sum();
        }
        return s;
    }

    /**
     * A path, host or header rule not marked trusted can only lower a request, so one naming the highest class
     * changes nothing: most likely a policy written when such rules gave sessions their class. Said at start and
     * at each reload.
     */
    static void warnOfRequestRulesThatChangeNothing(QosPolicy policy) {
        List<Rule> rules = policy.rules();
        String highest = policy.classes().get(0).name();
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rules.get(i);
            if (!r.credential() && highest.equals(r.serviceClass())) {
                ENGINE_LOG.log(System.Logger.Level.WARNING, "servlet-qos: classification rule " + (i + 1) + " in order ("
                        + r.type().key() + " " + r.values() + ") names " + highest
                        + ", the highest class, and changes nothing: a "
                        + r.type().key() + " rule only lowers requests below their session's class, it never gives "
                        + "a session its class. Mark it trusted (rule.<n>.trusted = true) only if the client cannot "
                        + "choose what it reads; see docs/configuration.md, Classification rules");
            }
        }
    }
}

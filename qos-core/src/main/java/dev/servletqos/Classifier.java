package dev.servletqos;

import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * Classifies the first request of a session by the policy's rules, in order, first match wins, else the
 * default class (paper 004 section 4.2). A tier cookie is trusted only when its signature checks out;
 * every other outcome (missing, malformed, forged, expired, oversized, naming an unknown class) is counted
 * and the rule simply does not match. Thread-safe; never throws for anything a request carries.
 */
final class Classifier {

    private final int[] classOf;
    private final RequestMatcher[] matchers;
    private final boolean[] tierRule;
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
        List<Rule> rules = policy.rules();
        this.classOf = new int[rules.size()];
        this.matchers = new RequestMatcher[rules.size()];
        this.tierRule = new boolean[rules.size()];
        for (int i = 0; i < rules.size(); i++) {
            Rule r = rules.get(i);
            tierRule[i] = r.type() == Rule.Type.TIER_COOKIE;
            matchers[i] = RuleMatchers.forRule(r);
            classOf[i] = tierRule[i] ? -1 : policy.classIndex(r.serviceClass());
        }
        this.defaultClass = policy.classIndex(policy.defaultClass());
    }

    /** The class index for a request of a new session. */
    int classify(RequestView request) {
        for (int i = 0; i < matchers.length; i++) {
            if (tierRule[i]) {
                int c = tierClass(request);
                if (c >= 0) {
                    return c;
                }
            } else if (matchers[i].matches(request)) {
                return classOf[i];
            }
        }
        return defaultClass;
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
}

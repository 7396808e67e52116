package dev.servletqos;

import dev.servletqos.policy.Rule;

/** Turns a {@link Rule} into the {@link RequestMatcher} that evaluates it. */
final class RuleMatchers {

    private RuleMatchers() {
    }

    /**
     * The matcher for a rule; null for a tier-cookie rule, which the classifier evaluates itself because
     * it yields a class rather than a yes or no.
     *
     * @throws IllegalArgumentException if a value of the rule does not parse
     */
    static RequestMatcher forRule(Rule rule) {
        switch (rule.type()) {
            case IP:
                return RequestMatcher.ipRanges(rule.values());
            case PATH:
                return RequestMatcher.paths(rule.values());
            case HOST:
                return RequestMatcher.hosts(rule.values());
            case HEADER:
                return RequestMatcher.header(rule.header(), rule.values());
            case TIER_COOKIE:
            default:
                return null;
        }
    }
}

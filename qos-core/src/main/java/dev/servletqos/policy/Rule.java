package dev.servletqos.policy;

import java.util.List;

/**
 * One classification rule: requests it matches belong to {@code serviceClass}; the first matching rule wins.
 * Rules classify the first request of a session; a known session keeps the class it was admitted with.
 *
 * <p>Property keys: {@code rule.<n>.type}, {@code rule.<n>.value}, {@code rule.<n>.header},
 * {@code rule.<n>.class}; rules apply in the numeric order of {@code n}.
 *
 * @param type         what the rule looks at
 * @param values       for {@code ip}: addresses or CIDR ranges; {@code path}: prefixes or globs;
 *                     {@code host}: host names; {@code header}: accepted values (empty = header present);
 *                     unused for {@code tier-cookie}
 * @param header       the header name, for {@code header} rules only
 * @param serviceClass the class of matching requests; for {@code tier-cookie}, null: the class is the one
 *                     signed into the cookie
 */
public record Rule(Type type, List<String> values, String header, String serviceClass) {

    /** What a rule matches on. */
    public enum Type {
        /** A valid signed tier cookie: the class written in the cookie. */
        TIER_COOKIE("tier-cookie"),
        /** The client address against IPv4/IPv6 addresses and CIDR ranges. */
        IP("ip"),
        /** The path within the application against prefixes and globs. */
        PATH("path"),
        /** The Host (virtual server). */
        HOST("host"),
        /** A request header's value. */
        HEADER("header");

        private final String key;

        Type(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }
    }

    public Rule {
        values = values == null ? List.of() : List.copyOf(values);
    }

    /**
     * What this rule's values accept; null for a tier-cookie rule, whose class comes from the cookie. Builds
     * the same matcher the engine applies, so a value that passes here matches as documented there.
     *
     * @throws IllegalArgumentException if a value does not parse, naming the value
     */
    ValueMatcher valueMatcher() {
        switch (type) {
            case IP:
                return ValueMatcher.ipRanges(values);
            case PATH:
                return ValueMatcher.paths(values);
            case HOST:
                return ValueMatcher.hosts(values);
            case HEADER:
                return ValueMatcher.anyOf(values);
            case TIER_COOKIE:
            default:
                return null;
        }
    }

    public static Rule tierCookie() {
        return new Rule(Type.TIER_COOKIE, List.of(), null, null);
    }

    public static Rule ip(String serviceClass, String... ranges) {
        return new Rule(Type.IP, List.of(ranges), null, serviceClass);
    }

    public static Rule path(String serviceClass, String... patterns) {
        return new Rule(Type.PATH, List.of(patterns), null, serviceClass);
    }

    public static Rule host(String serviceClass, String... hosts) {
        return new Rule(Type.HOST, List.of(hosts), null, serviceClass);
    }

    public static Rule header(String serviceClass, String header, String... values) {
        return new Rule(Type.HEADER, List.of(values), header, serviceClass);
    }
}

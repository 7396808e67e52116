package dev.servletqos.policy;

import java.util.List;

/**
 * One classification rule: requests it matches belong to {@code serviceClass}. Rules are of two kinds
 * ({@link #credential()}):
 * <ul>
 *   <li><b>credentials</b> ({@code tier-cookie}, {@code ip}, and any rule marked {@code trusted}) give a new
 *       session its class, the first matching one in order (else the default class); the session keeps it, written
 *       into its admission cookie;</li>
 *   <li><b>request rules</b> ({@code path}, {@code host}, {@code header} not marked trusted: what the client
 *       chooses) are applied to every request of every session, the first matching one in order, and can only
 *       lower it: the request runs in the rule's class or the session's, whichever is lower. A client cannot
 *       raise itself by the path, Host or header it sends.</li>
 * </ul>
 *
 * <p>Property keys: {@code rule.<n>.type}, {@code rule.<n>.value}, {@code rule.<n>.header},
 * {@code rule.<n>.class}, {@code rule.<n>.trusted}; rules apply in the numeric order of {@code n}.
 *
 * @param type         what the rule looks at
 * @param values       for {@code ip}: addresses or CIDR ranges; {@code path}: prefixes or globs;
 *                     {@code host}: host names; {@code header}: accepted values (empty = header present);
 *                     unused for {@code tier-cookie}
 * @param header       the header name, for {@code header} rules only
 * @param serviceClass the class of matching requests; for {@code tier-cookie}, null: the class is the one
 *                     signed into the cookie
 * @param trusted      for {@code path}, {@code host} and {@code header} rules: the operator vouches that the
 *                     client cannot choose what the rule reads (a header the operator's own proxy sets, replacing
 *                     the client's), so the rule is a credential; false by default
 */
public record Rule(Type type, List<String> values, String header, String serviceClass, boolean trusted) {

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

    /** A rule that is not marked trusted. */
    public Rule(Type type, List<String> values, String header, String serviceClass) {
        this(type, values, header, serviceClass, false);
    }

    /** This rule marked trusted ({@code rule.<n>.trusted = true}): a credential whatever its type. */
    public Rule asTrusted() {
        return new Rule(type, values, header, serviceClass, true);
    }

    /**
     * Whether the rule is a credential: it gives a new session its class, kept for the session. Tier-cookie
     * (signed) and ip rules (the connection's address, which the client does not choose) always are; path, host
     * and header rules only when marked trusted.
     */
    public boolean credential() {
        return trusted || type == Type.TIER_COOKIE || type == Type.IP;
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

    /**
     * Checks the rule as the {@code n}th of a policy with these classes.
     *
     * @param k       the rule's key prefix, {@code rule.<n>}
     * @param classes the policy's class names
     * @return whether it is a {@code tier-cookie} rule (which needs a secret)
     * @throws PolicyException naming the key and the value of the first problem
     */
    boolean check(String k, java.util.Set<String> classes) {
        if (type == null) {
            throw new PolicyException(k + ".type", "null", "required");
        }
        if (type == Type.TIER_COOKIE) {
            return true;
        }
        if (serviceClass == null || !classes.contains(serviceClass)) {
            throw new PolicyException(k + ".class", String.valueOf(serviceClass),
                    "no such class; classes are " + classes);
        }
        if (type == Type.HEADER && (header == null || header.isBlank())) {
            throw new PolicyException(k + ".header", String.valueOf(header), "a header rule needs the header name");
        }
        if (type != Type.HEADER && values.isEmpty()) {
            throw new PolicyException(k + ".value", "", "a " + type.key() + " rule needs a value");
        }
        try {
            valueMatcher();
        } catch (IllegalArgumentException e) {
            throw new PolicyException(k + ".value", String.join(", ", values), e.getMessage());
        }
        return false;
    }
}

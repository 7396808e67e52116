package dev.servletqos.policy;

import java.util.List;
import java.util.Locale;

/**
 * One exempt rule of the policy ({@code exempt.<n>.*}): the requests it matches bypass QoS entirely (no
 * token-bucket rule, no session, no admission, no queue, no permit; never refused), such as a load balancer's
 * health probe or the metrics scrape. A rule gives at least one of its three parts and matches a request when every
 * part it gives matches; the rules are tried in the numeric order of {@code n}, and the default policy has none.
 * Immutable.
 *
 * @param paths     path patterns, as a path rule's values ({@link ValueMatcher#paths}); empty: any path
 * @param methods   HTTP methods ({@code GET}, {@code HEAD}), upper case; empty: any method
 * @param addresses client addresses and CIDR ranges, as an ip rule's values ({@link ValueMatcher#ipRanges}); empty:
 *                  any address
 */
public record ExemptRule(List<String> paths, List<String> methods, List<String> addresses) {

    /** A rule with no part given yet (it matches nothing until one is: {@link #check} refuses it). */
    public static final ExemptRule EMPTY = new ExemptRule(List.of(), List.of(), List.of());

    public ExemptRule {
        paths = paths == null ? List.of() : List.copyOf(paths);
        methods = methods == null ? List.of() : methods.stream().map(m -> m.toUpperCase(Locale.ROOT)).toList();
        addresses = addresses == null ? List.of() : List.copyOf(addresses);
    }

    /** A rule on paths only (e.g. {@code /health}). */
    public static ExemptRule onPaths(String... patterns) {
        return EMPTY.withPaths(List.of(patterns));
    }

    /** {@code exempt.<n>.paths}; a bad pattern throws {@link IllegalArgumentException} naming it. */
    public ExemptRule withPaths(List<String> p) {
        ValueMatcher.paths(p);
        return new ExemptRule(p, methods, addresses);
    }

    /** {@code exempt.<n>.methods}; a value that is not an HTTP method token throws {@link IllegalArgumentException}. */
    public ExemptRule withMethods(List<String> m) {
        for (String method : m) {
            checkMethod(method);
        }
        return new ExemptRule(paths, m, addresses);
    }

    /** {@code exempt.<n>.addresses}; a bad range throws {@link IllegalArgumentException} naming it. */
    public ExemptRule withAddresses(List<String> a) {
        ValueMatcher.ipRanges(a);
        return new ExemptRule(paths, methods, a);
    }

    /** Whether the rule gives none of its parts (it would match every request: refused by {@link #check}). */
    public boolean isEmpty() {
        return paths.isEmpty() && methods.isEmpty() && addresses.isEmpty();
    }

    /**
     * Checks the rule as rule {@code key} ({@code exempt.1}): at least one part, every value valid.
     *
     * @throws PolicyException naming the key and the value
     */
    void check(String key) {
        if (isEmpty()) {
            throw new PolicyException(key + ".paths", "(unset)", "an exempt rule needs at least one of "
                    + key + ".paths, " + key + ".methods, " + key + ".addresses (it would exempt every request)");
        }
        try {
            ValueMatcher.paths(paths);
        } catch (IllegalArgumentException e) {
            throw new PolicyException(key + ".paths", String.join(", ", paths), e.getMessage());
        }
        try {
            methods.forEach(ExemptRule::checkMethod);
        } catch (IllegalArgumentException e) {
            throw new PolicyException(key + ".methods", String.join(", ", methods), e.getMessage());
        }
        try {
            ValueMatcher.ipRanges(addresses);
        } catch (IllegalArgumentException e) {
            throw new PolicyException(key + ".addresses", String.join(", ", addresses), e.getMessage());
        }
    }

    private static void checkMethod(String method) {
        if (method == null || method.isEmpty() || method.length() > 32) {
            throw new IllegalArgumentException("an HTTP method is 1 to 32 letters, was " + method);
        }
        for (int i = 0; i < method.length(); i++) {
            char c = method.charAt(i);
            if (!(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c == '-' || c == '_')) {
                throw new IllegalArgumentException("an HTTP method is letters such as GET or HEAD, was \"" + method
                        + "\"");
            }
        }
    }
}

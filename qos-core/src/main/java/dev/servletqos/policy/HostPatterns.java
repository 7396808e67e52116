package dev.servletqos.policy;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * {@link ValueMatcher#hosts}: the host is one of a set of names, or a sub-domain of a wildcard
 * {@code *.domain}. Names are normalised once (lower case, no trailing dot); a host is compared in place
 * with {@link String#regionMatches(boolean, int, String, int, int)}, without allocating. Immutable and
 * thread-safe.
 */
final class HostPatterns implements ValueMatcher {

    private final String[] exact;
    /** Wildcards without their {@code *}: {@code ".example.com"}. */
    private final String[] suffixes;
    private final String description;

    private HostPatterns(String[] exact, String[] suffixes, String description) {
        this.exact = exact;
        this.suffixes = suffixes;
        this.description = description;
    }

    static HostPatterns of(List<String> hosts) {
        Objects.requireNonNull(hosts, "hosts");
        String[] exact = new String[hosts.size()];
        String[] suffixes = new String[hosts.size()];
        int e = 0;
        int s = 0;
        for (String host : hosts) {
            if (host == null) {
                throw new IllegalArgumentException("host must not be null");
            }
            String name = stripTrailingDot(host).toLowerCase(Locale.ROOT);
            boolean wildcard = name.startsWith("*.");
            String domain = wildcard ? name.substring(2) : name;
            if (domain.isEmpty()) {
                throw new IllegalArgumentException('"' + host + "\": host name must not be empty");
            }
            if (domain.indexOf('*') >= 0) {
                throw new IllegalArgumentException('"' + host + "\": a '*' is only allowed as a leading \"*.\""
                        + " (as in \"*.example.com\")");
            }
            if (wildcard) {
                suffixes[s++] = name.substring(1);
            } else {
                exact[e++] = name;
            }
        }
        return new HostPatterns(Arrays.copyOf(exact, e), Arrays.copyOf(suffixes, s), "hosts" + hosts);
    }

    @Override
    public boolean matches(String host) {
        if (host == null) {
            return false;
        }
        // A fully qualified "example.com." names the same host as "example.com".
        int length = host.endsWith(".") ? host.length() - 1 : host.length();
        for (String name : exact) {
            if (length == name.length() && host.regionMatches(true, 0, name, 0, length)) {
                return true;
            }
        }
        for (String suffix : suffixes) {
            // Longer than the suffix: at least one label before it, so the bare domain does not match.
            if (length > suffix.length()
                    && host.regionMatches(true, length - suffix.length(), suffix, 0, suffix.length())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return description;
    }

    private static String stripTrailingDot(String host) {
        return host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    }
}

package dev.servletqos.policy;

import java.util.List;

/**
 * What the values of a classification rule accept, as the policy language defines them: the syntax of an
 * {@code ip}, {@code path}, {@code host} or {@code header} rule's values and what they match. The engine
 * applies one to the request field the rule type names (the remote address, the path, the host, a header's
 * first value).
 *
 * <p>The factories parse and validate the values once and throw {@link IllegalArgumentException} for a bad
 * one, with a message that quotes the value and says what is wrong with it. After that, {@link #matches}
 * never throws: null, or text that does not parse, simply does not match.
 *
 * <p>Matchers built by these factories are immutable and thread-safe; one instance serves every request
 * thread. Matching allocates nothing, runs no regular expression and never resolves a host name.
 */
@FunctionalInterface
public interface ValueMatcher {

    /**
     * Whether the value is accepted.
     *
     * @param value the request's value, may be null (then it does not match)
     * @return true if it matches
     */
    boolean matches(String value);

    /**
     * Addresses in IP ranges.
     *
     * <p>Each range is an IPv4 or IPv6 literal with an optional CIDR prefix length: {@code "10.0.0.0/8"},
     * {@code "192.168.1.7"} (same as {@code /32}), {@code "2001:db8::/32"}, {@code "::1"} (same as
     * {@code /128}), {@code "[::1]"}. The prefix length is 0..32 for IPv4 and 0..128 for IPv6. Bits after the
     * prefix are ignored, so {@code "192.168.1.7/24"} means {@code 192.168.1.0/24}. IPv6 zone ids
     * ({@code "fe80::1%eth0"}) are ignored, here and in matched addresses. IPv4 octets are decimal without
     * leading zeros (a leading zero means octal to some tools, so it is refused as ambiguous).
     *
     * <p>IPv4 and IPv4-mapped IPv6 addresses are the same address: {@code "10.0.0.0/8"} matches the address
     * {@code "::ffff:10.1.2.3"}, and {@code "::ffff:10.0.0.0/104"} matches {@code "10.1.2.3"}. So an IPv6
     * range that contains {@code ::ffff:0:0/96}, such as {@code "::/0"}, matches IPv4 clients too, while
     * {@code "0.0.0.0/0"} matches IPv4 (and IPv4-mapped) clients only.
     *
     * @param ranges the ranges; an empty list matches nothing
     * @return a matcher of addresses in any of the ranges
     * @throws IllegalArgumentException if a range is null, not an IP literal (host names are not accepted),
     *     has a bad prefix length, or is an IPv4-mapped address with a prefix shorter than 96
     * @throws NullPointerException if {@code ranges} is null
     */
    static ValueMatcher ipRanges(List<String> ranges) {
        return IpRanges.of(ranges);
    }

    /**
     * Paths against prefixes or glob patterns.
     *
     * <ul>
     *   <li>A pattern without {@code *} is a prefix. Ending in {@code /} it matches any path that starts
     *       with it ({@code "/api/"} matches {@code /api/x} but not {@code /api}); otherwise it matches at a
     *       segment boundary ({@code "/api"} matches {@code /api} and {@code /api/x}, not {@code /apix}).
     *       {@code "/"} matches every path.
     *   <li>A pattern with {@code *} is a glob over the whole path, segment by segment: {@code *} matches
     *       any characters within one segment, and a segment that is exactly {@code **} matches zero or more
     *       whole segments ({@code "/shop/*}{@code /checkout"}, {@code "/premium/**"} which also matches
     *       {@code /premium}, {@code "/a/**}{@code /b"} which also matches {@code /a/b}). Elsewhere,
     *       {@code **} is the same as {@code *}.
     *   <li>A pattern that starts with {@code *} is matched against the last segments of the path at any
     *       depth, as if it were prefixed with {@code /**}{@code /}: {@code "*.jpg"} matches {@code /a.jpg} and
     *       {@code /img/x/b.jpg}.
     * </ul>
     * Comparison is case-sensitive, on the path as the container decoded and normalised it.
     *
     * @param patterns the patterns; an empty list matches nothing
     * @return a matcher of paths that match any of the patterns
     * @throws IllegalArgumentException if a pattern is null, empty, or starts with neither {@code /} nor
     *     {@code *}
     * @throws NullPointerException if {@code patterns} is null
     */
    static ValueMatcher paths(List<String> patterns) {
        return PathPatterns.of(patterns);
    }

    /**
     * Host names, ignoring case and a trailing dot (on either side). {@code "example.com"} matches exactly
     * that host; {@code "*.example.com"} matches its sub-domains at any depth ({@code www.example.com},
     * {@code a.b.example.com}) but not {@code example.com} itself, so list both if both are meant.
     *
     * @param hosts the host names; an empty list matches nothing
     * @return a matcher of the hosts
     * @throws IllegalArgumentException if a host is null or empty, or has a {@code *} anywhere but in a
     *     leading {@code *.}
     * @throws NullPointerException if {@code hosts} is null
     */
    static ValueMatcher hosts(List<String> hosts) {
        return HostPatterns.of(hosts);
    }

    /**
     * Values compared exactly (case-sensitive, no trimming), as a header rule compares its header's value.
     *
     * @param values the accepted values; if empty, any value that is not null matches (the header is present)
     * @return a matcher of those values
     * @throws IllegalArgumentException if a value is null
     * @throws NullPointerException if {@code values} is null
     */
    static ValueMatcher anyOf(List<String> values) {
        return AnyOf.of(values);
    }
}

package dev.servletqos;

import dev.servletqos.policy.ValueMatcher;
import java.util.List;

/**
 * One condition of a classification rule: does this request match it?
 *
 * <p>The factories below apply a {@link ValueMatcher} (the values' syntax and meaning, from the policy) to
 * one field of the request; they throw what the value matcher's factory throws for a bad value. After that,
 * {@link #matches} never throws for anything a request carries: a null field of the view, or a value that
 * does not parse, simply does not match.
 *
 * <p>Matchers built by these factories are immutable and thread-safe; one instance serves every request
 * thread. Matching allocates nothing, runs no regular expression and never resolves a host name.
 */
@FunctionalInterface
interface RequestMatcher {

    /**
     * Whether the request meets this condition.
     *
     * @param request the request, not null; its fields may be null (then they do not match)
     * @return true if it matches
     */
    boolean matches(RequestView request);

    /**
     * Matches the {@linkplain RequestView#remoteAddress() remote address} against IP ranges, as
     * {@link ValueMatcher#ipRanges} defines them.
     *
     * @throws IllegalArgumentException if a range does not parse
     * @throws NullPointerException if {@code ranges} is null
     */
    static RequestMatcher ipRanges(List<String> ranges) {
        return new FieldMatcher(RequestView::remoteAddress, ValueMatcher.ipRanges(ranges), "ipRanges" + ranges);
    }

    /**
     * Matches the {@linkplain RequestView#path() path} against prefixes or glob patterns, as
     * {@link ValueMatcher#paths} defines them.
     *
     * @throws IllegalArgumentException if a pattern does not parse
     * @throws NullPointerException if {@code patterns} is null
     */
    static RequestMatcher paths(List<String> patterns) {
        return new FieldMatcher(RequestView::path, ValueMatcher.paths(patterns), "paths" + patterns);
    }

    /**
     * Matches the {@linkplain RequestView#host() host} against host names, as {@link ValueMatcher#hosts}
     * defines them.
     *
     * @throws IllegalArgumentException if a host does not parse
     * @throws NullPointerException if {@code hosts} is null
     */
    static RequestMatcher hosts(List<String> hosts) {
        return new FieldMatcher(RequestView::host, ValueMatcher.hosts(hosts), "hosts" + hosts);
    }

    /**
     * Matches a request header. The name is passed to {@link RequestView#header(String)}, which compares
     * names case-insensitively; values are compared exactly (case-sensitive, no trimming).
     *
     * @param name the header name
     * @param values the accepted values; if empty, any request that has the header matches
     * @return a matcher that matches a request whose first value of the header is one of the values
     * @throws IllegalArgumentException if {@code name} is null or empty, or a value is null
     * @throws NullPointerException if {@code values} is null
     */
    static RequestMatcher header(String name, List<String> values) {
        if (name == null) {
            throw new IllegalArgumentException("header name must not be null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("\"\": header name must not be empty");
        }
        ValueMatcher accepted;
        try {
            accepted = ValueMatcher.anyOf(values);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("header \"" + name + "\": " + e.getMessage(), e);
        }
        return new FieldMatcher(r -> r.header(name), accepted, "header[" + name + " " + accepted + "]");
    }
}

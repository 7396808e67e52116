package dev.servletqos;

import dev.servletqos.policy.ValueMatcher;
import java.util.List;

/**
 * {@link RequestMatcher#header}: the first value of a header is accepted by {@link ValueMatcher#anyOf}.
 * Name case-insensitivity is the {@link RequestView}'s job. Immutable and thread-safe.
 */
final class HeaderMatcher implements RequestMatcher {

    private final String name;
    private final ValueMatcher values;

    private HeaderMatcher(String name, ValueMatcher values) {
        this.name = name;
        this.values = values;
    }

    static HeaderMatcher of(String name, List<String> values) {
        if (name == null) {
            throw new IllegalArgumentException("header name must not be null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("\"\": header name must not be empty");
        }
        try {
            return new HeaderMatcher(name, ValueMatcher.anyOf(values));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("header \"" + name + "\": " + e.getMessage(), e);
        }
    }

    @Override
    public boolean matches(RequestView request) {
        return values.matches(request.header(name));
    }

    @Override
    public String toString() {
        return "header[" + name + " " + values + "]";
    }
}

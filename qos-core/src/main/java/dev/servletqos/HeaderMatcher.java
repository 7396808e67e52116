package dev.servletqos;

import java.util.List;
import java.util.Objects;

/**
 * {@link RequestMatcher#header}: the first value of a header equals one of a set of values, or, with no
 * values, the header is present. Name case-insensitivity is the {@link RequestView}'s job. Immutable and
 * thread-safe.
 */
final class HeaderMatcher implements RequestMatcher {

    private final String name;
    /** Empty: presence is enough. */
    private final String[] values;
    private final String description;

    private HeaderMatcher(String name, String[] values, String description) {
        this.name = name;
        this.values = values;
        this.description = description;
    }

    static HeaderMatcher of(String name, List<String> values) {
        if (name == null) {
            throw new IllegalArgumentException("header name must not be null");
        }
        if (name.isEmpty()) {
            throw new IllegalArgumentException("\"\": header name must not be empty");
        }
        Objects.requireNonNull(values, "values");
        String[] copy = new String[values.size()];
        int n = 0;
        for (String value : values) {
            if (value == null) {
                throw new IllegalArgumentException("header \"" + name + "\": values must not contain null");
            }
            copy[n++] = value;
        }
        String description = "header[" + name + (values.isEmpty() ? " present]" : " in " + values + "]");
        return new HeaderMatcher(name, copy, description);
    }

    @Override
    public boolean matches(RequestView request) {
        String value = request.header(name);
        if (value == null) {
            return false;
        }
        if (values.length == 0) {
            return true;
        }
        for (String accepted : values) {
            if (accepted.equals(value)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return description;
    }
}

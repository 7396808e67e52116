package dev.servletqos.policy;

import java.util.List;
import java.util.Objects;

/** {@link ValueMatcher#anyOf}: equal to one of a set of values, or, with none, present. Immutable. */
final class AnyOf implements ValueMatcher {

    /** Empty: presence is enough. */
    private final String[] values;
    private final String description;

    private AnyOf(String[] values, String description) {
        this.values = values;
        this.description = description;
    }

    static AnyOf of(List<String> values) {
        Objects.requireNonNull(values, "values");
        String[] copy = new String[values.size()];
        int n = 0;
        for (String value : values) {
            if (value == null) {
                throw new IllegalArgumentException("values must not contain null");
            }
            copy[n++] = value;
        }
        return new AnyOf(copy, values.isEmpty() ? "present" : "in " + values);
    }

    @Override
    public boolean matches(String value) {
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

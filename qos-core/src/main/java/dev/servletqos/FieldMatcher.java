package dev.servletqos;

import dev.servletqos.policy.ValueMatcher;
import java.util.function.Function;

/** A {@link ValueMatcher} applied to one field of the request view. Immutable and thread-safe. */
final class FieldMatcher implements RequestMatcher {

    private final Function<RequestView, String> field;
    private final ValueMatcher values;
    private final String description;

    FieldMatcher(Function<RequestView, String> field, ValueMatcher values, String description) {
        this.field = field;
        this.values = values;
        this.description = description;
    }

    @Override
    public boolean matches(RequestView request) {
        return values.matches(field.apply(request));
    }

    @Override
    public String toString() {
        return description;
    }
}

package dev.servletqos.policy;

import java.util.Objects;
import java.util.function.BiFunction;

/**
 * One row of the key table ({@link PolicyKeys}): a policy-file key, described once for the parser and the
 * documentation.
 *
 * @param name        the key within its section: {@code max-executing}, {@code budget} (of
 *                    {@code class.<name>.}), {@code type} (of {@code rule.<n>.})
 * @param type        how its text becomes a value
 * @param byDefault   what applies when the key is absent
 * @param range       the accepted values, as the docs state them; empty when the type says it all
 * @param unit        the unit of a number, as the docs state it; empty when there is none
 * @param description what it sets, in one line
 * @param setter      how a value is applied: to the policy builder, a class, the control settings or a rule
 * @param <S>         what the key's section applies values to
 * @param <T>         the value's Java type
 */
record Key<S, T>(String name, ValueType<T> type, Default byDefault, String range, String unit, String description,
                 BiFunction<S, T, S> setter) {

    Key {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(byDefault, "byDefault");
        Objects.requireNonNull(range, "range");
        Objects.requireNonNull(unit, "unit");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(setter, "setter");
    }

    /**
     * Parses {@code text} and applies the value to {@code subject}.
     *
     * @return the subject with the value applied (the same builder, or a changed copy of a record)
     * @throws IllegalArgumentException whose message is the reason the text is not a valid value
     */
    S apply(S subject, String text) {
        return setter.apply(subject, type.parse(text));
    }

    /**
     * A key's default, as the docs state it: a value as it would be written in the file ({@code literal}),
     * words for a default that depends on other settings ({@code note} alone), or both (the literal with a
     * remark).
     *
     * @param literal the default in the file's syntax, or null if it is computed, required or absent
     * @param note    a remark, or the whole default in words when there is no literal; may be null
     */
    record Default(String literal, String note) {

        /** The key must be given. */
        static final Default REQUIRED = new Default(null, "required");
        /** Absent means not set (a feature that needs it is off). */
        static final Default NONE = new Default(null, "none");

        Default {
            if (literal == null && note == null) {
                throw new IllegalArgumentException("a default needs a literal or a note");
            }
        }

        static Default of(String literal) {
            return new Default(literal, null);
        }

        static Default of(String literal, String remark) {
            return new Default(literal, remark);
        }

        /** A default that depends on other settings, in words. */
        static Default computed(String words) {
            return new Default(null, words);
        }

        /** The default cell of the docs' key tables, without markdown: {@code 0 (off)}, {@code max-executing}. */
        String text() {
            if (literal == null) {
                return note;
            }
            return note == null ? literal : literal + " (" + note + ")";
        }
    }
}

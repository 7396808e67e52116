package dev.servletqos.policy;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The type of a policy key's value: its name in {@code docs/configuration.md} and how the (trimmed, resolved)
 * text of the file becomes a value. {@link #parse} throws {@link IllegalArgumentException} whose message is
 * the reason alone; the parser adds the source, key and value (hiding secrets). Immutable and thread-safe.
 *
 * @param <T> the value's Java type
 */
final class ValueType<T> {

    private static final Pattern INTEGER_TEXT = Pattern.compile("-?[0-9]+");
    private static final Pattern DECIMAL_TEXT = Pattern.compile("-?[0-9]+(\\.[0-9]+)?");
    private static final Pattern DURATION_TEXT = Pattern.compile("([0-9]+)(ms|s|m|h|d)");

    /** Optional {@code -} and decimal digits, within int range. */
    static final ValueType<Integer> INTEGER = new ValueType<>("integer", ValueType::intValue, false, List.of());
    /** Optional {@code -} and decimal digits, within long range. */
    static final ValueType<Long> LONG = new ValueType<>("integer", ValueType::longValue, false, List.of());
    /** An integer with an optional {@code .} fraction: {@code 12.5}, {@code -0.8}. */
    static final ValueType<Double> DECIMAL = new ValueType<>("decimal", ValueType::decimal, false, List.of());
    /** A whole number with a unit ({@code 250ms}, {@code 5s}, {@code 10m}, {@code 2h}, {@code 30d}) or ISO-8601. */
    static final ValueType<Duration> DURATION = new ValueType<>("duration", ValueType::duration, false, List.of());
    /** {@code true} or {@code false}. */
    static final ValueType<Boolean> BOOLEAN = new ValueType<>("boolean", ValueType::bool, false, List.of());
    /** Any text. */
    static final ValueType<String> STRING = new ValueType<>("string", s -> s, false, List.of());
    /** Any text, never shown in a message, used exactly as given (a {@code ${env:..}} value is not trimmed). */
    static final ValueType<String> SECRET = new ValueType<>("secret", s -> s, true, List.of());
    /** Comma-separated items, each trimmed; no empty item; an empty value is an empty list. */
    static final ValueType<List<String>> LIST = new ValueType<>("list", ValueType::list, false, List.of());

    private final String name;
    private final Function<String, T> parse;
    private final boolean secret;
    private final List<String> choices;

    private ValueType(String name, Function<String, T> parse, boolean secret, List<String> choices) {
        this.name = name;
        this.parse = parse;
        this.secret = secret;
        this.choices = List.copyOf(choices);
    }

    /**
     * One of a fixed set of names.
     *
     * @param what    what the names name, for the message ({@code "unknown <what>; one of a, b"})
     * @param choices the names and their values, in the order the message lists them
     */
    static <E> ValueType<E> oneOf(String what, Map<String, E> choices) {
        Map<String, E> copy = new LinkedHashMap<>(choices);
        List<String> names = List.copyOf(copy.keySet());
        return new ValueType<>("enum", text -> {
            E value = copy.get(text);
            if (value == null) {
                throw new IllegalArgumentException("unknown " + what + "; one of " + String.join(", ", names));
            }
            return value;
        }, false, names);
    }

    /** {@link #oneOf(String, Map)} for the constants of an enum, named by {@code key}. */
    static <E extends Enum<E>> ValueType<E> oneOf(String what, E[] constants, Function<E, String> key) {
        Map<String, E> choices = new LinkedHashMap<>();
        for (E e : constants) {
            choices.put(key.apply(e), e);
        }
        return oneOf(what, choices);
    }

    /** The type's name in the docs: integer, decimal, duration, boolean, string, secret, list or enum. */
    String name() {
        return name;
    }

    /** Whether values of this type are hidden in messages and used untrimmed. */
    boolean secret() {
        return secret;
    }

    /** For an enum, the accepted names as a message or the docs list them: {@code a, b, c}. */
    String choiceList() {
        return String.join(", ", choices);
    }

    /**
     * The value of {@code text}.
     *
     * @throws IllegalArgumentException whose message says why the text is not a value of this type
     */
    T parse(String text) {
        return parse.apply(text);
    }

    @Override
    public String toString() {
        return choices.isEmpty() ? name : name + choices;
    }

    private static int intValue(String v) {
        long n = longValue(v);
        if (n < Integer.MIN_VALUE || n > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("not an integer in range (too large)");
        }
        return (int) n;
    }

    private static long longValue(String v) {
        if (!INTEGER_TEXT.matcher(v).matches()) {
            throw new IllegalArgumentException("not an integer");
        }
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer in range (too large)", e);
        }
    }

    private static double decimal(String v) {
        if (!DECIMAL_TEXT.matcher(v).matches()) {
            throw new IllegalArgumentException("not a decimal number (digits with an optional '-' and '.' fraction,"
                    + " as in 12.5 or -0.8)");
        }
        return Double.parseDouble(v);
    }

    private static boolean bool(String v) {
        if (v.equals("true")) {
            return true;
        }
        if (v.equals("false")) {
            return false;
        }
        throw new IllegalArgumentException("must be true or false");
    }

    private static List<String> list(String v) {
        if (v.isEmpty()) {
            return List.of();
        }
        List<String> items = new ArrayList<>();
        for (String item : v.split(",", -1)) {
            String t = item.trim();
            if (t.isEmpty()) {
                throw new IllegalArgumentException("empty item in the comma-separated list");
            }
            items.add(t);
        }
        return items;
    }

    private static Duration duration(String v) {
        String units = "a whole number with a unit: ms, s, m, h or d (250ms, 5s, 10m, 2h, 30d), or ISO-8601 (PT5S)";
        if (INTEGER_TEXT.matcher(v).matches()) {
            throw new IllegalArgumentException("a duration needs a unit: write " + v + "s or " + v + "ms (units ms, s,"
                    + " m, h, d) or ISO-8601 like PT" + v + "S");
        }
        Matcher m = DURATION_TEXT.matcher(v);
        try {
            if (m.matches()) {
                long n = Long.parseLong(m.group(1));
                switch (m.group(2)) {
                    case "ms":
                        return Duration.ofMillis(n);
                    case "s":
                        return Duration.ofSeconds(n);
                    case "m":
                        return Duration.ofMinutes(n);
                    case "h":
                        return Duration.ofHours(n);
                    default:
                        return Duration.ofDays(n);
                }
            }
            String upper = v.toUpperCase(Locale.ROOT);
            if (upper.startsWith("P") || upper.startsWith("-P") || upper.startsWith("+P")) {
                return Duration.parse(v);
            }
        } catch (NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("duration too large", e);
        } catch (DateTimeParseException e) {
            throw new IllegalArgumentException("not a duration: " + units, e);
        }
        throw new IllegalArgumentException("not a duration: " + units);
    }
}

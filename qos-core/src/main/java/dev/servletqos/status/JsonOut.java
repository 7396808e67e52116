package dev.servletqos.status;

/**
 * A compact JSON writer for the status page: objects and arrays by hand, commas handled here. A number that is
 * not finite is written as {@code null}; {@code <}, {@code >} and {@code &} in strings are escaped, so that
 * the text can sit inside an HTML {@code <script>} element. Not thread-safe; one per document.
 */
final class JsonOut {

    private final StringBuilder out = new StringBuilder(4096);
    private boolean comma;

    JsonOut beginObject() {
        value();
        out.append('{');
        comma = false;
        return this;
    }

    JsonOut endObject() {
        out.append('}');
        comma = true;
        return this;
    }

    JsonOut beginArray() {
        value();
        out.append('[');
        comma = false;
        return this;
    }

    JsonOut endArray() {
        out.append(']');
        comma = true;
        return this;
    }

    JsonOut name(String name) {
        value();
        string(name);
        out.append(':');
        comma = false;
        return this;
    }

    JsonOut field(String name, String v) {
        name(name);
        return value(v);
    }

    JsonOut field(String name, long v) {
        name(name);
        return number(v);
    }

    JsonOut field(String name, double v) {
        name(name);
        return number(v);
    }

    /**
     * A number as precise as a double is, for values far below the three decimals of {@link #number(double)} (a
     * fitted cost of a response byte is about 1e-8 seconds); not finite: null.
     */
    JsonOut precise(String name, double v) {
        name(name);
        value();
        out.append(Double.isFinite(v) ? Double.toString(v) : "null");
        comma = true;
        return this;
    }

    JsonOut field(String name, boolean v) {
        name(name);
        value();
        out.append(v);
        comma = true;
        return this;
    }

    /** A string (or null) as the next value. */
    JsonOut value(String v) {
        value();
        if (v == null) {
            out.append("null");
        } else {
            string(v);
        }
        comma = true;
        return this;
    }

    JsonOut number(long v) {
        value();
        out.append(v);
        comma = true;
        return this;
    }

    JsonOut number(double v) {
        value();
        if (!Double.isFinite(v)) {
            out.append("null");
        } else if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            out.append((long) v);
        } else {
            // three decimals are plenty for milliseconds and rates, and keep the document small
            out.append(Math.round(v * 1000) / 1000.0);
        }
        comma = true;
        return this;
    }

    JsonOut nullValue(String name) {
        name(name);
        value();
        out.append("null");
        comma = true;
        return this;
    }

    private void value() {
        if (comma) {
            out.append(',');
        }
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '<', '>', '&', '\u2028', '\u2029' -> out.append(String.format("\\u%04x", (int) c));
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }

    @Override
    public String toString() {
        return out.toString();
    }
}

package dev.servletqos.sample;

import java.util.Locale;

/**
 * A minimal JSON writer (the shop has no JSON library): objects and arrays by hand, commas handled here.
 * Not thread-safe; one per document.
 */
public final class Json {

    private final StringBuilder out = new StringBuilder(1024);
    /** Whether the next value in the current container needs a comma before it. */
    private boolean comma;
    private final boolean pretty;
    private int depth;

    /** A compact writer. */
    public Json() {
        this(false);
    }

    /** A writer that indents nested containers when {@code pretty}. */
    public Json(boolean pretty) {
        this.pretty = pretty;
    }

    public Json beginObject() {
        value();
        out.append('{');
        depth++;
        comma = false;
        return this;
    }

    public Json endObject() {
        depth--;
        newline();
        out.append('}');
        comma = true;
        return this;
    }

    public Json beginArray() {
        value();
        out.append('[');
        depth++;
        comma = false;
        return this;
    }

    public Json endArray() {
        depth--;
        newline();
        out.append(']');
        comma = true;
        return this;
    }

    /** The key of the next value in an object. */
    public Json name(String name) {
        value();
        quote(name);
        out.append(pretty ? ": " : ":");
        comma = false;
        return this;
    }

    public Json value(String s) {
        value();
        if (s == null) {
            out.append("null");
        } else {
            quote(s);
        }
        comma = true;
        return this;
    }

    public Json value(long n) {
        value();
        out.append(n);
        comma = true;
        return this;
    }

    /** A number with up to three decimals; NaN and infinities are written as null (JSON has neither). */
    public Json value(double d) {
        value();
        if (Double.isNaN(d) || Double.isInfinite(d)) {
            out.append("null");
        } else if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            out.append((long) d);
        } else {
            out.append(String.format(Locale.ROOT, "%.3f", d));
        }
        comma = true;
        return this;
    }

    public Json value(boolean b) {
        value();
        out.append(b);
        comma = true;
        return this;
    }

    public Json nullValue() {
        value();
        out.append("null");
        comma = true;
        return this;
    }

    public Json field(String name, String v) {
        return name(name).value(v);
    }

    public Json field(String name, long v) {
        return name(name).value(v);
    }

    public Json field(String name, double v) {
        return name(name).value(v);
    }

    public Json field(String name, boolean v) {
        return name(name).value(v);
    }

    private void value() {
        if (comma) {
            out.append(',');
        }
        if (comma || (depth > 0 && lastIsOpen())) {
            newline();
        }
        comma = false;
    }

    private boolean lastIsOpen() {
        if (out.length() == 0) {
            return false;
        }
        char c = out.charAt(out.length() - 1);
        return c == '{' || c == '[';
    }

    private void newline() {
        if (pretty) {
            out.append('\n');
            for (int i = 0; i < depth; i++) {
                out.append("  ");
            }
        }
    }

    private void quote(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == 0x2028 || c == 0x2029) {
                        // also escaped: characters that would end an inline <script> or confuse HTML
                        out.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
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

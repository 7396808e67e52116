package dev.servletqos;

import java.nio.charset.StandardCharsets;

/**
 * Finds one cookie in a {@code Cookie} header ({@code "a=1; b=2"}, RFC 6265 section 5.4) without parsing the others.
 * Lenient as browsers are: spaces around the pairs and the value are ignored, a value in double quotes loses them,
 * a pair without {@code =} is skipped. Never throws. For adapters: cheaper than the container's cookie parsing, which
 * turns every cookie of the request into an object on every request.
 */
public final class CookieHeader {

    private CookieHeader() {
    }

    /** The value of the first cookie {@code name} in {@code header}, or null. */
    public static String value(String header, String name) {
        int n = name.length();
        int length = header.length();
        int i = 0;
        while (i < length) {
            while (i < length && (header.charAt(i) == ' ' || header.charAt(i) == '\t')) {
                i++;
            }
            int end = header.indexOf(';', i);
            if (end < 0) {
                end = length;
            }
            if (header.startsWith(name, i)) {
                int eq = i + n;
                while (eq < end && (header.charAt(eq) == ' ' || header.charAt(eq) == '\t')) {
                    eq++;
                }
                if (eq < end && header.charAt(eq) == '=') {
                    return unquoted(header, eq + 1, end);
                }
            }
            i = end + 1;
        }
        return null;
    }

    /** {@code header[from, to)} without surrounding spaces and double quotes. */
    private static String unquoted(String header, int from, int to) {
        while (from < to && (header.charAt(from) == ' ' || header.charAt(from) == '\t')) {
            from++;
        }
        while (to > from && (header.charAt(to - 1) == ' ' || header.charAt(to - 1) == '\t')) {
            to--;
        }
        if (to - from >= 2 && header.charAt(from) == '"' && header.charAt(to - 1) == '"') {
            from++;
            to--;
        }
        return header.substring(from, to);
    }

    /**
     * {@link #value(String, String)} over a header's bytes {@code [from, to)} as the container holds them, read as
     * ISO-8859-1 as containers read headers: only the value found becomes a string.
     */
    public static String value(byte[] header, int from, int to, String name) {
        int n = name.length();
        int i = from;
        while (i < to) {
            while (i < to && (header[i] == ' ' || header[i] == '\t')) {
                i++;
            }
            int end = i;
            while (end < to && header[end] != ';') {
                end++;
            }
            if (startsWith(header, i, end, name)) {
                int eq = i + n;
                while (eq < end && (header[eq] == ' ' || header[eq] == '\t')) {
                    eq++;
                }
                if (eq < end && header[eq] == '=') {
                    return unquoted(header, eq + 1, end);
                }
            }
            i = end + 1;
        }
        return null;
    }

    private static boolean startsWith(byte[] header, int i, int end, String name) {
        int n = name.length();
        if (end - i < n) {
            return false;
        }
        for (int k = 0; k < n; k++) {
            if ((header[i + k] & 0xFF) != name.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    private static String unquoted(byte[] header, int from, int to) {
        while (from < to && (header[from] == ' ' || header[from] == '\t')) {
            from++;
        }
        while (to > from && (header[to - 1] == ' ' || header[to - 1] == '\t')) {
            to--;
        }
        if (to - from >= 2 && header[from] == '"' && header[to - 1] == '"') {
            from++;
            to--;
        }
        return new String(header, from, to - from, StandardCharsets.ISO_8859_1);
    }
}

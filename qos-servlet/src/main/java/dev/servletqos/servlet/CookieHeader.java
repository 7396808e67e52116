package dev.servletqos.servlet;

/**
 * Finds one cookie in a {@code Cookie} header ({@code "a=1; b=2"}, RFC 6265 section 5.4) without parsing the others.
 * Lenient as browsers are: spaces around the pairs and the value are ignored, a value in double quotes loses them,
 * a pair without {@code =} is skipped. Never throws.
 */
final class CookieHeader {

    private CookieHeader() {
    }

    /** The value of the first cookie {@code name} in {@code header}, or null. */
    static String value(String header, String name) {
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
}

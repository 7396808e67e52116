package dev.servletqos;

/**
 * Numbers the kinds of request an application serves, so that the capacity law can compare each request's
 * service time with that of its own kind: a route is the method and the path's first segment ({@code GET /item}
 * for {@code /item?id=3}, {@code GET /img} for {@code /img/a.svg}), up to a {@code ;} path parameter and at most
 * {@value #KEY_CHARS} characters. The first {@value #MAX} - 1 routes seen get their own number; every later one
 * (and every request when the table is full, as a client making up paths would fill it) is route 0, "others".
 *
 * <p>Thread-safe; a lookup of a known route allocates nothing and takes no lock (the table is copied on insert,
 * which happens at most {@value #MAX} - 1 times).
 */
final class Routes {

    /** Route numbers are 0 (others) to MAX - 1. */
    static final int MAX = 64;
    /** The longest path prefix that is part of a route's key. */
    static final int KEY_CHARS = 64;

    private record Slot(int hash, String method, String prefix, int index) {
        boolean matches(int h, String m, String path, int end) {
            return hash == h && prefix.length() == end && method.equals(m) && path.startsWith(prefix);
        }
    }

    private volatile Slot[] table = new Slot[2 * MAX];
    private volatile boolean full;
    private int count;

    /** The route of a request: 0 for the others, 1..MAX-1 for the first routes seen. */
    int of(String method, String path) {
        String m = method == null ? "" : method;
        String p = path == null ? "/" : path;
        int end = prefixEnd(p);
        int h = hash(m, p, end);
        Slot[] t = table;
        int mask = t.length - 1;
        for (int i = h & mask, probes = 0; probes < t.length; i = (i + 1) & mask, probes++) {
            Slot s = t[i];
            if (s == null) {
                return full ? 0 : insert(h, m, p, end);
            }
            if (s.matches(h, m, p, end)) {
                return s.index;
            }
        }
        return 0;
    }

    private synchronized int insert(int h, String method, String path, int end) {
        Slot[] t = table.clone();
        int mask = t.length - 1;
        int i = h & mask;
        while (t[i] != null) {
            if (t[i].matches(h, method, path, end)) {
                return t[i].index; // another thread inserted it meanwhile
            }
            i = (i + 1) & mask;
        }
        if (count >= MAX - 1) {
            full = true;
            return 0;
        }
        Slot s = new Slot(h, method, path.substring(0, end), ++count);
        t[i] = s;
        table = t;
        return s.index;
    }

    /** The end of the path's first segment: the next '/' or ';' after the leading '/', or the end; capped. */
    private static int prefixEnd(String path) {
        int n = Math.min(path.length(), KEY_CHARS);
        for (int i = 1; i < n; i++) {
            char c = path.charAt(i);
            if (c == '/' || c == ';') {
                return i;
            }
        }
        return n;
    }

    private static int hash(String method, String path, int end) {
        int h = method.hashCode();
        for (int i = 0; i < end; i++) {
            h = 31 * h + path.charAt(i);
        }
        return h ^ (h >>> 16);
    }
}

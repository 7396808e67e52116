package dev.servletqos.policy;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * {@link ValueMatcher#paths}: the path matches one of a set of prefixes or segment globs. See there for the
 * syntax.
 *
 * <p>Patterns are split into segments once; a path is matched by walking it in place, without
 * allocating or compiling anything. A glob's {@code **} segments are handled block by block (the segments
 * between two {@code **} always cover the same number of path segments, so taking the leftmost place for
 * each block is enough), which keeps the work polynomial whatever the path: no backtracking blow-up on a
 * hostile path. Immutable and thread-safe.
 */
final class PathPatterns implements ValueMatcher {

    private final Pattern[] patterns;
    private final String description;

    private PathPatterns(Pattern[] patterns, String description) {
        this.patterns = patterns;
        this.description = description;
    }

    static PathPatterns of(List<String> patterns) {
        Objects.requireNonNull(patterns, "patterns");
        Pattern[] compiled = new Pattern[patterns.size()];
        int n = 0;
        for (String pattern : patterns) {
            compiled[n++] = compile(pattern);
        }
        return new PathPatterns(compiled, "paths" + patterns);
    }

    @Override
    public boolean matches(String path) {
        if (path == null) {
            return false;
        }
        for (Pattern pattern : patterns) {
            if (pattern.matches(path)) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return description;
    }

    private static Pattern compile(String pattern) {
        if (pattern == null) {
            throw new IllegalArgumentException("path pattern must not be null");
        }
        if (pattern.isEmpty()) {
            throw new IllegalArgumentException("\"\": path pattern must not be empty");
        }
        char first = pattern.charAt(0);
        if (first != '/' && first != '*') {
            throw new IllegalArgumentException('"' + pattern + "\": path pattern must start with '/'"
                    + " (or with '*' to match the last segments at any depth, as in \"*.jpg\")");
        }
        if (pattern.indexOf('*') < 0) {
            return new Prefix(pattern);
        }
        return Glob.compile(pattern);
    }

    private interface Pattern {
        boolean matches(String path);
    }

    private static final class Prefix implements Pattern {
        private final String prefix;
        private final boolean toSegmentBoundary;

        Prefix(String prefix) {
            this.prefix = prefix;
            this.toSegmentBoundary = !prefix.endsWith("/");
        }

        @Override
        public boolean matches(String path) {
            return path.startsWith(prefix)
                    && (!toSegmentBoundary || path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
        }
    }

    /**
     * A glob anchored at both ends of the path. Path segments are addressed by the index of their first
     * character; a path {@code "/a/b"} has segments starting at 1 and 3, and index {@code length + 1} means
     * "no segment left".
     */
    private static final class Glob implements Pattern {
        /** One entry per pattern segment; null for a {@code **} segment. */
        private final String[] segments;
        private final boolean[] literal;
        private final int firstGlobstar;
        private final int lastGlobstar;

        private Glob(String[] segments) {
            this.segments = segments;
            this.literal = new boolean[segments.length];
            int first = segments.length;
            int last = -1;
            for (int i = 0; i < segments.length; i++) {
                if (segments[i] == null) {
                    first = Math.min(first, i);
                    last = i;
                } else {
                    literal[i] = segments[i].indexOf('*') < 0;
                }
            }
            this.firstGlobstar = first;
            this.lastGlobstar = last;
        }

        static Glob compile(String pattern) {
            List<String> segments = new ArrayList<>();
            int start = 1;
            if (pattern.charAt(0) == '*') {
                segments.add(null);
                start = 0;
            }
            while (start <= pattern.length()) {
                int slash = pattern.indexOf('/', start);
                int end = slash < 0 ? pattern.length() : slash;
                String segment = pattern.substring(start, end);
                if (!segment.equals("**")) {
                    segments.add(segment);
                } else if (segments.isEmpty() || segments.get(segments.size() - 1) != null) {
                    // Adjacent ** segments mean the same as one, and one keeps the block walk simple.
                    segments.add(null);
                }
                start = end + 1;
            }
            return new Glob(segments.toArray(new String[0]));
        }

        @Override
        public boolean matches(String path) {
            if (path.isEmpty() || path.charAt(0) != '/') {
                return false;
            }
            int noMore = path.length() + 1;
            int pos = 1;
            for (int p = 0; p < firstGlobstar; p++) {
                if (pos == noMore) {
                    return false;
                }
                int end = segmentEnd(path, pos);
                if (!segmentMatches(p, path, pos, end)) {
                    return false;
                }
                pos = end + 1;
            }
            if (firstGlobstar == segments.length) {
                return pos == noMore;
            }
            // The segments after the last ** match the same number of segments at the end of the path.
            int tail = noMore;
            for (int p = lastGlobstar + 1; p < segments.length; p++) {
                tail = path.lastIndexOf('/', tail - 2) + 1;
                if (tail < pos) {
                    return false;
                }
            }
            if (matchBlock(lastGlobstar + 1, segments.length, path, tail, noMore) != noMore) {
                return false;
            }
            int p = firstGlobstar + 1;
            while (p < lastGlobstar) {
                int blockEnd = p;
                while (segments[blockEnd] != null) {
                    blockEnd++;
                }
                int next = -1;
                for (int start = pos; start < tail && next < 0; start = segmentEnd(path, start) + 1) {
                    next = matchBlock(p, blockEnd, path, start, tail);
                }
                if (next < 0) {
                    return false;
                }
                pos = next;
                p = blockEnd + 1;
            }
            return true;
        }

        /**
         * Matches pattern segments {@code [from, to)}, none of them {@code **}, against consecutive path
         * segments starting at {@code pos} and starting before {@code limit}.
         *
         * @return the start of the path segment after the block, or -1
         */
        private int matchBlock(int from, int to, String path, int pos, int limit) {
            for (int p = from; p < to; p++) {
                if (pos >= limit) {
                    return -1;
                }
                int end = segmentEnd(path, pos);
                if (!segmentMatches(p, path, pos, end)) {
                    return -1;
                }
                pos = end + 1;
            }
            return pos;
        }

        private boolean segmentMatches(int p, String path, int from, int to) {
            String pattern = segments[p];
            if (literal[p]) {
                return to - from == pattern.length() && path.regionMatches(from, pattern, 0, pattern.length());
            }
            // Classic wildcard match: on a mismatch, let the most recent '*' swallow one more character.
            // Only one kind of wildcard occurs within a segment, so this never needs to go further back.
            int pi = 0;
            int si = from;
            int starPattern = -1;
            int starPath = -1;
            while (si < to) {
                if (pi < pattern.length() && pattern.charAt(pi) == '*') {
                    starPattern = pi++;
                    starPath = si;
                } else if (pi < pattern.length() && pattern.charAt(pi) == path.charAt(si)) {
                    pi++;
                    si++;
                } else if (starPattern >= 0) {
                    pi = starPattern + 1;
                    si = ++starPath;
                } else {
                    return false;
                }
            }
            while (pi < pattern.length() && pattern.charAt(pi) == '*') {
                pi++;
            }
            return pi == pattern.length();
        }

        private static int segmentEnd(String path, int pos) {
            int slash = path.indexOf('/', pos);
            return slash < 0 ? path.length() : slash;
        }
    }
}

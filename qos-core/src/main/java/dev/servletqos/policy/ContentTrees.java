package dev.servletqos.policy;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Static content served from a lighter tree per content level ({@code content.paths} and
 * {@code content.<level>.prefix}): a request whose path matches {@code content.paths} and that the engine serves
 * at a level below its class's full content is served from the same path under that level's prefix, the URL the
 * client sees unchanged. With {@code content.paths = /img/} and {@code content.1.prefix = /degraded}, a request
 * for {@code /img/a.png} at level 1 is served from {@code /degraded/img/a.png}. Full content, and a level
 * without a prefix, is served from the path as it is.
 *
 * <p>Immutable and thread-safe; {@link #rewrite} allocates only the rewritten path.
 */
public final class ContentTrees {

    /** One {@code content.<level>.} section of the policy file, as the parser reads it. */
    record Tree(int level, String prefix) {
    }

    /** No content trees: every path is served as it is. */
    public static final ContentTrees NONE = new ContentTrees(List.of(), new String[0]);

    private final List<String> paths;
    private final ValueMatcher matcher;
    /** By level (index 0 unused); null where a level has no prefix. */
    private final String[] prefixes;

    private ContentTrees(List<String> paths, String[] prefixes) {
        this.paths = List.copyOf(paths);
        this.matcher = ValueMatcher.paths(this.paths);
        this.prefixes = prefixes;
    }

    /**
     * Checks and builds the trees.
     *
     * @param paths     {@code content.paths}: the path patterns (as a path rule's values) whose content has trees
     * @param prefixes  {@code content.<level>.prefix} by level, index 0 unused; null entries for levels without
     * @param maxLevels the most content levels any class has: a prefix is for a level below full content
     * @throws PolicyException naming the key and the value of the first problem
     */
    static ContentTrees of(List<String> paths, String[] prefixes, int maxLevels) {
        Objects.requireNonNull(paths, "paths");
        boolean any = false;
        for (int level = 1; level < prefixes.length; level++) {
            String p = prefixes[level];
            if (p == null) {
                continue;
            }
            any = true;
            String key = "content." + level + ".prefix";
            String bad = badPrefix(p);
            if (bad != null) {
                throw new PolicyException(key, p, bad);
            }
            if (level >= maxLevels) {
                throw new PolicyException(key, p, "no class has a content level " + level + " below its full "
                        + "content (the most class.<name>.levels is " + maxLevels + "); full content is served "
                        + "from the path as it is");
            }
            if (paths.isEmpty()) {
                throw new PolicyException(key, p, "content.paths is not set: the prefix would apply to no path");
            }
        }
        if (paths.isEmpty()) {
            return NONE;
        }
        if (!any) {
            throw new PolicyException("content.paths", String.join(", ", paths), "no content.<level>.prefix is "
                    + "set: give the tree of at least one level, e.g. content.1.prefix = /degraded");
        }
        try {
            return new ContentTrees(paths, prefixes.clone());
        } catch (IllegalArgumentException e) {
            throw new PolicyException("content.paths", String.join(", ", paths), e.getMessage());
        }
    }

    /** Why a prefix is not usable, or null: a path of one or more plain segments, without a trailing '/'. */
    private static String badPrefix(String p) {
        if (p.length() < 2 || p.charAt(0) != '/' || p.endsWith("/")) {
            return "must be a path such as /degraded: starting with '/', not ending with it";
        }
        for (String segment : p.substring(1).split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                return "must not have an empty, '.' or '..' segment";
            }
            for (int i = 0; i < segment.length(); i++) {
                char c = segment.charAt(i);
                if (!ClassPolicy.isNameChar(c) && c != '.' && c != '~') {
                    return "may hold letters, digits, '-', '_', '.', '~' and '/' only";
                }
            }
        }
        return null;
    }

    /** Whether any content is served from another tree. */
    public boolean isEmpty() {
        return paths.isEmpty();
    }

    /** {@code content.paths}. */
    public List<String> paths() {
        return paths;
    }

    /** {@code content.<level>.prefix}, or null when that level has none. */
    public String prefix(int level) {
        return level >= 1 && level < prefixes.length ? prefixes[level] : null;
    }

    /**
     * The path to serve instead of {@code path} for a request at content level {@code level} of a class with
     * {@code levels} levels, or null to serve {@code path} as it is (full content, a level without a prefix, a path
     * outside {@code content.paths}).
     *
     * @param path the path within the application, decoded and normalised by the container
     */
    public String rewrite(String path, int level, int levels) {
        if (level >= levels || level < 1 || level >= prefixes.length) {
            return null;
        }
        String prefix = prefixes[level];
        if (prefix == null || path == null || !path.startsWith("/") || !matcher.matches(path)) {
            return null;
        }
        return prefix + path;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ContentTrees t && paths.equals(t.paths) && Arrays.equals(prefixes, t.prefixes);
    }

    @Override
    public int hashCode() {
        return paths.hashCode() * 31 + Arrays.hashCode(prefixes);
    }

    @Override
    public String toString() {
        StringBuilder s = new StringBuilder("ContentTrees{paths=").append(paths);
        for (int level = 1; level < prefixes.length; level++) {
            if (prefixes[level] != null) {
                s.append(", ").append(level).append('=').append(prefixes[level]);
            }
        }
        return s.append('}').toString();
    }
}

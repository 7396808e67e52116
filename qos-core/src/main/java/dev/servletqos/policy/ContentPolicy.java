package dev.servletqos.policy;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The content trees as given ({@code content.paths} and {@code content.<level>.prefix}), before they are checked
 * against the classes' levels and built into {@link ContentTrees} ({@link QosPolicy#contentTrees()}). Immutable and
 * thread-safe; build with {@link #NONE} and the {@code with} methods.
 *
 * @param paths    {@code content.paths}: the path patterns (as a path rule's values) whose static content has a
 *                 lighter tree per content level; default none
 * @param prefixes {@code content.<level>.prefix} by level: where those paths are served from at that level, such as
 *                 {@code /degraded}; default none
 */
public record ContentPolicy(List<String> paths, SortedMap<Integer, String> prefixes) {

    /** No content trees: every path is served as it is. */
    public static final ContentPolicy NONE = new ContentPolicy(List.of(), new TreeMap<>());

    public ContentPolicy {
        paths = paths == null ? List.of() : List.copyOf(paths);
        prefixes = Collections.unmodifiableSortedMap(prefixes == null ? new TreeMap<>() : new TreeMap<>(prefixes));
    }

    /** {@code content.paths}. */
    public ContentPolicy withPaths(List<String> patterns) {
        return new ContentPolicy(patterns, prefixes);
    }

    /** {@code content.<level>.prefix}; null removes the level's prefix. */
    public ContentPolicy withPrefix(int level, String prefix) {
        SortedMap<Integer, String> m = new TreeMap<>(prefixes);
        if (prefix == null) {
            m.remove(level);
        } else {
            m.put(level, prefix);
        }
        return new ContentPolicy(paths, m);
    }

    /**
     * Checks the trees and builds them.
     *
     * @param maxLevels the most content levels any class has: a prefix is for a level below full content
     * @throws PolicyException naming the key and the value of the first problem
     */
    public ContentTrees trees(int maxLevels) {
        String[] byLevel = new String[ClassPolicy.Content.MAX_LEVELS];
        for (Map.Entry<Integer, String> e : prefixes.entrySet()) {
            int level = e.getKey();
            ClassPolicy.check(level >= 1 && level < byLevel.length, "content." + level + ".prefix", e.getValue(),
                    "the level must be 1.." + (byLevel.length - 1) + " (below the full content of a class)");
            byLevel[level] = e.getValue();
        }
        return ContentTrees.of(paths, byLevel, maxLevels);
    }
}

package dev.servletqos.policy;

import java.util.List;

/**
 * Which requests are streams, and how many may be open at once ({@code streams.*}). A stream enters with a permit
 * like any request and gives it back once its application went asynchronous. Immutable and thread-safe; build
 * with {@link #DEFAULTS} and the {@code with} methods; {@link #check()} checks the values.
 *
 * @param eventStream {@code streams.event-stream}: whether a request asking for {@code text/event-stream} in its
 *                    {@code Accept} header is a stream; default true
 * @param paths       {@code streams.paths}: the paths whose requests are streams (path patterns); default none
 * @param maxOpen     {@code streams.max-open}: the most streams open at once; 0: no stream pool (streams are
 *                    ordinary requests); default {@value #DEFAULT_MAX_OPEN}; 0..1000000
 */
public record StreamsPolicy(boolean eventStream, List<String> paths, int maxOpen) {

    /**
     * Default of {@code streams.max-open}: far above what one node's users keep open (one event stream per open
     * page), far below what the container's connections and the heap bear (an open asynchronous request holds no
     * thread, some kilobytes of buffers).
     */
    public static final int DEFAULT_MAX_OPEN = 10_000;

    /** Every setting at its default: event streams are streams, no path is, {@value #DEFAULT_MAX_OPEN} open. */
    public static final StreamsPolicy DEFAULTS = new StreamsPolicy(true, List.of(), DEFAULT_MAX_OPEN);

    public StreamsPolicy {
        paths = paths == null ? List.of() : List.copyOf(paths);
    }

    /** {@code streams.event-stream}. */
    public StreamsPolicy withEventStream(boolean on) {
        return new StreamsPolicy(on, paths, maxOpen);
    }

    /** {@code streams.paths}: path patterns, as a path rule's values. */
    public StreamsPolicy withPaths(List<String> patterns) {
        return new StreamsPolicy(eventStream, patterns, maxOpen);
    }

    /** {@code streams.max-open}: 0 (no stream pool)..1000000. */
    public StreamsPolicy withMaxOpen(int n) {
        return new StreamsPolicy(eventStream, paths, n);
    }

    /**
     * Checks the paths and the bound.
     *
     * @throws PolicyException naming the key and the value of the first bad setting
     */
    public void check() {
        try {
            ValueMatcher.paths(paths);
        } catch (IllegalArgumentException e) {
            throw new PolicyException("streams.paths", String.join(", ", paths), e.getMessage());
        }
        ClassPolicy.check(maxOpen >= 0 && maxOpen <= 1_000_000, "streams.max-open", maxOpen,
                "must be 0 (no stream pool)..1000000");
    }
}

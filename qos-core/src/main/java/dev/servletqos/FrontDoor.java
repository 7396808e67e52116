package dev.servletqos;

import dev.servletqos.policy.ExemptRule;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.ValueMatcher;
import java.util.List;

/**
 * What the engine decides first about a request, before anything else reads it: whether an exempt rule
 * ({@code exempt.<n>.*}) matches it, so that it bypasses QoS entirely, and whether it is a stream
 * ({@code streams.*}: {@code Accept: text/event-stream}, or a path of {@code streams.paths}): a stream candidate,
 * which gives its permit back once its application went asynchronous ({@link Ticket#detach()}).
 * One per policy ({@link Regime}). Immutable and thread-safe; matching allocates nothing and never throws for
 * anything a request carries.
 */
final class FrontDoor {

    /** The value of the {@code Accept} header that marks a server-sent events request (EventSource sends it). */
    static final String EVENT_STREAM = "text/event-stream";

    private final Exempt[] exempt;
    private final boolean eventStream;
    /** The paths of {@code streams.paths}, or null when none. */
    private final ValueMatcher streamPaths;
    /** {@code streams.max-open}; 0: no stream pool. */
    final int maxOpenStreams;

    /** One exempt rule: each part null when the rule does not give it. */
    private record Exempt(ValueMatcher paths, String[] methods, ValueMatcher addresses) {

        boolean matches(RequestView request) {
            if (methods != null && !anyOf(methods, request.method())) {
                return false;
            }
            if (paths != null && !paths.matches(request.path())) {
                return false;
            }
            return addresses == null || addresses.matches(request.remoteAddress());
        }

        private static boolean anyOf(String[] methods, String method) {
            for (String m : methods) {
                if (m.equals(method)) {
                    return true;
                }
            }
            return false;
        }
    }

    FrontDoor(QosPolicy policy) {
        List<ExemptRule> rules = policy.exempt();
        this.exempt = new Exempt[rules.size()];
        for (int i = 0; i < exempt.length; i++) {
            ExemptRule r = rules.get(i);
            exempt[i] = new Exempt(r.paths().isEmpty() ? null : ValueMatcher.paths(r.paths()),
                    r.methods().isEmpty() ? null : r.methods().toArray(String[]::new),
                    r.addresses().isEmpty() ? null : ValueMatcher.ipRanges(r.addresses()));
        }
        this.maxOpenStreams = policy.streams().maxOpen();
        this.eventStream = policy.streams().eventStream() && maxOpenStreams > 0;
        this.streamPaths = policy.streams().paths().isEmpty() || maxOpenStreams == 0 ? null
                : ValueMatcher.paths(policy.streams().paths());
    }

    /** Whether an exempt rule matches the request: the rules in order, the first that matches decides. */
    boolean exempt(RequestView request) {
        for (Exempt e : exempt) {
            if (e.matches(request)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether the request is a stream candidate: its {@code Accept} header names {@code text/event-stream} (with
     * {@code streams.event-stream}), or its path is one of {@code streams.paths}. Never with {@code streams.max-open
     * = 0}.
     */
    boolean stream(RequestView request) {
        if (eventStream) {
            if (request.headerHasMediaType("Accept", EVENT_STREAM)) {
                return true;
            }
        }
        return streamPaths != null && streamPaths.matches(request.path());
    }
}

package dev.servletqos.policy;

/**
 * A policy setting is missing or wrong. The message names the key, the value and the reason, e.g.
 * {@code class.basic.budget = 40: must be 0..16 (max-executing)}; secrets are never echoed.
 */
public final class PolicyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String key;

    public PolicyException(String key, String value, String reason) {
        super(key + " = " + value + ": " + reason);
        this.key = key;
    }

    public PolicyException(String message) {
        this(message, (String) null);
    }

    private PolicyException(String message, String key) {
        super(message);
        this.key = key;
    }

    /** The same problem, its message prefixed with where it was found (a file name); the key is kept. */
    public PolicyException in(String source) {
        return new PolicyException(source + ": " + getMessage(), key);
    }

    /** The offending key, or null when the problem is not tied to one key. */
    public String key() {
        return key;
    }
}

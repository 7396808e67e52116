package dev.servletqos.jmx;

/** The one form of a refused write: {@code Budget = -1: must be 0..16 (MaxExecuting)}. */
final class Refusals {

    private Refusals() {
    }

    /**
     * A refusal naming the attribute and the value. A plain {@link IllegalArgumentException} without a cause, so
     * that a remote JMX client that has none of this project's classes can read it.
     */
    static IllegalArgumentException refuse(String attribute, Object value, String reason) {
        return new IllegalArgumentException(attribute + " = " + value + ": " + reason);
    }
}

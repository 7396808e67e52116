package dev.servletqos.sim;

/** Why the engine refused a simulated request at entry. */
public enum Refusal {
    /** A new session, refused because too many requests were queued (WebQoS triggers j, k). */
    SESSION_QUEUED,
    /** A new session, refused by its class's session rate. */
    SESSION_RATE,
    /** A new session, refused because its class's content level was 0. */
    SESSION_LEVEL,
    /** The class's queue was full. */
    QUEUE_FULL,
    /** A token-bucket rule had no token (before classification). */
    BUCKET,
    /** A reason the simulator does not know (a newer engine). */
    OTHER;

    /** Whether this is session admission's refusal (never allowed for a request of an admitted session). */
    public boolean admission() {
        return this == SESSION_QUEUED || this == SESSION_RATE || this == SESSION_LEVEL;
    }
}

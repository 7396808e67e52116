package dev.servletqos;

import java.nio.charset.StandardCharsets;

/**
 * The friendly refusal an adapter writes for a rejected or expired request: a status (503, or 429 for
 * refused sessions when configured), a {@code Retry-After} in seconds and a short body, HTML or JSON by the
 * request's {@code Accept} header. Immutable.
 */
public final class Rejection {

    /**
     * Why a request was refused; also the {@code reason} tag of the meters. Each reason counted per class has one
     * counter per class ({@link ClassStats#refused}), which the meters, the JMX beans and the status page show by
     * looping over the reasons: a new reason is one constant here and the step that refuses with it.
     */
    public enum Reason {
        /** A new session was refused because too many requests are queued (WebQoS triggers j and k). */
        SESSION_QUEUED("session-queued", "sessionsRefusedQueued", Kind.SESSION),
        /** A new session was refused by its class's session rate (token bucket). */
        SESSION_RATE("session-rate", "sessionsRefusedRate", Kind.SESSION),
        /** A new session was refused because its class's content level was down to 0 (refuse). */
        SESSION_LEVEL("session-level", "sessionsRefusedLevel", Kind.SESSION),
        /**
         * A new session was refused because its client address was above its fair share of its class's new sessions
         * while the class rationed them and other addresses went without ({@code
         * admission.max-new-sessions-per-address} the least share).
         */
        SESSION_ADDRESS("session-address", "sessionsRefusedAddress", Kind.SESSION),
        /** The class's queue was full. */
        QUEUE_FULL("queue-full", "queueFull", Kind.BUSY),
        /**
         * The request waited longer than its class's maximum wait. Not counted as a refusal: its class counts it as
         * the outcome {@code expired}.
         */
        EXPIRED("expired", null, Kind.BUSY),
        /**
         * A token-bucket rule ({@code bucket.<name>.*}) had no token for the request. Not counted per class: the
         * request is refused before it has one, and its rule counts it.
         */
        BUCKET("bucket", null, Kind.BUSY),
        /**
         * The request would have waited in its session's line ({@code admission.max-per-session}) while the class's
         * {@code max-queue} of the session's requests waited there already (a cookie shared by many clients, or a
         * client that does not wait for its answers).
         */
        SESSION_LIMIT("session-limit", "sessionLimited", Kind.CLIENT),
        /**
         * The request would have waited while its address had its share of a scarce queue waiting already
         * ({@code admission.max-queued-per-address} the least share).
         */
        ADDRESS_LIMIT("address-limit", "addressLimited", Kind.CLIENT),
        /** A stream ({@code streams.*}) found {@code streams.max-open} streams open. */
        STREAMS_FULL("streams-full", "streamsFull", Kind.BUSY);

        /** The reasons, in order (a shared copy: do not modify). */
        private static final Reason[] ALL = values();

        private final String tag;
        private final String counter;
        private final Kind kind;

        Reason(String tag, String counter, Kind kind) {
            this.tag = tag;
            this.counter = counter;
            this.kind = kind;
        }

        /** Whether this refuses a new session (admission), rather than a request. */
        public boolean newSession() {
            return kind == Kind.SESSION;
        }

        /** The lowercase name used in meters, logs and the JSON body. */
        public String tag() {
            return tag;
        }

        /**
         * Whether each class counts this refusal at entry ({@link ClassStats#refused}): every reason but
         * {@link #EXPIRED} (an outcome of its own) and {@link #BUCKET} (counted by its rule).
         */
        public boolean counted() {
            return counter != null;
        }

        /**
         * The name of the class's count of this refusal in the JMX beans and the status page's JSON (such as
         * {@code queueFull}); null when not {@link #counted()}.
         */
        public String counter() {
            return counter;
        }

        /** The status of this refusal, with {@code admission.reject-status} = {@code rejectStatus}. */
        int status(int rejectStatus) {
            return kind == Kind.SESSION ? rejectStatus : kind == Kind.CLIENT ? 429 : 503;
        }

        /** The reasons, as {@link #values()} without a copy; indexed by {@link #ordinal()}. Do not modify. */
        static Reason[] all() {
            return ALL;
        }
    }

    /** Who a refusal answers, which sets its status and its page's text. */
    private enum Kind {
        /** A new session refused by admission: {@code admission.reject-status}. */
        SESSION,
        /** The client itself sends too many at once: 429. */
        CLIENT,
        /** The site is too busy for the request: 503. */
        BUSY
    }

    private final int status;
    /** What the HTML page of a refused new session says (a client can tell it from a refused request by it). */
    public static final String NEW_SESSION_REFUSED = "We cannot start a new visit right now because the site is"
            + " very busy.";

    private final long retryAfterSeconds;
    private final Reason reason;
    private final byte[] html;
    private final byte[] json;

    Rejection(int status, long retryAfterSeconds, Reason reason) {
        this.status = status;
        this.retryAfterSeconds = retryAfterSeconds;
        this.reason = reason;
        String what = reason.newSession() ? NEW_SESSION_REFUSED
                : reason.kind == Kind.CLIENT
                ? "The site is very busy and is already working on several of your requests."
                : "The site is very busy and could not answer your request in time.";
        this.html = ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Server busy</title>"
                + "</head>\n<body><h1>Server busy</h1><p>" + what + " Please try again in " + retryAfterSeconds
                + " seconds.</p></body></html>\n").getBytes(StandardCharsets.UTF_8);
        this.json = ("{\"status\":" + status + ",\"error\":\"server busy\",\"reason\":\"" + reason.tag()
                + "\",\"retryAfterSeconds\":" + retryAfterSeconds + "}\n").getBytes(StandardCharsets.UTF_8);
    }

    /**
     * 503; 429 for refused sessions when {@code admission.reject-status = 429}, and for the per-session and
     * per-address limits (the client itself sends too many at once).
     */
    public int status() {
        return status;
    }

    /** The value of the {@code Retry-After} header, in seconds. */
    public long retryAfterSeconds() {
        return retryAfterSeconds;
    }

    /** Why the request was refused. */
    public Reason reason() {
        return reason;
    }

    /** {@code application/json} when the client asks for JSON and not HTML, else {@code text/html}. */
    public String contentType(String accept) {
        return wantsJson(accept) ? "application/json;charset=utf-8" : "text/html;charset=utf-8";
    }

    /** The body matching {@link #contentType(String)}; a shared array, do not modify. */
    public byte[] body(String accept) {
        return wantsJson(accept) ? json : html;
    }

    private static boolean wantsJson(String accept) {
        return accept != null && accept.contains("json") && !accept.contains("html");
    }

    @Override
    public String toString() {
        return status + " " + reason.tag() + " retry-after=" + retryAfterSeconds;
    }
}

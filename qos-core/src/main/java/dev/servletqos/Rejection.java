package dev.servletqos;

import java.nio.charset.StandardCharsets;

/**
 * The friendly refusal an adapter writes for a rejected or expired request: a status (503, or 429 for
 * refused sessions when configured), a {@code Retry-After} in seconds and a short body, HTML or JSON by the
 * request's {@code Accept} header. Immutable.
 */
public final class Rejection {

    /** Why a request was refused; also the {@code reason} tag of the meters. */
    public enum Reason {
        /** A new session was refused because too many requests are queued (WebQoS triggers j and k). */
        SESSION_QUEUED("session-queued"),
        /** A new session was refused by its class's session rate (token bucket). */
        SESSION_RATE("session-rate"),
        /** A new session was refused because its class's content level was down to 0 (refuse). */
        SESSION_LEVEL("session-level"),
        /**
         * A new session was refused because its client address was above its fair share of its class's new sessions
         * while the class rationed them and other addresses went without ({@code
         * admission.max-new-sessions-per-address} the least share).
         */
        SESSION_ADDRESS("session-address"),
        /** The class's queue was full. */
        QUEUE_FULL("queue-full"),
        /** The request waited longer than its class's maximum wait. */
        EXPIRED("expired"),
        /** A token-bucket rule ({@code bucket.<name>.*}) had no token for the request. */
        BUCKET("bucket"),
        /**
         * The request would have waited in its session's line ({@code admission.max-per-session}) while the class's
         * {@code max-queue} of the session's requests waited there already (a cookie shared by many clients, or a
         * client that does not wait for its answers).
         */
        SESSION_LIMIT("session-limit"),
        /**
         * The request would have waited while its address had its share of a scarce queue waiting already
         * ({@code admission.max-queued-per-address} the least share).
         */
        ADDRESS_LIMIT("address-limit"),
        /** A stream ({@code streams.*}) found {@code streams.max-open} streams open. */
        STREAMS_FULL("streams-full");

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        /** Whether this refuses a new session (admission), rather than a request. */
        public boolean newSession() {
            return this == SESSION_QUEUED || this == SESSION_RATE || this == SESSION_LEVEL || this == SESSION_ADDRESS;
        }

        /** The lowercase name used in meters, logs and the JSON body. */
        public String tag() {
            return tag;
        }
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
                : reason == Reason.SESSION_LIMIT || reason == Reason.ADDRESS_LIMIT
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

package dev.servletqos;

import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.policy.CookiePolicy;
import java.security.SecureRandom;
import java.time.Duration;

/**
 * The admission cookie: issued by the engine when it admits a new session, it carries the service class,
 * the session id and the second until which the session is admitted. Any node that shares the secret
 * honours it without a shared store, so an admitted session is never refused by admission on another
 * node behind the load balancer.
 *
 * <p>Same format as the tier cookie ({@link SignedToken}), signed in the domain {@code "session"}, so
 * neither kind passes as the other even under the same secret.
 *
 * <p>Immutable and thread-safe.
 */
final class SessionCookies {

    /** The signature domain of admission cookies. */
    static final String DOMAIN = "session";

    private static final int SESSION_ID_BYTES = 16;
    // SecureRandom is thread-safe; one instance avoids seeding cost per new session
    private static final SecureRandom RANDOM = new SecureRandom();

    private static final Verified[] FAILURES = new Verified[Status.values().length];

    static {
        for (Status status : Status.values()) {
            FAILURES[status.ordinal()] = new Verified(status, null, null, 0);
        }
    }

    private final String cookieName;
    private final Signer signer;
    private final long maxAgeSeconds;
    private final boolean secure;
    private final Clock clock;

    /**
     * @param cookieName the cookie's name, an RFC 6265 token
     * @param signer signs and verifies; may be shared with other codecs, the domain keeps them apart
     * @param maxAge the longest admission one cookie carries, whole seconds (the fraction is dropped), from 1
     *     second to 400 days; a later admitted-until is shortened to now + maxAge, so no caller can mint
     *     an admission that outlives the configured lifetime
     * @param secure whether the cookies carry the {@code Secure} attribute
     * @param clock the source of wall-clock seconds
     * @throws IllegalArgumentException if a parameter is null or out of range, or {@code secure} is false for a
     *     name with the {@code __Host-} or {@code __Secure-} prefix; the message names it
     */
    SessionCookies(String cookieName, Signer signer, Duration maxAge, boolean secure, Clock clock) {
        this.cookieName = SignedToken.checkCookieName(cookieName);
        if (!secure && CookiePolicy.requiresSecure(cookieName)) {
            throw new IllegalArgumentException("secure must be true for a cookie named " + cookieName);
        }
        this.secure = secure;
        if (signer == null) {
            throw new IllegalArgumentException("signer must not be null");
        }
        long seconds = SignedToken.maxAgeSeconds(maxAge, TierCookies.MAX_AGE_LIMIT_SECONDS);
        if (seconds < 0) {
            throw new IllegalArgumentException("maxAge must be from 1 second to 400 days (P400D), was " + maxAge);
        }
        if (clock == null) {
            throw new IllegalArgumentException("clock must not be null");
        }
        this.signer = signer;
        this.maxAgeSeconds = seconds;
        this.clock = clock;
    }

    /** {@link #SessionCookies(String, Signer, Duration, boolean, Clock)}, secure only for a prefixed name. */
    SessionCookies(String cookieName, Signer signer, Duration maxAge, Clock clock) {
        this(cookieName, signer, maxAge, CookiePolicy.requiresSecure(cookieName), clock);
    }

    /** The cookie's name. */
    String cookieName() {
        return cookieName;
    }

    /** 128 random bits from a {@link SecureRandom}, base64url without padding (22 characters). */
    static String newSessionId() {
        byte[] bytes = new byte[SESSION_ID_BYTES];
        RANDOM.nextBytes(bytes);
        return Base64Url.encode(bytes);
    }

    /**
     * A signed cookie value admitting {@code sessionId} in {@code serviceClass} until
     * {@code min(admittedUntilEpochSecond, now + maxAge)}.
     *
     * @param serviceClass 1 to 32 ASCII letters, digits, '-' or '_'
     * @param sessionId 1 to 128 bytes of UTF-8, typically {@link #newSessionId()}
     * @param admittedUntilEpochSecond seconds since the epoch; a value at or before now gives a cookie that
     *     verifies as EXPIRED
     * @throws IllegalArgumentException if an argument breaks the format (a bug in the caller, never
     *     request input)
     */
    String issue(String serviceClass, String sessionId, long admittedUntilEpochSecond) {
        long now = clock.epochSecond();
        long until = Math.max(0, cap(admittedUntilEpochSecond, now));
        return SignedToken.format(signer, DOMAIN, serviceClass, "sessionId", sessionId, Math.max(0, now), until);
    }

    /**
     * The whole {@code Set-Cookie} header value for {@code value}:
     * {@code NAME=VALUE; Max-Age=N; Path=/; HttpOnly; SameSite=Lax} ({@code Secure} after the path when the cookies
     * are secure), where N is
     * {@code admittedUntil - now} in seconds, at least 0 and at most maxAge.
     *
     * @param value a value from {@link #issue}
     * @param admittedUntilEpochSecond the admitted-until given to {@link #issue}
     * @throws IllegalArgumentException if {@code value} holds characters that are not legal in a cookie
     *     value, which {@link #issue} never produces; checked so a caller's bug cannot inject a header
     */
    String setCookieHeader(String value, long admittedUntilEpochSecond) {
        if (!isTokenText(value)) {
            throw new IllegalArgumentException("value must come from issue(), was " + SignedToken.quote(value));
        }
        long now = clock.epochSecond();
        long maxAge = Math.max(0, cap(admittedUntilEpochSecond, now) - now);
        return SignedToken.setCookieHeader(cookieName, value, maxAge, secure);
    }

    /**
     * Checks a cookie value as it arrived in a request, against the clock's current second: EXPIRED once its
     * admitted-until has passed or it is as old as the max age configured now. Never throws.
     *
     * @param value the value, or null when the request had no such cookie
     * @return the status, and the class, session id and admitted-until when it is VALID
     */
    Verified verify(String value) {
        SignedToken.Parsed parsed = SignedToken.parse(signer, DOMAIN, value, clock.epochSecond(), maxAgeSeconds);
        if (parsed.status() != Status.VALID) {
            return FAILURES[parsed.status().ordinal()];
        }
        // valid until the earlier of its expiry and the end of its max age: a cached session is checked against it
        long until = parsed.issued() <= Long.MAX_VALUE - maxAgeSeconds
                ? Math.min(parsed.expires(), parsed.issued() + maxAgeSeconds) : parsed.expires();
        return new Verified(Status.VALID, parsed.serviceClass(), parsed.id(), until);
    }

    private long cap(long admittedUntil, long now) {
        // maxAge is at most 400 days, so now + maxAge does not overflow for any real clock
        return Math.min(admittedUntil, now + maxAgeSeconds);
    }

    private static boolean isTokenText(String value) {
        if (value == null || value.isEmpty()) {
            return false;
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c != '.' && !Base64Url.isAlphabet(c)) {
                return false;
            }
        }
        return true;
    }

    /**
     * The result of {@link SessionCookies#verify}.
     *
     * @param status what the check found; never null
     * @param serviceClass the admitted class, or null unless VALID
     * @param sessionId the session id, or null unless VALID
     * @param admittedUntil seconds since the epoch until which the session is admitted: the cookie's expiry, or the
 *     end of its max age in force if that is earlier; 0 unless VALID
     */
    record Verified(Status status, String serviceClass, String sessionId, long admittedUntil) {
    }
}

package dev.servletqos;

import java.time.Duration;
import java.util.Arrays;

/**
 * The tier cookie: a subscription to a service class, issued by the application at login and trusted
 * only when its HMAC-SHA256 signature checks out.
 *
 * <p>It carries the service class, the subject (the user) and an expiry, typically days or months
 * ahead. Because it outlives sessions, a returning premium user is recognised on the very first request of
 * a new session, before any session exists, which is the request that session admission decides on under
 * overload. The value has the form {@code v1.<class>.<b64url(subject)>.<expiresEpochSecond>.<signature>},
 * signed in the domain {@code "tier"}, so it never passes as an admission cookie of the engine even when
 * both share a secret.
 *
 * <p>At login, the application adds the header:
 *
 * <pre>{@code
 * TierCookies tiers = TierCookies.create("qos_tier", secret, null, Duration.ofDays(30), Clock.system());
 * response.addHeader("Set-Cookie", tiers.setCookieHeader("premium", user.id()));
 * }</pre>
 *
 * <p>A verified cookie proves only that this application issued it; whether its class is one the policy
 * knows is for the classifier to decide.
 *
 * <p>Immutable and thread-safe.
 */
public final class TierCookies {

    /** The signature domain of tier cookies. */
    static final String DOMAIN = "tier";

    /**
     * Longest max age, 400 days: browsers cap a cookie's lifetime there (RFC 6265bis), so a longer signed
     * expiry would only promise something the browser does not keep.
     */
    static final long MAX_AGE_LIMIT_SECONDS = Duration.ofDays(400).getSeconds();

    private static final Verified[] FAILURES = new Verified[Verified.Status.values().length];

    static {
        for (Verified.Status status : Verified.Status.values()) {
            FAILURES[status.ordinal()] = new Verified(status, null, null);
        }
    }

    private final String cookieName;
    private final Signer signer;
    private final long defaultMaxAgeSeconds;
    private final Clock clock;

    private TierCookies(String cookieName, Signer signer, long defaultMaxAgeSeconds, Clock clock) {
        this.cookieName = cookieName;
        this.signer = signer;
        this.defaultMaxAgeSeconds = defaultMaxAgeSeconds;
        this.clock = clock;
    }

    /**
     * Creates the codec.
     *
     * @param cookieName the cookie's name, an RFC 6265 token (for example {@code qos_tier})
     * @param secret the signing secret, at least 16 bytes of UTF-8; keep it out of source control
     * @param previousSecret a secret still accepted when verifying, during a key rotation; null for none
     *     (at least 16 bytes of UTF-8 otherwise)
     * @param defaultMaxAge how long a cookie issued without an explicit max age lasts; whole seconds
     *     (the fraction is dropped), from 1 second to 400 days
     * @param clock the source of wall-clock seconds for expiries; {@link Clock#system()} in production
     * @throws IllegalArgumentException if a parameter is null (other than {@code previousSecret}) or out of
     *     range; the message names the parameter and the bad value, but only the length of a secret
     * @throws IllegalStateException if the JDK offers no HmacSHA256
     */
    public static TierCookies create(
            String cookieName, String secret, String previousSecret, Duration defaultMaxAge, Clock clock) {
        SignedToken.checkCookieName(cookieName);
        byte[] current = Signer.checkSecret("secret", secretBytes("secret", secret));
        byte[] previous = previousSecret == null
                ? null
                : Signer.checkSecret("previousSecret", secretBytes("previousSecret", previousSecret));
        long maxAgeSeconds = checkMaxAge("defaultMaxAge", defaultMaxAge);
        if (clock == null) {
            throw new IllegalArgumentException("clock must not be null");
        }
        try {
            return new TierCookies(cookieName, new Signer(current, previous), maxAgeSeconds, clock);
        } finally {
            // the Signer holds its own copies; do not leave more of the secret on the heap than needed
            Arrays.fill(current, (byte) 0);
            if (previous != null) {
                Arrays.fill(previous, (byte) 0);
            }
        }
    }

    /** The cookie's name, as given to {@link #create}. */
    public String cookieName() {
        return cookieName;
    }

    /**
     * A signed cookie value for {@code subject} in {@code serviceClass}, valid for the default max age from
     * now.
     *
     * @param serviceClass 1 to 32 ASCII letters, digits, '-' or '_'
     * @param subject who the subscription belongs to, 1 to 128 bytes of UTF-8
     * @throws IllegalArgumentException if an argument is out of range (the message names it)
     */
    public String issue(String serviceClass, String subject) {
        return issueAt(serviceClass, subject, defaultMaxAgeSeconds, clock.epochSecond());
    }

    /**
     * A signed cookie value valid for {@code maxAge} from now (whole seconds, 1 second to 400 days).
     *
     * @throws IllegalArgumentException if an argument is out of range (the message names it)
     * @see #issue(String, String)
     */
    public String issue(String serviceClass, String subject, Duration maxAge) {
        return issueAt(serviceClass, subject, checkMaxAge("maxAge", maxAge), clock.epochSecond());
    }

    /**
     * The whole {@code Set-Cookie} header value for a new cookie with the default max age:
     * {@code NAME=VALUE; Max-Age=N; Path=/; HttpOnly; SameSite=Lax}. No {@code Secure} attribute is set.
     *
     * @throws IllegalArgumentException as {@link #issue(String, String)}
     */
    public String setCookieHeader(String serviceClass, String subject) {
        return header(serviceClass, subject, defaultMaxAgeSeconds);
    }

    /**
     * The whole {@code Set-Cookie} header value for a new cookie valid for {@code maxAge}.
     *
     * @throws IllegalArgumentException as {@link #issue(String, String, Duration)}
     * @see #setCookieHeader(String, String)
     */
    public String setCookieHeader(String serviceClass, String subject, Duration maxAge) {
        return header(serviceClass, subject, checkMaxAge("maxAge", maxAge));
    }

    /**
     * Checks a cookie value as it arrived in a request, against the clock's current second. Never throws:
     * every kind of bad input is a status.
     *
     * @param cookieValue the value, or null when the request had no such cookie
     * @return the status, and the class and subject when it is {@link Verified.Status#VALID}
     */
    public Verified verify(String cookieValue) {
        SignedToken.Parsed parsed = SignedToken.parse(signer, DOMAIN, cookieValue, clock.epochSecond());
        if (parsed.status() != Verified.Status.VALID) {
            return FAILURES[parsed.status().ordinal()];
        }
        return new Verified(Verified.Status.VALID, parsed.serviceClass(), parsed.id());
    }

    private String header(String serviceClass, String subject, long maxAgeSeconds) {
        // one reading of the clock, so the signed expiry and Max-Age agree
        String value = issueAt(serviceClass, subject, maxAgeSeconds, clock.epochSecond());
        return SignedToken.setCookieHeader(cookieName, value, maxAgeSeconds);
    }

    private String issueAt(String serviceClass, String subject, long maxAgeSeconds, long now) {
        return SignedToken.format(signer, DOMAIN, serviceClass, "subject", subject, now + maxAgeSeconds);
    }

    private static byte[] secretBytes(String name, String secret) {
        if (secret == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        return Signer.secretBytes(secret);
    }

    private static long checkMaxAge(String name, Duration maxAge) {
        long seconds = SignedToken.maxAgeSeconds(maxAge, MAX_AGE_LIMIT_SECONDS);
        if (seconds < 0) {
            throw new IllegalArgumentException(
                    name + " must be from 1 second to 400 days (P400D), was " + maxAge);
        }
        return seconds;
    }

    /**
     * The result of {@link TierCookies#verify}.
     *
     * @param status what the check found; never null
     * @param serviceClass the class the cookie grants, or null unless {@code status} is VALID
     * @param subject the subject the cookie was issued to, or null unless {@code status} is VALID
     */
    public record Verified(Status status, String serviceClass, String subject) {

        /** What a check of a signed cookie found. */
        public enum Status {
            /** Well-formed, signed by us, not expired. */
            VALID,
            /** The request carried no such cookie. */
            MISSING,
            /** Not a token of this format and version (including empty values and bad characters). */
            MALFORMED,
            /** Well-formed, but the signature does not verify under any configured secret and domain. */
            FORGED,
            /** Signed by us, but its expiry is at or before the current second. */
            EXPIRED,
            /** Longer than 512 characters; rejected before any parsing. */
            OVERSIZED
        }
    }
}

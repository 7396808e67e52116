package dev.servletqos;

import dev.servletqos.policy.CookiePolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.SigningKeys;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Arrays;

/**
 * The tier cookie: a subscription to a service class, issued by the application at login and trusted
 * only when its HMAC-SHA256 signature checks out.
 *
 * <p>It carries the service class, the subject (the user) and an expiry, typically days or months
 * ahead. Because it outlives sessions, a returning premium user is recognised on the very first request of
 * a new session, before any session exists, which is the request that session admission decides on under
 * overload. The value has the form
 * {@code v2.<class>.<b64url(subject)>.<issuedEpochSecond>.<expiresEpochSecond>.<signature>}, signed in the domain
 * {@code "tier"}, so it never passes as an admission cookie of the engine even when both share a secret.
 *
 * <p>The max age given at creation (the policy's {@code tier-cookie.max-age}) is the longest any tier cookie lives:
 * a cookie older than it is expired whatever expiry it carries, so lowering it shortens the cookies already
 * issued, and a cookie asked for with a longer max age gets this one.
 *
 * <p>At login, the application adds the header:
 *
 * <pre>{@code
 * TierCookies tiers = TierCookies.create("qos_tier", secret, null, Duration.ofDays(30), Clock.system())
 *         .withSecure(true);
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
    private final long maxAgeSeconds;
    private final boolean secure;
    private final Clock clock;
    /** Subjects revoked on the cluster ({@link ClusterLink}), replaced whole; read on the request path. */
    private volatile java.util.Set<String> revoked = java.util.Set.of();

    private TierCookies(String cookieName, Signer signer, long maxAgeSeconds, boolean secure, Clock clock) {
        this.cookieName = cookieName;
        this.signer = signer;
        this.maxAgeSeconds = maxAgeSeconds;
        this.secure = secure;
        this.clock = clock;
    }

    /**
     * Creates the codec.
     *
     * @param cookieName the cookie's name, an RFC 6265 token (for example {@code qos_tier})
     * @param secret the signing secret, at least 16 bytes of UTF-8; keep it out of source control
     * @param previousSecret a secret still accepted when verifying, during a key rotation; null for none
     *     (at least 16 bytes of UTF-8 otherwise)
     * @param defaultMaxAge how long a cookie issued without an explicit max age lasts, and the oldest a cookie may
     *     be to verify; whole seconds (the fraction is dropped), from 1 second to 400 days
     * @param clock the source of wall-clock seconds for expiries; {@link Clock#system()} in production
     * @return the codec; its cookies are {@code Secure} when the name has the {@code __Host-} or
     *     {@code __Secure-} prefix, else not ({@link #withSecure(boolean)})
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
            return new TierCookies(cookieName, new Signer(current, previous), maxAgeSeconds,
                    CookiePolicy.requiresSecure(cookieName), clock);
        } finally {
            // the Signer holds its own copies; do not leave more of the secret on the heap than needed
            Arrays.fill(current, (byte) 0);
            if (previous != null) {
                Arrays.fill(previous, (byte) 0);
            }
        }
    }

    /**
     * The codec of a policy: its {@code tier-cookie.name}, {@code tier-cookie.max-age}, {@code tier-cookie.secure}
     * and signing keys, or, when it has no {@code tier-cookie.secret}, a random key of this codec alone (its
     * cookies then verify nowhere else). An engine's own codec is {@link QosEngine#tierCookies()}.
     *
     * @throws IllegalStateException if the JDK offers no HmacSHA256
     */
    public static TierCookies forPolicy(QosPolicy policy, Clock clock) {
        if (policy == null || clock == null) {
            throw new IllegalArgumentException("policy and clock must not be null");
        }
        SigningKeys keys = policy.cookies().signingKeys();
        Signer signer = keys.configured() ? new Signer(keys) : randomSigner();
        return new TierCookies(policy.cookies().tierName(), signer, policy.cookies().tierMaxAge().getSeconds(),
                policy.cookies().tierSecure(), clock);
    }

    // Without a configured secret, cookies are signed with a key only this JVM knows: they verify on this node
    // until it restarts.
    private static Signer randomSigner() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        try {
            return new Signer(b, null);
        } finally {
            Arrays.fill(b, (byte) 0);
        }
    }

    /**
     * The same codec with cookies that carry the {@code Secure} attribute, or not: a browser then sends them over
     * HTTPS only.
     *
     * @throws IllegalArgumentException if {@code secure} is false and the name has the {@code __Host-} or
     *     {@code __Secure-} prefix, which browsers keep only on a {@code Secure} cookie
     */
    public TierCookies withSecure(boolean secure) {
        if (!secure && CookiePolicy.requiresSecure(cookieName)) {
            throw new IllegalArgumentException("secure must be true for a cookie named " + cookieName
                    + ": browsers keep a __Host- or __Secure- cookie only with the Secure attribute");
        }
        return new TierCookies(cookieName, signer, maxAgeSeconds, secure, clock);
    }

    /** The cookie's name, as given to {@link #create}. */
    public String cookieName() {
        return cookieName;
    }

    /** Whether the cookies carry the {@code Secure} attribute. */
    public boolean secure() {
        return secure;
    }

    /** The signer, shared with the engine's admission cookies (the domain keeps the two kinds apart). */
    Signer signer() {
        return signer;
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
        return issueAt(serviceClass, subject, maxAgeSeconds, clock.epochSecond());
    }

    /**
     * A signed cookie value valid for {@code maxAge} from now (whole seconds, 1 second to 400 days), or for the
     * default max age if that is shorter: no cookie verifies once it is older than that.
     *
     * @throws IllegalArgumentException if an argument is out of range (the message names it)
     * @see #issue(String, String)
     */
    public String issue(String serviceClass, String subject, Duration maxAge) {
        return issueAt(serviceClass, subject, checkMaxAge("maxAge", maxAge), clock.epochSecond());
    }

    /**
     * The whole {@code Set-Cookie} header value for a new cookie with the default max age:
     * {@code NAME=VALUE; Max-Age=N; Path=/; HttpOnly; SameSite=Lax}, with {@code Secure} after the path when the
     * codec is {@link #secure()}.
     *
     * @throws IllegalArgumentException as {@link #issue(String, String)}
     */
    public String setCookieHeader(String serviceClass, String subject) {
        return header(serviceClass, subject, maxAgeSeconds);
    }

    /**
     * The whole {@code Set-Cookie} header value for a new cookie valid for {@code maxAge}, or the default max age
     * if that is shorter.
     *
     * @throws IllegalArgumentException as {@link #issue(String, String, Duration)}
     * @see #setCookieHeader(String, String)
     */
    public String setCookieHeader(String serviceClass, String subject, Duration maxAge) {
        return header(serviceClass, subject, checkMaxAge("maxAge", maxAge));
    }

    /**
     * Checks a cookie value as it arrived in a request, against the clock's current second: EXPIRED once its
     * expiry has passed or it is as old as the default max age. Never throws: every kind of bad input is a
     * status.
     *
     * @param cookieValue the value, or null when the request had no such cookie
     * @return the status, and the class and subject when it is {@link Verified.Status#VALID}
     */
    public Verified verify(String cookieValue) {
        if (cookieValue == null) {
            // most requests carry no tier cookie: no clock read for them (issue 24)
            return FAILURES[Verified.Status.MISSING.ordinal()];
        }
        SignedToken.Parsed parsed = SignedToken.parse(signer, DOMAIN, cookieValue, clock.epochSecond(),
                maxAgeSeconds);
        if (parsed.status() != Verified.Status.VALID) {
            return FAILURES[parsed.status().ordinal()];
        }
        java.util.Set<String> r = revoked;
        if (!r.isEmpty() && r.contains(parsed.id())) {
            return FAILURES[Verified.Status.REVOKED.ordinal()];
        }
        return new Verified(Verified.Status.VALID, parsed.serviceClass(), parsed.id());
    }

    /** Revokes these subjects too (the cluster's exchange, an operator's revocation); the ones before stay. */
    synchronized void revokedAlso(java.util.Collection<String> subjects) {
        if (!revoked.containsAll(subjects)) {
            java.util.Set<String> n = new java.util.HashSet<>(revoked);
            n.addAll(subjects);
            revoked = java.util.Set.copyOf(n);
        }
    }

    /** How many subjects are revoked now. */
    int revokedCount() {
        return revoked.size();
    }

    /** The subjects revoked now (an immutable set). */
    java.util.Set<String> revoked() {
        return revoked;
    }

    private String header(String serviceClass, String subject, long ageSeconds) {
        long age = Math.min(ageSeconds, maxAgeSeconds);
        // one reading of the clock, so the signed expiry and Max-Age agree
        String value = issueAt(serviceClass, subject, age, clock.epochSecond());
        return SignedToken.setCookieHeader(cookieName, value, age, secure);
    }

    private String issueAt(String serviceClass, String subject, long ageSeconds, long now) {
        return SignedToken.format(signer, DOMAIN, serviceClass, "subject", subject, now,
                now + Math.min(ageSeconds, maxAgeSeconds));
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
            OVERSIZED,
            /** Signed by us and not expired, but its subject is revoked on the cluster (docs/cluster.md). */
            REVOKED
        }
    }
}

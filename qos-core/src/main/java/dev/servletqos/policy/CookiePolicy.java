package dev.servletqos.policy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Objects;

/**
 * The engine's two cookies ({@code tier-cookie.*} and {@code session-cookie.*}): the signed subscription cookie the
 * application issues, the signed per-session admission cookie, and the secrets that sign both. Immutable and
 * thread-safe; build with {@link #DEFAULTS} and the {@code with} methods; {@link #check(boolean)} checks the values.
 *
 * <p>Not a record, so that the secrets cannot be read back: only their keyed MACs are handed out
 * ({@link #signingKeys()}); {@link #toString()} and {@link #hashCode()} tell nothing about them.
 */
public final class CookiePolicy {

    /** The shortest {@code tier-cookie.secret} and {@code tier-cookie.previous-secret}: 16 bytes of UTF-8, 128 bits. */
    public static final int MIN_SECRET_BYTES = 16;

    /** Every setting at its default: QOSTIER for 365 days, QOSSESSION for 30 minutes, no secret. */
    public static final CookiePolicy DEFAULTS = new CookiePolicy("QOSTIER", null, null, Duration.ofDays(365), null,
            "QOSSESSION", Duration.ofMinutes(30), null);

    private final String tierName;
    /** The secrets as given, kept for {@code with} copies; never handed out. */
    private final String secret;
    private final String previousSecret;
    private final SigningKeys signingKeys;
    private final Duration tierMaxAge;
    /** As given; null: by the name's prefix. */
    private final Boolean tierSecureGiven;
    private final String sessionName;
    private final Duration sessionMaxAge;
    private final Boolean sessionSecureGiven;

    private CookiePolicy(String tierName, String secret, String previousSecret, Duration tierMaxAge,
                         Boolean tierSecureGiven, String sessionName, Duration sessionMaxAge,
                         Boolean sessionSecureGiven) {
        this.tierName = tierName;
        this.secret = secret;
        this.previousSecret = previousSecret;
        this.signingKeys = SigningKeys.of(secret, previousSecret);
        this.tierMaxAge = tierMaxAge;
        this.tierSecureGiven = tierSecureGiven;
        this.sessionName = sessionName;
        this.sessionMaxAge = sessionMaxAge;
        this.sessionSecureGiven = sessionSecureGiven;
    }

    /** {@code tier-cookie.name}: 1..64 letters, digits, '-', '_', '.'. */
    public CookiePolicy withTierName(String name) {
        return new CookiePolicy(name, secret, previousSecret, tierMaxAge, tierSecureGiven, sessionName,
                sessionMaxAge, sessionSecureGiven);
    }

    /** {@code tier-cookie.secret}: the signing secret, at least {@value #MIN_SECRET_BYTES} bytes; null: none. */
    public CookiePolicy withSecret(String s) {
        return new CookiePolicy(tierName, s, previousSecret, tierMaxAge, tierSecureGiven, sessionName, sessionMaxAge,
                sessionSecureGiven);
    }

    /** {@code tier-cookie.previous-secret}: a second key still accepted for checking, during key rotation. */
    public CookiePolicy withPreviousSecret(String s) {
        return new CookiePolicy(tierName, secret, s, tierMaxAge, tierSecureGiven, sessionName, sessionMaxAge,
                sessionSecureGiven);
    }

    /** {@code tier-cookie.max-age}: 1s..400d. */
    public CookiePolicy withTierMaxAge(Duration d) {
        return new CookiePolicy(tierName, secret, previousSecret, d, tierSecureGiven, sessionName, sessionMaxAge,
                sessionSecureGiven);
    }

    /**
     * {@code tier-cookie.secure}; unset, true for a name with the {@code __Host-} or {@code __Secure-} prefix, else
     * false. False with such a name fails {@link #check(boolean)}.
     */
    public CookiePolicy withTierSecure(boolean secure) {
        return new CookiePolicy(tierName, secret, previousSecret, tierMaxAge, secure, sessionName, sessionMaxAge,
                sessionSecureGiven);
    }

    /** {@code session-cookie.name}: a cookie name other than the tier cookie's. */
    public CookiePolicy withSessionName(String name) {
        return new CookiePolicy(tierName, secret, previousSecret, tierMaxAge, tierSecureGiven, name, sessionMaxAge,
                sessionSecureGiven);
    }

    /** {@code session-cookie.max-age}: 1s..400d. */
    public CookiePolicy withSessionMaxAge(Duration d) {
        return new CookiePolicy(tierName, secret, previousSecret, tierMaxAge, tierSecureGiven, sessionName, d,
                sessionSecureGiven);
    }

    /** As {@link #withTierSecure(boolean)}, for the admission cookie ({@code session-cookie.secure}). */
    public CookiePolicy withSessionSecure(boolean secure) {
        return new CookiePolicy(tierName, secret, previousSecret, tierMaxAge, tierSecureGiven, sessionName,
                sessionMaxAge, secure);
    }

    /** Name of the signed subscription cookie the application issues ({@code tier-cookie.name}); default QOSTIER. */
    public String tierName() {
        return tierName;
    }

    /**
     * The keys of {@code tier-cookie.secret} and {@code tier-cookie.previous-secret}, which sign and check the tier
     * and session cookies; {@link SigningKeys#configured()} is false when no secret is set. The secrets themselves
     * are not readable through the policy.
     */
    public SigningKeys signingKeys() {
        return signingKeys;
    }

    /**
     * Lifetime of an issued tier cookie ({@code tier-cookie.max-age}); default 365 days. Also the oldest a tier
     * cookie may be to be honoured, whatever expiry it carries: lowering it shortens cookies already issued.
     */
    public Duration tierMaxAge() {
        return tierMaxAge;
    }

    /**
     * Whether tier cookies carry the {@code Secure} attribute ({@code tier-cookie.secure}); default true when
     * {@code tier-cookie.name} starts with {@code __Host-} or {@code __Secure-}, else false.
     */
    public boolean tierSecure() {
        return tierSecureGiven != null ? tierSecureGiven : requiresSecure(tierName);
    }

    /** Name of the signed per-session admission cookie ({@code session-cookie.name}); default QOSSESSION. */
    public String sessionName() {
        return sessionName;
    }

    /** How long an admission stays valid without renewal ({@code session-cookie.max-age}); default 30 min. */
    public Duration sessionMaxAge() {
        return sessionMaxAge;
    }

    /**
     * Whether admission cookies carry the {@code Secure} attribute ({@code session-cookie.secure}); default true
     * when {@code session-cookie.name} starts with {@code __Host-} or {@code __Secure-}, else false.
     */
    public boolean sessionSecure() {
        return sessionSecureGiven != null ? sessionSecureGiven : requiresSecure(sessionName);
    }

    /**
     * Whether a cookie of this name must be {@code Secure}: its name starts with {@code __Secure-} or
     * {@code __Host-} (RFC 6265bis, which compares the prefixes ignoring case). Browsers refuse to store such a
     * cookie without {@code Secure}, and a {@code __Host-} one also needs {@code Path=/} and no {@code Domain},
     * which the engine's cookies always have.
     */
    public static boolean requiresSecure(String cookieName) {
        return cookieName != null && (cookieName.regionMatches(true, 0, "__Secure-", 0, 9)
                || cookieName.regionMatches(true, 0, "__Host-", 0, 7));
    }

    /**
     * Checks every setting.
     *
     * @param tierRule whether the policy has a {@code tier-cookie} rule, which needs a secret
     * @throws PolicyException naming the key and the value (a secret's length only) of the first bad setting
     */
    public void check(boolean tierRule) {
        ClassPolicy.check(isToken(tierName), "tier-cookie.name", tierName,
                "must be a cookie name (letters, digits, '-', '_', '.')");
        ClassPolicy.check(isToken(sessionName), "session-cookie.name", sessionName,
                "must be a cookie name (letters, digits, '-', '_', '.')");
        ClassPolicy.check(!tierName.equals(sessionName), "session-cookie.name", sessionName,
                "must differ from tier-cookie.name");
        checkSecretLength(secret, "tier-cookie.secret");
        checkSecretLength(previousSecret, "tier-cookie.previous-secret");
        if (tierRule && secret == null) {
            throw new PolicyException("tier-cookie.secret", "(unset)",
                    "a tier-cookie rule needs a secret, else tier cookies cannot be trusted");
        }
        if (previousSecret != null && secret == null) {
            throw new PolicyException("tier-cookie.secret", "(unset)", "tier-cookie.previous-secret is set, "
                    + "which only checks cookies during a key rotation: set the key that signs here too");
        }
        checkSecure(tierSecure(), tierName, "tier-cookie");
        checkSecure(sessionSecure(), sessionName, "session-cookie");
        checkCookieAge(tierMaxAge, "tier-cookie.max-age");
        checkCookieAge(sessionMaxAge, "session-cookie.max-age");
    }

    /** The length in bytes, never the value: {@code tier-cookie.secret = (hidden, 14 bytes): ...}. */
    private static void checkSecretLength(String secret, String key) {
        if (secret == null) {
            return;
        }
        int bytes = secret.getBytes(StandardCharsets.UTF_8).length;
        if (bytes < MIN_SECRET_BYTES) {
            throw new PolicyException(key, "(hidden, " + bytes + " bytes)",
                    "must be at least " + MIN_SECRET_BYTES + " bytes");
        }
    }

    private static void checkSecure(boolean secure, String name, String cookie) {
        if (!secure && requiresSecure(name)) {
            throw new PolicyException(cookie + ".secure", "false", "browsers keep a cookie named " + name
                    + " only with the Secure attribute; set it to true (the default for such a name) or drop the"
                    + " prefix from " + cookie + ".name");
        }
    }

    // Browsers cap cookie lifetimes at 400 days (RFC 6265bis); below a second Max-Age would be 0 and delete it.
    private static void checkCookieAge(Duration d, String key) {
        ClassPolicy.check(d != null && d.getSeconds() >= 1 && d.compareTo(Duration.ofDays(400)) <= 0, key, d,
                "must be 1s..400d");
    }

    private static boolean isToken(String s) {
        if (s == null || s.isEmpty() || s.length() > 64) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '.' && !ClassPolicy.isNameChar(c)) {
                return false;
            }
        }
        return true;
    }

    /** Equal when every setting is, the secure flags as resolved and the secrets compared in constant time. */
    @Override
    public boolean equals(Object o) {
        return o instanceof CookiePolicy c && Objects.equals(tierName, c.tierName)
                && Objects.equals(tierMaxAge, c.tierMaxAge) && tierSecure() == c.tierSecure()
                && Objects.equals(sessionName, c.sessionName) && Objects.equals(sessionMaxAge, c.sessionMaxAge)
                && sessionSecure() == c.sessionSecure() && signingKeys.equals(c.signingKeys);
    }

    /** Of every setting but the secrets, so that it tells nothing about them. */
    @Override
    public int hashCode() {
        return Objects.hash(tierName, tierMaxAge, tierSecure(), sessionName, sessionMaxAge, sessionSecure());
    }

    /** The secrets by their lengths only. */
    @Override
    public String toString() {
        return "CookiePolicy{tier=" + tierName + ", tierMaxAge=" + tierMaxAge + ", tierSecure=" + tierSecure()
                + ", session=" + sessionName + ", sessionMaxAge=" + sessionMaxAge + ", sessionSecure="
                + sessionSecure() + ", " + signingKeys + "}";
    }
}

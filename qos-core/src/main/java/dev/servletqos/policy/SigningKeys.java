package dev.servletqos.policy;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The policy's signing keys ({@code tier-cookie.secret} and {@code tier-cookie.previous-secret}) in the one form
 * the engine needs them: HMAC-SHA256 instances keyed with them. The secrets themselves cannot be read back from
 * it (nor from the {@link QosPolicy} that holds it): no method returns them, {@link #toString()} shows their
 * lengths only, so a policy that is logged, dumped by a management endpoint or inspected in a debugger's
 * variable view does not give them away.
 *
 * <p>Immutable and thread-safe; each {@code new...Mac()} call returns a new {@link Mac}, which is not.
 */
public final class SigningKeys {

    private static final String ALGORITHM = "HmacSHA256";
    static final SigningKeys NONE = new SigningKeys(null, null);

    private final SecretKeySpec current;
    private final SecretKeySpec previous;
    private final int currentBytes;
    private final int previousBytes;

    private SigningKeys(SecretKeySpec current, SecretKeySpec previous) {
        this.current = current;
        this.previous = previous;
        this.currentBytes = current == null ? 0 : length(current);
        this.previousBytes = previous == null ? 0 : length(previous);
    }

    /** The keys of two secrets as given in the policy (UTF-8, untrimmed); either may be null. */
    static SigningKeys of(String secret, String previousSecret) {
        return secret == null && previousSecret == null ? NONE : new SigningKeys(key(secret), key(previousSecret));
    }

    /** Whether {@code tier-cookie.secret} is set; without it the engine signs with a random key of its own. */
    public boolean configured() {
        return current != null;
    }

    /** Whether {@code tier-cookie.previous-secret} is set (a key rotation is under way). */
    public boolean hasPrevious() {
        return previous != null;
    }

    /**
     * A new HMAC-SHA256 keyed with {@code tier-cookie.secret}: what new cookies are signed with.
     *
     * @throws IllegalStateException if the secret is not {@link #configured()} or the JDK has no HmacSHA256
     */
    public Mac newCurrentMac() {
        if (current == null) {
            throw new IllegalStateException("tier-cookie.secret is not set");
        }
        return mac(current);
    }

    /**
     * A new HMAC-SHA256 keyed with {@code tier-cookie.previous-secret}, still accepted when checking cookies.
     *
     * @throws IllegalStateException if there is no previous secret ({@link #hasPrevious()}) or no HmacSHA256
     */
    public Mac newPreviousMac() {
        if (previous == null) {
            throw new IllegalStateException("tier-cookie.previous-secret is not set");
        }
        return mac(previous);
    }

    /** Equal when both secrets are, compared in constant time. */
    @Override
    public boolean equals(Object o) {
        return o instanceof SigningKeys k && same(current, k.current) && same(previous, k.previous);
    }

    /** Depends on the secrets' lengths only, so that it tells nothing about their content. */
    @Override
    public int hashCode() {
        return 31 * currentBytes + previousBytes;
    }

    /** The lengths, never the content: {@code SigningKeys{secret=(hidden, 32 bytes), previous-secret=(none)}}. */
    @Override
    public String toString() {
        return "SigningKeys{secret=" + shown(current, currentBytes) + ", previous-secret="
                + shown(previous, previousBytes) + "}";
    }

    private static String shown(SecretKeySpec key, int bytes) {
        return key == null ? "(none)" : "(hidden, " + bytes + " bytes)";
    }

    private static SecretKeySpec key(String secret) {
        if (secret == null) {
            return null;
        }
        byte[] bytes = secret.getBytes(StandardCharsets.UTF_8);
        try {
            return bytes.length == 0 ? null : new SecretKeySpec(bytes, ALGORITHM); // copies the bytes
        } finally {
            Arrays.fill(bytes, (byte) 0);
        }
    }

    private static int length(SecretKeySpec key) {
        byte[] encoded = key.getEncoded();
        Arrays.fill(encoded, (byte) 0);
        return encoded.length;
    }

    private static boolean same(SecretKeySpec a, SecretKeySpec b) {
        if (a == null || b == null) {
            return a == b;
        }
        byte[] x = a.getEncoded();
        byte[] y = b.getEncoded();
        try {
            return java.security.MessageDigest.isEqual(x, y);
        } finally {
            Arrays.fill(x, (byte) 0);
            Arrays.fill(y, (byte) 0);
        }
    }

    private static Mac mac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available", e);
        }
    }
}

package dev.servletqos;

import dev.servletqos.policy.CookiePolicy;
import dev.servletqos.policy.SigningKeys;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * HMAC-SHA256 signatures for the signed cookies, with one previous secret accepted during key rotation.
 *
 * <p>A signature covers {@code domain + '|' + payload}. The domain names the kind of token ({@code "tier"},
 * {@code "session"}), so a token of one kind never verifies as another even when both are signed with the
 * same secret. Domains are fixed strings of this package and never contain {@code '|'}, which keeps the
 * concatenation unambiguous.
 *
 * <p>Rotation: sign with the new secret as {@code currentSecret} and the old one as {@code previousSecret};
 * cookies signed under either verify, new ones are signed under the current one only. Once every cookie
 * signed under the old secret has expired, drop it.
 *
 * <p>Thread-safe. Each thread keeps one initialised {@link Mac} per secret in a {@link ThreadLocal}:
 * {@code Mac.getInstance} and {@code init} are far too slow for every request, a {@code Mac} is not
 * thread-safe, and {@code Mac.clone()} is optional for providers (a FIPS provider may refuse it). The
 * thread-local values are JDK classes only, so they hold no web application class loader alive.
 */
final class Signer {

    /** Minimum secret length in bytes: 128 bits. */
    static final int MIN_SECRET_BYTES = CookiePolicy.MIN_SECRET_BYTES;

    private static final String ALGORITHM = "HmacSHA256";
    private static final int SIGNATURE_BYTES = 32;
    /** Unpadded base64url length of a 32-byte signature. */
    private static final int SIGNATURE_CHARS = 43;

    private final ThreadLocal<Mac> current;
    private final ThreadLocal<Mac> previous; // null when no previous secret is configured

    /**
     * @param currentSecret the secret new signatures are made with, at least {@value #MIN_SECRET_BYTES}
     *     bytes; copied
     * @param previousSecret a secret still accepted by {@link #verify}, or null; at least
     *     {@value #MIN_SECRET_BYTES} bytes; copied
     * @throws IllegalArgumentException if a secret is null (the current one) or too short; the message
     *     names the secret and its length, never its content
     * @throws IllegalStateException if the JDK offers no HmacSHA256
     */
    Signer(byte[] currentSecret, byte[] previousSecret) {
        this.current = macs(checkSecret("currentSecret", currentSecret));
        this.previous = previousSecret == null ? null : macs(checkSecret("previousSecret", previousSecret));
    }

    /**
     * A signer with a policy's keys, which hands out keyed {@link Mac}s but never the secrets.
     *
     * @throws IllegalArgumentException if no secret is {@link SigningKeys#configured() configured}
     * @throws IllegalStateException if the JDK offers no HmacSHA256
     */
    Signer(SigningKeys keys) {
        if (!keys.configured()) {
            throw new IllegalArgumentException("keys must have a secret");
        }
        this.current = macs(keys::newCurrentMac);
        this.previous = keys.hasPrevious() ? macs(keys::newPreviousMac) : null;
    }

    /** The UTF-8 bytes of a secret given as text; the caller may zero the array once a Signer holds it. */
    static byte[] secretBytes(String secret) {
        if (secret == null) {
            throw new IllegalArgumentException("secret must not be null");
        }
        return secret.getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Checks a secret's length.
     *
     * @param name the parameter name used in the message
     * @return {@code secret}
     * @throws IllegalArgumentException naming {@code name} and the length, never the content
     */
    static byte[] checkSecret(String name, byte[] secret) {
        if (secret == null) {
            throw new IllegalArgumentException(name + " must not be null");
        }
        if (secret.length < MIN_SECRET_BYTES) {
            throw new IllegalArgumentException(
                    name + " must be at least " + MIN_SECRET_BYTES + " bytes, was " + secret.length + " bytes");
        }
        return secret;
    }

    /**
     * The unpadded base64url HMAC-SHA256 of {@code domain + '|' + payload} under the current secret
     * (43 characters).
     *
     * @throws IllegalArgumentException if {@code domain} contains {@code '|'} (a programming error)
     */
    String sign(String domain, String payload) {
        if (domain.indexOf('|') >= 0) {
            throw new IllegalArgumentException("domain must not contain '|', was \"" + domain + "\"");
        }
        return Base64Url.encode(mac(current.get(), domain, payload));
    }

    /**
     * Whether {@code signature} is the signature of {@code domain + '|' + payload} under the current or the
     * previous secret. The comparison takes constant time in the signature bytes. Never throws: null
     * arguments and signatures that are not 43 characters of canonical base64url give false.
     */
    boolean verify(String domain, String payload, String signature) {
        if (domain == null || payload == null || signature == null || domain.indexOf('|') >= 0
                || signature.length() != SIGNATURE_CHARS) {
            return false;
        }
        byte[] presented = Base64Url.decode(signature, 0, SIGNATURE_CHARS);
        if (presented == null || presented.length != SIGNATURE_BYTES) {
            return false;
        }
        if (MessageDigest.isEqual(presented, mac(current.get(), domain, payload))) {
            return true;
        }
        return previous != null && MessageDigest.isEqual(presented, mac(previous.get(), domain, payload));
    }

    private static byte[] mac(Mac mac, String domain, String payload) {
        mac.update(domain.getBytes(StandardCharsets.UTF_8));
        mac.update((byte) '|');
        mac.update(payload.getBytes(StandardCharsets.UTF_8));
        return mac.doFinal(); // also resets the Mac for this thread's next call
    }

    private static ThreadLocal<Mac> macs(byte[] secret) {
        SecretKeySpec key = new SecretKeySpec(secret, ALGORITHM); // copies the bytes
        return macs(() -> newMac(key));
    }

    private static ThreadLocal<Mac> macs(Supplier<Mac> newMac) {
        newMac.get(); // fail at construction, not on the first request
        return ThreadLocal.withInitial(newMac);
    }

    private static Mac newMac(SecretKeySpec key) {
        try {
            Mac mac = Mac.getInstance(ALGORITHM);
            mac.init(key);
            return mac;
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(ALGORITHM + " is not available", e);
        }
    }
}

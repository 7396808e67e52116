package dev.servletqos;

import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.policy.ClassPolicy;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The text format both signed cookies share, its formatter and its strict parser, and the cookie-syntax
 * helpers both cookie codecs use.
 *
 * <pre>
 * v2.&lt;class&gt;.&lt;b64url(id)&gt;.&lt;issuedEpochSecond&gt;.&lt;expiresEpochSecond&gt;.&lt;signature&gt;
 * </pre>
 *
 * <ul>
 *   <li>{@code class}: a service class name, 1 to {@value #MAX_CLASS_LENGTH} ASCII letters, digits,
 *       {@code '-'} or {@code '_'};
 *   <li>{@code id}: a subject or session id, 1 to {@value #MAX_ID_BYTES} bytes of UTF-8, base64url without
 *       padding;
 *   <li>{@code issued}: when the token was made, seconds since the epoch, decimal, non-negative: the verifier
 *       checks the token's age against the max age configured now, so that lowering the max age shortens the
 *       life of tokens already issued;
 *   <li>{@code expires}: seconds since the epoch, decimal, non-negative;
 *   <li>{@code signature}: {@link Signer#sign} of the token kind's domain and everything before the last
 *       {@code '.'}.
 * </ul>
 *
 * <p>Every character is a base64url character or {@code '.'}, all legal in a cookie value (RFC 6265
 * {@code cookie-octet}), so the value needs no quoting or escaping. The longest token is well under
 * {@value #MAX_LENGTH} characters.
 *
 * <p>The parser splits by hand: it runs on every request that carries a cookie, and rejects junk without
 * regular expressions, exceptions or a MAC computation. Stateless; thread-safe.
 */
final class SignedToken {

    /** Values longer than this (in chars) are {@link Status#OVERSIZED} before any parsing. */
    static final int MAX_LENGTH = 512;
    static final int MAX_CLASS_LENGTH = ClassPolicy.MAX_NAME_LENGTH;
    static final int MAX_ID_BYTES = 128;

    private static final String VERSION = "v2";
    private static final int DOTS = 5;
    /** {@code Long.MAX_VALUE} has 19 digits. */
    private static final int MAX_EXPIRES_DIGITS = 19;

    /**
     * A parsed token. {@code serviceClass} and {@code id} are null and {@code issued} and {@code expires} are 0
     * unless the status is {@link Status#VALID}.
     */
    record Parsed(Status status, String serviceClass, String id, long issued, long expires) {
    }

    private static final Parsed[] FAILURES = new Parsed[Status.values().length];

    static {
        for (Status status : Status.values()) {
            FAILURES[status.ordinal()] = new Parsed(status, null, null, 0, 0);
        }
    }

    private SignedToken() {
    }

    /**
     * Formats and signs a token.
     *
     * @param idName the caller's name for the id ({@code "subject"}, {@code "sessionId"}), for messages
     * @param issued when the token is made (now), seconds since the epoch
     * @throws IllegalArgumentException if the class or the id breaks the format, or {@code issued} or
     *     {@code expires} is negative; these come from the application or the engine, never from a request
     */
    static String format(Signer signer, String domain, String serviceClass, String idName, String id, long issued,
            long expires) {
        checkServiceClass(serviceClass);
        byte[] idBytes = idBytes(idName, id);
        if (expires < 0 || issued < 0) {
            throw new IllegalArgumentException("issue time and expiry must not be negative, were " + issued + " and "
                    + expires);
        }
        String payload = VERSION + '.' + serviceClass + '.' + Base64Url.encode(idBytes) + '.' + issued + '.'
                + expires;
        return payload + '.' + signer.sign(domain, payload);
    }

    /**
     * Parses and checks a token, in this order: null is MISSING; more than {@value #MAX_LENGTH} chars is
     * OVERSIZED; anything that breaks the format is MALFORMED; a signature that does not verify under
     * {@code domain} is FORGED; {@code expires <= nowEpochSecond}, or an age of {@code maxAgeSeconds} or more
     * ({@code issued + maxAgeSeconds <= nowEpochSecond}), is EXPIRED; otherwise VALID. The signature is checked
     * before the expiry, so a forged expired token is FORGED. Never throws.
     *
     * @param maxAgeSeconds the longest age a token may have now, whatever expiry it carries: the max age the
     *     configuration gives today, which may be shorter than the one the token was issued under
     */
    static Parsed parse(Signer signer, String domain, String value, long nowEpochSecond, long maxAgeSeconds) {
        if (value == null) {
            return FAILURES[Status.MISSING.ordinal()];
        }
        int length = value.length();
        if (length > MAX_LENGTH) {
            return FAILURES[Status.OVERSIZED.ordinal()];
        }
        int[] dots = new int[DOTS];
        int dotCount = 0;
        for (int i = 0; i < length; i++) {
            char c = value.charAt(i);
            if (c == '.') {
                if (dotCount == dots.length) {
                    return FAILURES[Status.MALFORMED.ordinal()];
                }
                dots[dotCount++] = i;
            } else if (!Base64Url.isAlphabet(c)) {
                return FAILURES[Status.MALFORMED.ordinal()];
            }
        }
        if (dotCount != dots.length || dots[0] != VERSION.length() || !value.startsWith(VERSION)) {
            return FAILURES[Status.MALFORMED.ordinal()];
        }
        // the first scan admitted only base64url characters, which is also the class name alphabet
        // (ClassPolicy.isValidName), so the length is all that is left to check
        int classLength = dots[1] - dots[0] - 1;
        if (classLength < 1 || classLength > MAX_CLASS_LENGTH) {
            return FAILURES[Status.MALFORMED.ordinal()];
        }
        byte[] id = Base64Url.decode(value, dots[1] + 1, dots[2]);
        if (id == null || id.length == 0 || id.length > MAX_ID_BYTES) {
            return FAILURES[Status.MALFORMED.ordinal()];
        }
        long issued = parseSeconds(value, dots[2] + 1, dots[3]);
        long expires = parseSeconds(value, dots[3] + 1, dots[4]);
        if (issued < 0 || expires < 0 || dots[4] == length - 1) {
            return FAILURES[Status.MALFORMED.ordinal()];
        }
        if (!signer.verify(domain, value.substring(0, dots[4]), value.substring(dots[4] + 1))) {
            return FAILURES[Status.FORGED.ordinal()];
        }
        // issued is at most Long.MAX_VALUE and the age compared without adding to it, so nothing overflows
        if (expires <= nowEpochSecond || (nowEpochSecond >= issued && nowEpochSecond - issued >= maxAgeSeconds)) {
            return FAILURES[Status.EXPIRED.ordinal()];
        }
        // only a holder of the secret can get here with bytes that are not UTF-8; refuse rather than
        // hand the engine an id with replacement characters in it
        String idText = strictUtf8(id);
        if (idText == null) {
            return FAILURES[Status.MALFORMED.ordinal()];
        }
        return new Parsed(Status.VALID, value.substring(dots[0] + 1, dots[1]), idText, issued, expires);
    }

    /** @throws IllegalArgumentException naming {@code serviceClass} and the value */
    static void checkServiceClass(String serviceClass) {
        if (!ClassPolicy.isValidName(serviceClass)) {
            throw new IllegalArgumentException("serviceClass must be 1 to " + MAX_CLASS_LENGTH
                    + " ASCII letters, digits, '-' or '_', was " + quote(serviceClass));
        }
    }

    /**
     * Whether {@code name} is a legal cookie name: an RFC 6265 / RFC 7230 {@code token}, one or more visible
     * ASCII characters other than the separators {@code ()<>@,;:\"/[]?={}}.
     */
    static boolean isCookieName(String name) {
        if (name == null || name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c <= ' ' || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }

    /** @throws IllegalArgumentException naming {@code cookieName} and the value */
    static String checkCookieName(String cookieName) {
        if (!isCookieName(cookieName)) {
            throw new IllegalArgumentException("cookieName must be a cookie token (visible ASCII characters, "
                    + "none of ()<>@,;:\\\"/[]?={}), was " + quote(cookieName));
        }
        return cookieName;
    }

    /**
     * A whole {@code Set-Cookie} header value: {@code NAME=VALUE; Max-Age=N; Path=/; HttpOnly; SameSite=Lax}, with
     * {@code Secure} after the path when asked. HttpOnly because no script needs the cookie; Lax so that a
     * returning user following a link from elsewhere is still recognised; {@code Path=/} and no {@code Domain}, so
     * that a {@code __Host-} name is accepted by browsers.
     */
    static String setCookieHeader(String cookieName, String value, long maxAgeSeconds, boolean secure) {
        return cookieName + '=' + value + "; Max-Age=" + maxAgeSeconds + "; Path=/" + (secure ? "; Secure" : "")
                + "; HttpOnly; SameSite=Lax";
    }

    /** Whole seconds of a max age, or -1 if it is null, under 1 s or over {@code maxSeconds}. */
    static long maxAgeSeconds(Duration maxAge, long maxSeconds) {
        if (maxAge == null || maxAge.isNegative()) {
            return -1;
        }
        long seconds = maxAge.getSeconds();
        return seconds >= 1 && seconds <= maxSeconds ? seconds : -1;
    }

    /** For messages: {@code s} in double quotes, control and non-ASCII characters escaped; "null" for null. */
    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < ' ' || c >= 0x7f) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    private static byte[] idBytes(String idName, String id) {
        if (id == null || id.isEmpty()) {
            throw new IllegalArgumentException(idName + " must not be null or empty, was " + quote(id));
        }
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < id.length() && Character.isLowSurrogate(id.charAt(i + 1))) {
                i++;
            } else if (Character.isSurrogate(c)) {
                // getBytes would silently turn it into '?', and the cookie would name someone else
                throw new IllegalArgumentException(idName + " has an unpaired surrogate at index " + i);
            }
        }
        byte[] bytes = id.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_ID_BYTES) {
            throw new IllegalArgumentException(
                    idName + " must be at most " + MAX_ID_BYTES + " bytes of UTF-8, was " + bytes.length + " bytes");
        }
        return bytes;
    }

    /** Digits only, 1 to 19 of them, no overflow; -1 otherwise. */
    private static long parseSeconds(String value, int from, int to) {
        int digits = to - from;
        if (digits < 1 || digits > MAX_EXPIRES_DIGITS) {
            return -1;
        }
        long result = 0;
        for (int i = from; i < to; i++) {
            int d = value.charAt(i) - '0';
            if (d < 0 || d > 9 || result > (Long.MAX_VALUE - d) / 10) {
                return -1;
            }
            result = result * 10 + d;
        }
        return result;
    }

    /** The text of {@code bytes} if they are well-formed UTF-8, else null. */
    private static String strictUtf8(byte[] bytes) {
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder(); // reports malformed input by default
        CharBuffer out = CharBuffer.allocate(bytes.length); // UTF-8 never yields more chars than bytes
        CoderResult result = decoder.decode(ByteBuffer.wrap(bytes), out, true);
        if (result.isError() || decoder.flush(out).isError()) {
            return null;
        }
        return out.flip().toString();
    }
}

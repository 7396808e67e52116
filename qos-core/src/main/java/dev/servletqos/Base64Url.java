package dev.servletqos;

import java.util.Base64;

/**
 * Base64url (RFC 4648 section 5) without padding, with a strict decoder for text that arrives in cookies.
 *
 * <p>The decoder returns {@code null} instead of throwing, because bad input from a request is an
 * ordinary outcome, not an exceptional one. It accepts only the canonical encoding: no padding, no
 * whitespace, and the unused low bits of the last character must be zero. {@link java.util.Base64}
 * ignores those bits, so there it would accept several spellings of the same bytes, and a test that
 * flips the last character of a signature could pass verification.
 *
 * <p>Stateless; thread-safe.
 */
final class Base64Url {

    private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();

    private Base64Url() {
    }

    /** The unpadded base64url text of {@code bytes}. */
    static String encode(byte[] bytes) {
        return ENCODER.encodeToString(bytes);
    }

    /** Whether {@code c} is one of the 64 characters of the base64url alphabet ({@code A-Z a-z 0-9 - _}). */
    static boolean isAlphabet(char c) {
        return value(c) >= 0;
    }

    /**
     * Decodes {@code text[from, to)} as canonical unpadded base64url.
     *
     * @return the bytes (empty for an empty range), or {@code null} if the range is not canonical unpadded
     *     base64url; never throws for any range inside {@code text}
     */
    static byte[] decode(CharSequence text, int from, int to) {
        int length = to - from;
        if (length < 0 || length % 4 == 1) {
            return null; // one leftover character carries only 6 bits: not a whole byte
        }
        byte[] out = new byte[(int) ((long) length * 3 / 4)];
        int accumulator = 0;
        int bits = 0;
        int o = 0;
        for (int i = from; i < to; i++) {
            int v = value(text.charAt(i));
            if (v < 0) {
                return null;
            }
            accumulator = (accumulator << 6) | v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                out[o++] = (byte) (accumulator >>> bits);
                accumulator &= (1 << bits) - 1;
            }
        }
        return accumulator == 0 ? out : null;
    }

    private static int value(char c) {
        if (c >= 'A' && c <= 'Z') {
            return c - 'A';
        }
        if (c >= 'a' && c <= 'z') {
            return c - 'a' + 26;
        }
        if (c >= '0' && c <= '9') {
            return c - '0' + 52;
        }
        if (c == '-') {
            return 62;
        }
        if (c == '_') {
            return 63;
        }
        return -1;
    }
}

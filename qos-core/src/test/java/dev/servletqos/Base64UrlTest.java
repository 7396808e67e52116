package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Base64UrlTest {

    @Test
    void roundTripsAndAgreesWithTheJdkForEveryLength() {
        Random random = new Random(42);
        for (int length = 0; length <= 64; length++) {
            byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            String text = Base64Url.encode(bytes);
            assertEquals(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), text);
            assertArrayEquals(bytes, Base64Url.decode(text, 0, text.length()), "length " + length);
        }
    }

    @Test
    void decodesARangeInsideLongerText() {
        assertArrayEquals("hi".getBytes(java.nio.charset.StandardCharsets.US_ASCII),
                Base64Url.decode("xx.aGk.yy", 3, 6));
    }

    @Test
    void rejectsEverythingButCanonicalUnpaddedBase64url() {
        assertNull(Base64Url.decode("a", 0, 1), "one leftover character");
        assertNull(Base64Url.decode("abcde", 0, 5), "length 1 mod 4");
        assertNull(Base64Url.decode("aGk=", 0, 4), "padding");
        assertNull(Base64Url.decode("aG+k", 0, 4), "standard alphabet '+'");
        assertNull(Base64Url.decode("aG/k", 0, 4), "standard alphabet '/'");
        assertNull(Base64Url.decode("aG k", 0, 4), "space");
        assertNull(Base64Url.decode("a\u00e9bc", 0, 4), "non-ASCII");
        // "AA" is the canonical text of one zero byte; "AB" sets unused low bits, which the JDK accepts
        assertArrayEquals(new byte[] {0}, Base64.getUrlDecoder().decode("AB"));
        assertNull(Base64Url.decode("AB", 0, 2), "non-zero unused bits, 2 chars");
        assertNull(Base64Url.decode("AAB", 0, 3), "non-zero unused bits, 3 chars");
        assertArrayEquals(new byte[] {0}, Base64Url.decode("AA", 0, 2));
        assertNull(Base64Url.decode("abc", 2, 1), "reversed range");
    }

    @Test
    void alphabetIsExactlyTheUrlSafeOne() {
        int count = 0;
        for (char c = 0; c < 0x3000; c++) {
            if (Base64Url.isAlphabet(c)) {
                count++;
                assertTrue(Character.isLetterOrDigit(c) && c < 0x80 || c == '-' || c == '_', "char " + (int) c);
            }
        }
        assertEquals(64, count);
        assertFalse(Base64Url.isAlphabet('.'));
    }
}

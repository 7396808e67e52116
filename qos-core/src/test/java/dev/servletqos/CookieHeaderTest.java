package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The adapter's own reading of a Cookie header: the cookie asked for, as a browser would have sent it. */
class CookieHeaderTest {

    /** The cookie as read from the header's text, checked against the reading of its bytes within a larger buffer. */
    private static String value(String header, String name) {
        String fromText = CookieHeader.value(header, name);
        byte[] h = header.getBytes(StandardCharsets.ISO_8859_1);
        byte[] buffer = new byte[h.length + 10];
        Arrays.fill(buffer, (byte) ';');
        System.arraycopy(h, 0, buffer, 4, h.length);
        assertEquals(fromText, CookieHeader.value(buffer, 4, 4 + h.length, name), "bytes of [" + header + "]");
        return fromText;
    }

    @Test
    void findsTheCookieAmongOthers() {
        assertEquals("abc", value("QOSSESSION=abc", "QOSSESSION"));
        assertEquals("abc", value("a=1; QOSSESSION=abc; b=2", "QOSSESSION"));
        assertEquals("abc", value("a=1;QOSSESSION=abc", "QOSSESSION"));
        assertEquals("", value("QOSSESSION=; b=2", "QOSSESSION"));
    }

    @Test
    void theFirstOfTwoWins() {
        assertEquals("one", value("QOSSESSION=one; QOSSESSION=two", "QOSSESSION"));
    }

    @Test
    void aCookieWhoseNameOnlyStartsOrEndsTheSameIsAnother() {
        assertNull(value("QOSSESSIONX=1; XQOSSESSION=2", "QOSSESSION"));
        assertEquals("3", value("QOSSESSIONX=1; XQOSSESSION=2; QOSSESSION=3", "QOSSESSION"));
    }

    @Test
    void spacesAndQuotesAreIgnoredAsBrowsersIgnoreThem() {
        assertEquals("abc", value("  QOSSESSION = abc ;b=2", "QOSSESSION"));
        assertEquals("abc", value("QOSSESSION=\"abc\"", "QOSSESSION"));
        assertEquals("\"", value("QOSSESSION=\"", "QOSSESSION"));
    }

    @Test
    void aMalformedHeaderFindsNothingAndNeverThrows() {
        assertNull(value("", "QOSSESSION"));
        assertNull(value(";;;", "QOSSESSION"));
        assertNull(value("QOSSESSION", "QOSSESSION"));
        assertNull(value("QOSSESSION; other=1", "QOSSESSION"));
        assertEquals("\u00e9t\u00e9", value("QOSSESSION=\u00e9t\u00e9", "QOSSESSION"));
    }
}

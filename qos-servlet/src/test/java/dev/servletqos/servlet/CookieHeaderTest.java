package dev.servletqos.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The adapter's own reading of a Cookie header: the cookie asked for, as a browser would have sent it. */
class CookieHeaderTest {

    @Test
    void findsTheCookieAmongOthers() {
        assertEquals("abc", CookieHeader.value("QOSSESSION=abc", "QOSSESSION"));
        assertEquals("abc", CookieHeader.value("a=1; QOSSESSION=abc; b=2", "QOSSESSION"));
        assertEquals("abc", CookieHeader.value("a=1;QOSSESSION=abc", "QOSSESSION"));
        assertEquals("", CookieHeader.value("QOSSESSION=; b=2", "QOSSESSION"));
    }

    @Test
    void theFirstOfTwoWins() {
        assertEquals("one", CookieHeader.value("QOSSESSION=one; QOSSESSION=two", "QOSSESSION"));
    }

    @Test
    void aCookieWhoseNameOnlyStartsOrEndsTheSameIsAnother() {
        assertNull(CookieHeader.value("QOSSESSIONX=1; XQOSSESSION=2", "QOSSESSION"));
        assertEquals("3", CookieHeader.value("QOSSESSIONX=1; XQOSSESSION=2; QOSSESSION=3", "QOSSESSION"));
    }

    @Test
    void spacesAndQuotesAreIgnoredAsBrowsersIgnoreThem() {
        assertEquals("abc", CookieHeader.value("  QOSSESSION = abc ;b=2", "QOSSESSION"));
        assertEquals("abc", CookieHeader.value("QOSSESSION=\"abc\"", "QOSSESSION"));
        assertEquals("\"", CookieHeader.value("QOSSESSION=\"", "QOSSESSION"));
    }

    @Test
    void aMalformedHeaderFindsNothingAndNeverThrows() {
        assertNull(CookieHeader.value("", "QOSSESSION"));
        assertNull(CookieHeader.value(";;;", "QOSSESSION"));
        assertNull(CookieHeader.value("QOSSESSION", "QOSSESSION"));
        assertNull(CookieHeader.value("QOSSESSION; other=1", "QOSSESSION"));
        assertEquals("\u00e9t\u00e9", CookieHeader.value("QOSSESSION=\u00e9t\u00e9", "QOSSESSION"));
    }
}

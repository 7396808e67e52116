package dev.servletqos;

import static dev.servletqos.TierCookies.Verified.Status.EXPIRED;
import static dev.servletqos.TierCookies.Verified.Status.FORGED;
import static dev.servletqos.TierCookies.Verified.Status.MALFORMED;
import static dev.servletqos.TierCookies.Verified.Status.MISSING;
import static dev.servletqos.TierCookies.Verified.Status.OVERSIZED;
import static dev.servletqos.TierCookies.Verified.Status.VALID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.TierCookies.Verified;
import dev.servletqos.policy.ClassPolicy;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class TierCookiesTest {

    private static final String SECRET = "tier-secret-0123456789abcdef";
    private static final String OLD_SECRET = "old-tier-secret-0123456789";
    private static final long T0 = 1_700_000_000L;
    private static final Duration MONTH = Duration.ofDays(30);

    private final CookieTestClock clock = new CookieTestClock(T0);
    private final TierCookies tiers = TierCookies.create("qos_tier", SECRET, null, MONTH, clock);
    /** Signs arbitrary payloads under the same secret, to build tokens that are signed but broken. */
    private final Signer signer = new Signer(Signer.secretBytes(SECRET), null);

    private String signed(String payload) {
        return payload + "." + signer.sign(TierCookies.DOMAIN, payload);
    }

    private static String b64(String s) {
        return Base64Url.encode(s.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void validCookieRoundTrips() {
        String value = tiers.issue("premium", "alice@example.com");
        assertTrue(value.startsWith("v2.premium." + b64("alice@example.com") + "." + T0 + "." + (T0 + MONTH.getSeconds())
                + "."),
                value);
        assertEquals(new Verified(VALID, "premium", "alice@example.com"), tiers.verify(value));
        assertEquals("qos_tier", tiers.cookieName());
    }

    @Test
    void unicodeAndLongestSubjectsRoundTrip() {
        String unicode = "Zo\u00eb \ud83c\udf89 \u65e5\u672c";
        assertEquals(new Verified(VALID, "basic", unicode), tiers.verify(tiers.issue("basic", unicode)));
        String longest = "x".repeat(SignedToken.MAX_ID_BYTES);
        String longestClass = "C".repeat(SignedToken.MAX_CLASS_LENGTH);
        String value = tiers.issue(longestClass, longest);
        assertTrue(value.length() < SignedToken.MAX_LENGTH, "the longest token fits: " + value.length());
        assertEquals(new Verified(VALID, longestClass, longest), tiers.verify(value));
        assertEquals(VALID, tiers.verify(tiers.issue("a-b_C9", "s")).status());
    }

    @Test
    void classNameAlphabetIsTheTokenAlphabet() {
        // SignedToken.parse checks only the class segment's length, relying on this
        for (char c = 0; c < 256; c++) {
            assertEquals(Base64Url.isAlphabet(c), ClassPolicy.isValidName(String.valueOf(c)), "char " + (int) c);
        }
    }

    @Test
    void missingAndOversized() {
        assertEquals(new Verified(MISSING, null, null), tiers.verify(null));
        assertEquals(new Verified(OVERSIZED, null, null), tiers.verify("x".repeat(600)));
        // oversize is decided before parsing: junk that would be malformed is still OVERSIZED
        assertEquals(OVERSIZED, tiers.verify("\u00e9.".repeat(300)).status());
        assertEquals(OVERSIZED, tiers.verify("x".repeat(SignedToken.MAX_LENGTH + 1)).status());
        assertEquals(MALFORMED, tiers.verify("x".repeat(SignedToken.MAX_LENGTH)).status());
        // a genuine token padded past the limit is refused too
        String value = tiers.issue("premium", "alice");
        String padded = signed("v2.premium." + b64("alice") + "." + T0 + "." + "0".repeat(520 - 70) + (T0 + 100));
        assertTrue(padded.length() > SignedToken.MAX_LENGTH);
        assertEquals(OVERSIZED, tiers.verify(padded).status());
        assertEquals(VALID, tiers.verify(value).status());
    }

    @Test
    void alteredPayloadWithTheOldSignatureIsForged() {
        String value = tiers.issue("basic", "alice");
        String signature = value.substring(value.lastIndexOf('.') + 1);
        long expires = T0 + MONTH.getSeconds();

        String upgraded = "v2.premium." + b64("alice") + "." + T0 + "." + expires + "." + signature;
        assertEquals(new Verified(FORGED, null, null), tiers.verify(upgraded));
        assertEquals(FORGED, tiers.verify("v2.basic." + b64("mallory") + "." + T0 + "." + expires + "." + signature)
                .status());
        assertEquals(FORGED, tiers.verify("v2.basic." + b64("alice") + "." + T0 + "." + (expires + 1) + "."
                + signature).status());
        assertEquals(FORGED, tiers.verify("v2.basic." + b64("alice") + "." + (T0 + 1) + "." + expires + "."
                + signature).status(), "issued later, to live longer");
        // the same token signed properly is valid, so it is the signature that refuses it above
        assertEquals(VALID, tiers.verify(signed("v2.premium." + b64("alice") + "." + T0 + "." + expires)).status());
    }

    @Test
    void alteringAnySingleCharacterInvalidatesTheCookie() {
        String value = tiers.issue("premium", "alice");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            String altered = value.substring(0, i) + (c == 'A' ? 'B' : 'A') + value.substring(i + 1);
            assertNotEquals(VALID, tiers.verify(altered).status(), "altered at " + i + ": " + altered);
        }
        int lastDot = value.lastIndexOf('.');
        String signature = value.substring(lastDot + 1);
        String flipped = value.substring(0, lastDot + 1) + (signature.charAt(0) == 'A' ? 'B' : 'A')
                + signature.substring(1);
        assertEquals(FORGED, tiers.verify(flipped).status());
    }

    @Test
    void cookieSignedUnderAnotherSecretIsForged() {
        TierCookies other = TierCookies.create("qos_tier", "some-other-secret-0123456789", null, MONTH, clock);
        assertEquals(FORGED, tiers.verify(other.issue("premium", "alice")).status());
    }

    @Test
    void expiresWhenTheClockPassesTheMaxAge() {
        String value = tiers.issue("premium", "alice", Duration.ofHours(1));
        clock.advance(Duration.ofSeconds(3599));
        assertEquals(VALID, tiers.verify(value).status());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(new Verified(EXPIRED, null, null), tiers.verify(value), "expiry <= now is expired");
        clock.advance(Duration.ofDays(365));
        assertEquals(EXPIRED, tiers.verify(value).status());

        String defaultAge = tiers.issue("premium", "alice");
        clock.advance(MONTH.minusSeconds(1));
        assertEquals(VALID, tiers.verify(defaultAge).status());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(EXPIRED, tiers.verify(defaultAge).status());
    }

    @Test
    void aCookieAsOldAsTheMaxAgeIsExpiredWhateverExpiryItCarries() {
        // signed by us with a year's expiry, by a codec whose max age was longer than this one's month
        String yearLong = signed("v2.premium." + b64("alice") + "." + T0 + "." + (T0 + Duration.ofDays(365).getSeconds()));
        clock.advance(MONTH.minusSeconds(1));
        assertEquals(VALID, tiers.verify(yearLong).status());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(EXPIRED, tiers.verify(yearLong).status(), "a month old: as old as this codec's max age");
    }

    @Test
    void aLongerMaxAgeThanTheDefaultIsShortenedToIt() {
        String value = tiers.issue("premium", "alice", Duration.ofDays(90));
        assertTrue(value.contains("." + T0 + "." + (T0 + MONTH.getSeconds()) + "."), value);
        assertTrue(tiers.setCookieHeader("premium", "alice", Duration.ofDays(90)).contains("; Max-Age=2592000;"));
    }

    @Test
    void secureCookies() {
        assertFalse(tiers.secure());
        TierCookies secure = tiers.withSecure(true);
        assertTrue(secure.secure());
        String header = secure.setCookieHeader("premium", "alice");
        assertTrue(header.endsWith("; Max-Age=2592000; Path=/; Secure; HttpOnly; SameSite=Lax"), header);
        assertEquals(VALID, tiers.verify(header.substring("qos_tier=".length(), header.indexOf(';'))).status(),
                "the same keys");
        TierCookies host = TierCookies.create("__Host-tier", SECRET, null, MONTH, clock);
        assertTrue(host.secure(), "a __Host- name is Secure from the start");
        assertTrue(TierCookies.create("__secure-tier", SECRET, null, MONTH, clock).secure(), "the prefix ignores case");
        assertMessage("secure", "__Host-tier", () -> host.withSecure(false));
    }

    @Test
    void forgedExpiredCookieIsForgedNotExpired() {
        String value = tiers.issue("basic", "alice", Duration.ofMinutes(1));
        String signature = value.substring(value.lastIndexOf('.') + 1);
        String forged = "v2.premium." + b64("alice") + "." + T0 + "." + (T0 + 60) + "." + signature;
        clock.advance(Duration.ofDays(1));
        assertEquals(EXPIRED, tiers.verify(value).status());
        assertEquals(FORGED, tiers.verify(forged).status());
    }

    @ParameterizedTest
    @ValueSource(strings = {
        "", ".", ".....", "v2", "v2.premium", "v2.premium.YWxpY2U", "v2.premium.YWxpY2U.1700000000",
        "v2.premium.YWxpY2U.1700000000.1800000000",
        "v2.premium.YWxpY2U.1700000000.1800000000.", // empty signature
        "premium.YWxpY2U.1700000000.1800000000.c2ln", // no version
        "v1.premium.YWxpY2U.1800000000.c2ln", // the format before the issue time
        "v2.premium.YWxpY2U.1700000000.1800000000.c2ln.extra", "v2.premium.YWxpY2U.1700000000.1800000000.c2ln.",
        ".v2.premium.YWxpY2U.1700000000.1800000000.c2ln", "v2..premium.YWxpY2U.1700000000.1800000000",
        "v2.pre mium.YWxpY2U.1700000000.1800000000.c2ln", "v2.premium.YWxpY2U=.1700000000.1800000000.c2ln",
        "v2.premium.YWxpY2U.1700000000.1800000000.c2ln=", "v2.b\u00e4sic.YWxpY2U.1700000000.1800000000.c2ln",
        "v2.premium.YWxpY2U.1700000000.18000000\u0660\u0661.c2ln", "\ud83d\udca5", "\u0000", " ",
        "v2.premium.YWxpY2U.1700000000.+1.c2ln", "v2.premium.YWxpY2U.+1.1800000000.c2ln",
        "\"v2.premium.YWxpY2U.1700000000.1800000000.c2ln\"", "v2;premium;YWxpY2U;1700000000;1800000000;c2ln",
    })
    void structurallyBrokenValuesAreMalformed(String value) {
        assertEquals(new Verified(MALFORMED, null, null), tiers.verify(value));
    }

    /**
     * Tokens that are correctly signed but break one field rule: if the parser skipped that rule they would
     * verify, so each case shows the rule is enforced.
     */
    @Test
    void signedTokensThatBreakAFieldRuleAreMalformed() {
        String id = b64("alice");
        long exp = T0 + 3600;
        String at = "." + T0 + ".";
        Executable[] cases = {
            () -> assertMalformed(signed("v1.premium." + id + "." + exp), "version v1, without the issue time"),
            () -> assertMalformed(signed("v1.premium." + id + at + exp), "version v1"),
            () -> assertMalformed(signed("V2.premium." + id + at + exp), "version V2"),
            () -> assertMalformed(signed("v20.premium." + id + at + exp), "version v20"),
            () -> assertMalformed(signed("v2.." + id + at + exp), "empty class"),
            () -> assertMalformed(signed("v2." + "c".repeat(33) + "." + id + at + exp), "33-char class"),
            () -> assertMalformed(signed("v2.premium." + at + exp), "empty id"),
            () -> assertMalformed(signed("v2.premium.YWxpY" + at + exp), "id of length 1 mod 4"),
            () -> assertMalformed(signed("v2.premium.YWxpY2V" + at + exp), "id with non-zero unused bits"),
            () -> assertMalformed(signed("v2.premium." + b64("x".repeat(129)) + at + exp), "129-byte id"),
            () -> assertMalformed(signed("v2.premium." + id + ".." + exp), "empty issue time"),
            () -> assertMalformed(signed("v2.premium." + id + ".17000x0000." + exp), "non-numeric issue time"),
            () -> assertMalformed(signed("v2.premium." + id + ".-" + T0 + "." + exp), "negative issue time"),
            () -> assertMalformed(signed("v2.premium." + id + at), "empty expiry"),
            () -> assertMalformed(signed("v2.premium." + id + at + "17000x0000"), "non-numeric expiry"),
            () -> assertMalformed(signed("v2.premium." + id + at + "-" + exp), "negative expiry"),
            () -> assertMalformed(signed("v2.premium." + id + at + "9223372036854775808"), "expiry overflow"),
            () -> assertMalformed(signed("v2.premium." + id + at + "99999999999999999999"), "20-digit expiry"),
            () -> assertMalformed(
                    signed("v2.premium." + Base64Url.encode(new byte[] {(byte) 0xc3, 0x28}) + at + exp),
                    "id not UTF-8"),
        };
        org.junit.jupiter.api.Assertions.assertAll(cases);
        // the largest expiry parses: only overflow is refused
        assertEquals(VALID, tiers.verify(signed("v2.premium." + id + at + "9223372036854775807")).status());
        assertEquals(VALID, tiers.verify(signed("v2.premium." + id + at + exp)).status());
    }

    private void assertMalformed(String value, String what) {
        assertEquals(MALFORMED, tiers.verify(value).status(), what + ": " + value);
    }

    @Test
    void rotatedKeyIsAcceptedOnlyWhileConfiguredAsPrevious() {
        TierCookies before = TierCookies.create("qos_tier", OLD_SECRET, null, MONTH, clock);
        String issuedBefore = before.issue("premium", "alice");

        TierCookies rotating = TierCookies.create("qos_tier", SECRET, OLD_SECRET, MONTH, clock);
        assertEquals(new Verified(VALID, "premium", "alice"), rotating.verify(issuedBefore));
        TierCookies after = TierCookies.create("qos_tier", SECRET, null, MONTH, clock);
        assertEquals(FORGED, after.verify(issuedBefore).status());

        // new cookies are signed with the new secret only
        String issuedRotating = rotating.issue("premium", "bob");
        assertEquals(VALID, after.verify(issuedRotating).status());
        assertEquals(FORGED, before.verify(issuedRotating).status());
    }

    @Test
    void tierAndSessionTokensAreNotInterchangeable() {
        SessionCookies sessions = new SessionCookies("qos_session", signer, Duration.ofHours(1), clock);
        String tierValue = tiers.issue("premium", "alice");
        String sessionValue = sessions.issue("premium", "alice", T0 + 600);
        // same secret, same format, so only the domain tells them apart
        assertEquals(VALID, tiers.verify(tierValue).status());
        assertEquals(VALID, sessions.verify(sessionValue).status());
        assertEquals(FORGED, sessions.verify(tierValue).status());
        assertEquals(FORGED, tiers.verify(sessionValue).status());
    }

    @Test
    void setCookieHeaderFormat() {
        assertEquals("qos_tier=" + tiers.issue("premium", "alice") + "; Max-Age=2592000; Path=/; HttpOnly; SameSite=Lax",
                tiers.setCookieHeader("premium", "alice"));
        assertEquals("qos_tier=" + tiers.issue("basic", "bob", Duration.ofHours(2))
                        + "; Max-Age=7200; Path=/; HttpOnly; SameSite=Lax",
                tiers.setCookieHeader("basic", "bob", Duration.ofHours(2)));
        assertEquals("qos_tier=" + tiers.issue("basic", "bob", Duration.ofSeconds(1))
                        + "; Max-Age=1; Path=/; HttpOnly; SameSite=Lax",
                tiers.setCookieHeader("basic", "bob", Duration.ofMillis(1999)), "whole seconds");
        String header = tiers.setCookieHeader("premium", "alice");
        String value = header.substring("qos_tier=".length(), header.indexOf(';'));
        assertEquals(VALID, tiers.verify(value).status());
    }

    @Test
    void createValidationNamesTheParameterAndNeverTheSecret() {
        assertMessage("cookieName", "\"a b\"", () -> TierCookies.create("a b", SECRET, null, MONTH, clock));
        assertMessage("cookieName", "\"a=b\"", () -> TierCookies.create("a=b", SECRET, null, MONTH, clock));
        assertMessage("cookieName", "\"tier;\"", () -> TierCookies.create("tier;", SECRET, null, MONTH, clock));
        assertMessage("cookieName", "\"\\u00e4\"", () -> TierCookies.create("\u00e4", SECRET, null, MONTH, clock));
        assertMessage("cookieName", "\"\\u000a\"", () -> TierCookies.create("\n", SECRET, null, MONTH, clock));
        assertMessage("cookieName", "\"\"", () -> TierCookies.create("", SECRET, null, MONTH, clock));
        assertMessage("cookieName", "null", () -> TierCookies.create(null, SECRET, null, MONTH, clock));

        String shortSecret = "too-short-secret"; // 15 characters
        IllegalArgumentException e = assertMessage("secret", "15 bytes",
                () -> TierCookies.create("qos_tier", shortSecret.substring(1), null, MONTH, clock));
        assertFalse(e.getMessage().contains(shortSecret.substring(1)), e.getMessage());
        assertFalse(e.getMessage().contains("previousSecret"), e.getMessage());
        assertMessage("secret", "null", () -> TierCookies.create("qos_tier", null, null, MONTH, clock));
        IllegalArgumentException p = assertMessage("previousSecret", "3 bytes",
                () -> TierCookies.create("qos_tier", SECRET, "abc", MONTH, clock));
        assertFalse(p.getMessage().contains("abc"), p.getMessage());

        assertMessage("defaultMaxAge", "PT0S", () -> TierCookies.create("qos_tier", SECRET, null, Duration.ZERO, clock));
        assertMessage("defaultMaxAge", "PT-1S",
                () -> TierCookies.create("qos_tier", SECRET, null, Duration.ofSeconds(-1), clock));
        assertMessage("defaultMaxAge", "PT0.5S",
                () -> TierCookies.create("qos_tier", SECRET, null, Duration.ofMillis(500), clock));
        assertMessage("defaultMaxAge", "PT9624H",
                () -> TierCookies.create("qos_tier", SECRET, null, Duration.ofDays(401), clock));
        assertMessage("defaultMaxAge", "null", () -> TierCookies.create("qos_tier", SECRET, null, null, clock));
        assertMessage("clock", "null", () -> TierCookies.create("qos_tier", SECRET, null, MONTH, null));

        // the limits themselves are accepted
        TierCookies.create("__Host-tier.v1!#$%&'*+^`|~", "0123456789abcdef", "0123456789abcdef",
                Duration.ofDays(400), clock);
        TierCookies.create("t", SECRET, null, Duration.ofSeconds(1), clock);
    }

    @Test
    void issueValidationNamesTheArgument() {
        assertMessage("serviceClass", "\"pre mium\"", () -> tiers.issue("pre mium", "alice"));
        assertMessage("serviceClass", "\"pre.mium\"", () -> tiers.issue("pre.mium", "alice"));
        assertMessage("serviceClass", "\"\"", () -> tiers.issue("", "alice"));
        assertMessage("serviceClass", "null", () -> tiers.issue(null, "alice"));
        assertMessage("serviceClass", "c".repeat(33), () -> tiers.issue("c".repeat(33), "alice"));
        assertMessage("subject", "\"\"", () -> tiers.issue("basic", ""));
        assertMessage("subject", "null", () -> tiers.issue("basic", null));
        assertMessage("subject", "129 bytes", () -> tiers.issue("basic", "x".repeat(129)));
        assertMessage("subject", "130 bytes", () -> tiers.issue("basic", "\u00e9".repeat(65)));
        assertMessage("subject", "unpaired surrogate at index 1", () -> tiers.issue("basic", "a\ud83c"));
        assertMessage("subject", "unpaired surrogate at index 0", () -> tiers.issue("basic", "\udf89a"));
        assertMessage("maxAge", "PT0S", () -> tiers.issue("basic", "alice", Duration.ZERO));
        assertMessage("maxAge", "PT0S", () -> tiers.setCookieHeader("basic", "alice", Duration.ZERO));
    }

    private static IllegalArgumentException assertMessage(String parameter, String value, Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().startsWith(parameter + " "), e.getMessage());
        assertTrue(e.getMessage().contains(value), e.getMessage());
        return e;
    }

    @Test
    void failuresCarryNoClassOrSubject() {
        Verified forged = tiers.verify("v2.premium." + b64("alice") + "." + T0 + "." + (T0 + 10) + "."
                + "A".repeat(43));
        assertEquals(FORGED, forged.status());
        assertNull(forged.serviceClass());
        assertNull(forged.subject());
    }
}

package dev.servletqos;

import static dev.servletqos.TierCookies.Verified.Status.EXPIRED;
import static dev.servletqos.TierCookies.Verified.Status.FORGED;
import static dev.servletqos.TierCookies.Verified.Status.MALFORMED;
import static dev.servletqos.TierCookies.Verified.Status.MISSING;
import static dev.servletqos.TierCookies.Verified.Status.OVERSIZED;
import static dev.servletqos.TierCookies.Verified.Status.VALID;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SessionCookiesTest {

    private static final byte[] SECRET = Signer.secretBytes("session-secret-0123456789");
    private static final byte[] OLD_SECRET = Signer.secretBytes("old-session-secret-0123456789");
    private static final long T0 = 1_700_000_000L;
    private static final Duration HOUR = Duration.ofHours(1);

    private final CookieTestClock clock = new CookieTestClock(T0);
    private final Signer signer = new Signer(SECRET, null);
    private final SessionCookies sessions = new SessionCookies("qos_session", signer, HOUR, clock);

    @Test
    void validCookieRoundTrips() {
        String id = SessionCookies.newSessionId();
        String value = sessions.issue("premium", id, T0 + 600);
        assertEquals(new SessionCookies.Verified(VALID, "premium", id, T0 + 600), sessions.verify(value));
        assertEquals("qos_session", sessions.cookieName());
    }

    @Test
    void missingMalformedOversized() {
        assertEquals(new SessionCookies.Verified(MISSING, null, null, 0), sessions.verify(null));
        assertEquals(new SessionCookies.Verified(MALFORMED, null, null, 0), sessions.verify(""));
        assertEquals(MALFORMED, sessions.verify("v2.premium.c2Vzcw").status());
        assertEquals(MALFORMED, sessions.verify("v1.premium.c2Vzcw.1700000600.c2ln").status());
        assertEquals(MALFORMED, sessions.verify("v2.premium.c2Vzcw.1700000000.soon.c2ln").status());
        assertEquals(MALFORMED, sessions.verify("v2.premium.c2Vzcw.1700000000.1700000600.c2ln.c2ln").status());
        assertEquals(MALFORMED, sessions.verify("v2.pr\u00e9mium.c2Vzcw.1700000000.1700000600.c2ln").status());
        assertEquals(new SessionCookies.Verified(OVERSIZED, null, null, 0), sessions.verify("s".repeat(600)));
    }

    @Test
    void forgedWhenAlteredOrSignedElsewhere() {
        String value = sessions.issue("basic", "sess-1", T0 + 600);
        String signature = value.substring(value.lastIndexOf('.') + 1);
        String id = Base64Url.encode("sess-1".getBytes(StandardCharsets.UTF_8));
        assertEquals(FORGED, sessions.verify("v2.premium." + id + "." + T0 + "." + (T0 + 600) + "." + signature)
                .status());
        assertEquals(FORGED, sessions.verify("v2.basic." + id + "." + T0 + "." + (T0 + 86_400) + "." + signature)
                .status(),
                "admission extended");
        SessionCookies other = new SessionCookies("qos_session", new Signer(OLD_SECRET, null), HOUR, clock);
        assertEquals(FORGED, sessions.verify(other.issue("basic", "sess-1", T0 + 600)).status());
        assertEquals(VALID, sessions.verify(value).status());
    }

    @Test
    void expiresAtAdmittedUntil() {
        String value = sessions.issue("premium", "sess-1", T0 + 600);
        clock.advance(Duration.ofSeconds(599));
        assertEquals(VALID, sessions.verify(value).status());
        clock.advance(Duration.ofSeconds(1));
        assertEquals(new SessionCookies.Verified(EXPIRED, null, null, 0), sessions.verify(value));
        assertEquals(EXPIRED, sessions.verify(sessions.issue("premium", "sess-2", clock.epochSecond())).status());
        assertEquals(EXPIRED, sessions.verify(sessions.issue("premium", "sess-3", -5)).status());
    }

    @Test
    void admissionIsCappedAtMaxAge() {
        String value = sessions.issue("premium", "sess-1", T0 + 86_400);
        assertEquals(T0 + 3600, sessions.verify(value).admittedUntil());
        clock.advance(HOUR);
        assertEquals(EXPIRED, sessions.verify(value).status());
    }

    @Test
    void rotatedKeyIsAcceptedOnlyWhileConfiguredAsPrevious() {
        String underOld = new SessionCookies("qos_session", new Signer(OLD_SECRET, null), HOUR, clock)
                .issue("premium", "sess-1", T0 + 600);
        SessionCookies rotating = new SessionCookies("qos_session", new Signer(SECRET, OLD_SECRET), HOUR, clock);
        assertEquals(new SessionCookies.Verified(VALID, "premium", "sess-1", T0 + 600), rotating.verify(underOld));
        assertEquals(FORGED, sessions.verify(underOld).status());
    }

    @Test
    void tierTokenIsNotASessionToken() {
        TierCookies tiers = TierCookies.create("qos_tier", "session-secret-0123456789", null, HOUR, clock);
        assertEquals(FORGED, sessions.verify(tiers.issue("premium", "sess-1")).status());
        assertEquals(FORGED, tiers.verify(sessions.issue("premium", "sess-1", T0 + 600)).status());
    }

    @Test
    void setCookieHeaderMaxAgeIsTheRemainingAdmission() {
        String value = sessions.issue("premium", "sess-1", T0 + 600);
        assertEquals("qos_session=" + value + "; Max-Age=600; Path=/; HttpOnly; SameSite=Lax",
                sessions.setCookieHeader(value, T0 + 600));
        clock.advance(Duration.ofSeconds(100));
        assertEquals("qos_session=" + value + "; Max-Age=500; Path=/; HttpOnly; SameSite=Lax",
                sessions.setCookieHeader(value, T0 + 600));
        clock.advance(Duration.ofSeconds(1000));
        assertEquals("qos_session=" + value + "; Max-Age=0; Path=/; HttpOnly; SameSite=Lax",
                sessions.setCookieHeader(value, T0 + 600), "never negative");
        assertTrue(sessions.setCookieHeader(value, clock.epochSecond() + 86_400).contains("; Max-Age=3600;"),
                "capped at maxAge");
        assertThrows(IllegalArgumentException.class, () -> sessions.setCookieHeader(value + "\r\nX: y", T0));
        assertThrows(IllegalArgumentException.class, () -> sessions.setCookieHeader(null, T0));
    }

    @Test
    void newSessionIdsAre128RandomBits() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            String id = SessionCookies.newSessionId();
            assertEquals(22, id.length());
            byte[] bytes = Base64Url.decode(id, 0, id.length());
            assertNotNull(bytes, id);
            assertEquals(16, bytes.length);
            assertTrue(seen.add(id), "duplicate " + id);
        }
        assertNotEquals(SessionCookies.newSessionId(), SessionCookies.newSessionId());
    }

    @Test
    void validationNamesTheParameter() {
        assertMessage("cookieName", () -> new SessionCookies("a;b", signer, HOUR, clock));
        assertMessage("signer", () -> new SessionCookies("s", null, HOUR, clock));
        assertMessage("maxAge", () -> new SessionCookies("s", signer, Duration.ZERO, clock));
        assertMessage("maxAge", () -> new SessionCookies("s", signer, null, clock));
        assertMessage("clock", () -> new SessionCookies("s", signer, HOUR, null));
        assertMessage("serviceClass", () -> sessions.issue("a.b", "sess-1", T0 + 1));
        assertMessage("sessionId", () -> sessions.issue("basic", "", T0 + 1));
        assertMessage("sessionId", () -> sessions.issue("basic", "s".repeat(129), T0 + 1));
    }

    private static void assertMessage(String parameter, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().startsWith(parameter + " "), e.getMessage());
    }
}

package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import java.io.IOException;
import java.io.StringReader;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, finding 8: what a browser receives and what the engine honours. {@code Secure} and the
 * {@code __Host-} prefix for both cookies, a lowered tier-cookie max-age that shortens cookies already issued,
 * secrets that are long enough, and a policy object that does not give its secret away.
 */
class CookieHardeningTest {

    private static final String SECRET = "hardening-secret-0123456789abcdef";
    private static final String BASE = "classes = premium, basic\ndefault-class = basic\nrule.1.type = tier-cookie\n"
            + "tier-cookie.secret = " + SECRET + "\n";

    private final FakeClock clock = new FakeClock();

    private static QosPolicy parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
        return PolicyParser.parse(p, "qos.properties");
    }

    private static QosPolicy tierPolicy(Duration tierMaxAge) {
        return QosPolicy.builder().secret(SECRET).cookies(c -> c.withTierMaxAge(tierMaxAge))
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic"))
                .addRule(Rule.tierCookie()).build();
    }

    private String classOf(QosEngine engine, String tierCookie) {
        Ticket t = engine.enter(TestRequest.get("/").cookie("QOSTIER", tierCookie), clock.nanoTime());
        try {
            return t.serviceClass();
        } finally {
            t.complete();
        }
    }

    @Test
    void loweringTheTierCookieMaxAgeShortensCookiesAlreadyIssued() {
        QosEngine yearly = QosEngine.create(tierPolicy(Duration.ofDays(365)), clock);
        String issued = cookieValue(yearly.tierCookies().setCookieHeader("premium", "alice"));

        clock.advance(Duration.ofDays(29));
        QosEngine monthly = QosEngine.create(tierPolicy(Duration.ofDays(30)), clock);
        assertEquals("premium", classOf(monthly, issued), "29 days old, within the new 30 days");

        clock.advance(Duration.ofDays(2));
        assertEquals("premium", classOf(yearly, issued), "31 days old, within the old 365 days");
        assertEquals("basic", classOf(monthly, issued),
                "31 days old: the policy now says 30 days, whatever the cookie's own expiry says");
        assertEquals(1, monthly.snapshot().sessions().tierCookies(TierCookies.Verified.Status.EXPIRED));
    }

    @Test
    void aCookieIssuedWithALongerMaxAgeThanThePolicysLivesOnlyThePolicysMaxAge() {
        QosEngine engine = QosEngine.create(tierPolicy(Duration.ofDays(30)), clock);
        String header = engine.tierCookies().setCookieHeader("premium", "alice", Duration.ofDays(90));
        assertTrue(header.contains("; Max-Age=2592000;"), "the browser is told 30 days: " + header);
        clock.advance(Duration.ofDays(31));
        assertEquals("basic", classOf(engine, cookieValue(header)));
    }

    @Test
    void aSecurePolicySendsSecureCookies() {
        QosEngine engine = QosEngine.create(parse(BASE + "tier-cookie.secure = true\nsession-cookie.secure = true\n"),
                clock);
        String tier = engine.tierCookies().setCookieHeader("premium", "alice");
        assertTrue(tier.startsWith("QOSTIER="), tier);
        assertTrue(tier.endsWith("; Path=/; Secure; HttpOnly; SameSite=Lax"), tier);
        Ticket t = engine.enter(TestRequest.get("/"), clock.nanoTime());
        assertTrue(t.setCookieHeader().startsWith("QOSSESSION="), t.setCookieHeader());
        assertTrue(t.setCookieHeader().endsWith("; Path=/; Secure; HttpOnly; SameSite=Lax"), t.setCookieHeader());
        t.complete();
    }

    @Test
    void withoutTheOptionCookiesAreNotSecure() {
        QosEngine engine = QosEngine.create(parse(BASE), clock);
        assertFalse(engine.tierCookies().setCookieHeader("premium", "alice").contains("Secure"));
        Ticket t = engine.enter(TestRequest.get("/"), clock.nanoTime());
        assertFalse(t.setCookieHeader().contains("Secure"), t.setCookieHeader());
        t.complete();
    }

    @Test
    void hostPrefixedCookiesAreSecureWithPathSlashAndNoDomain() {
        QosEngine engine = QosEngine.create(parse(BASE + "tier-cookie.name = __Host-QOSTIER\n"
                + "session-cookie.name = __Host-QOSSESSION\n"), clock);
        String tier = engine.tierCookies().setCookieHeader("premium", "alice");
        assertTrue(tier.startsWith("__Host-QOSTIER="), tier);
        assertTrue(tier.contains("; Path=/; Secure;"), tier);
        assertFalse(tier.contains("Domain"), tier);
        Ticket t = engine.enter(TestRequest.get("/").cookie("__Host-QOSTIER", cookieValue(tier)), clock.nanoTime());
        assertEquals("premium", t.serviceClass(), "the prefixed tier cookie is read back");
        String session = t.setCookieHeader();
        t.complete();
        assertTrue(session.startsWith("__Host-QOSSESSION="), session);
        assertTrue(session.contains("; Path=/; Secure;"), session);
        assertFalse(session.contains("Domain"), session);
        Ticket again = engine.enter(TestRequest.get("/").cookie("__Host-QOSSESSION", cookieValue(session)),
                clock.nanoTime());
        assertEquals("premium", again.serviceClass(), "the prefixed admission cookie is read back");
        assertEquals(null, again.setCookieHeader(), "an admitted session: nothing to renew yet");
        again.complete();
    }

    @Test
    void aPrefixedCookieThatIsNotSecureStopsTheStartNamingKeyAndValue() {
        PolicyException e = assertThrows(PolicyException.class, () -> parse(BASE
                + "session-cookie.name = __Host-QOSSESSION\nsession-cookie.secure = false\n"));
        assertTrue(e.getMessage().startsWith("qos.properties: session-cookie.secure = false: "), e.getMessage());
        assertTrue(e.getMessage().contains("__Host-QOSSESSION"), e.getMessage());
        PolicyException s = assertThrows(PolicyException.class, () -> parse(BASE
                + "tier-cookie.name = __Secure-QOSTIER\ntier-cookie.secure = false\n"));
        assertTrue(s.getMessage().startsWith("qos.properties: tier-cookie.secure = false: "), s.getMessage());
    }

    @Test
    void aShortSecretStopsTheStartNamingTheKeyAndItsLengthInBytesButNotTheValue() {
        String shortSecret = "\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"; // 7 characters, 14 bytes of UTF-8
        PolicyException e = assertThrows(PolicyException.class,
                () -> parse("classes = basic\ntier-cookie.secret = " + shortSecret + "\n"));
        assertEquals("qos.properties: tier-cookie.secret = (hidden, 14 bytes): must be at least 16 bytes",
                e.getMessage());
        PolicyException p = assertThrows(PolicyException.class, () -> parse("classes = basic\ntier-cookie.secret = "
                + SECRET + "\ntier-cookie.previous-secret = abc\n"));
        assertEquals("qos.properties: tier-cookie.previous-secret = (hidden, 3 bytes): must be at least 16 bytes",
                p.getMessage());
        assertFalse(p.getMessage().contains(SECRET));
    }

    @Test
    void aPreviousSecretWithoutASecretStopsTheStart() {
        PolicyException e = assertThrows(PolicyException.class,
                () -> parse("classes = basic\ntier-cookie.previous-secret = " + SECRET + "\n"));
        assertTrue(e.getMessage().startsWith("qos.properties: tier-cookie.secret = (unset): "), e.getMessage());
        assertFalse(e.getMessage().contains(SECRET), e.getMessage());
    }

    /** Nothing public on the policy (an accessor, toString, hashCode) hands out a secret. */
    @Test
    void theSecretsAreNotReadableThroughThePublicPolicy() throws Exception {
        String previous = "previous-secret-0123456789abcdef";
        QosPolicy policy = parse(BASE + "tier-cookie.previous-secret = " + previous + "\n");
        for (Method m : QosPolicy.class.getMethods()) {
            if (m.getParameterCount() == 0 && m.getReturnType() != void.class && !Modifier.isStatic(m.getModifiers())
                    && m.getDeclaringClass() != Object.class) {
                String shown = String.valueOf(m.invoke(policy));
                assertFalse(shown.contains(SECRET) || shown.contains(previous),
                        "QosPolicy." + m.getName() + "() shows a secret");
            }
        }
        assertFalse(policy.toString().contains(SECRET), policy.toString());
        assertEquals(policy.hashCode(), parse(BASE.replace(SECRET, "another-secret-0123456789abcdef")
                + "tier-cookie.previous-secret = another-previous-0123456789\n").hashCode(),
                "the hash code does not depend on the secrets");
    }

    @Test
    void theEnginesTierCookiesStillUseThePolicysSecrets() {
        QosEngine engine = QosEngine.create(parse(BASE), clock);
        TierCookies app = TierCookies.create("QOSTIER", SECRET, null, Duration.ofDays(30), clock);
        assertEquals("premium", classOf(engine, app.issue("premium", "alice")));
        assertEquals(TierCookies.Verified.Status.VALID,
                app.verify(engine.tierCookies().issue("premium", "alice")).status());
    }
}

package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Issue 11, finding 1: path, Host and header rules (what a client chooses) never raise a session above what its
 * credentials give (a signed tier cookie, an ip rule, a rule marked trusted); they apply to each request, capped
 * by the session's class. Policies as configuration.md's example writes them.
 */
class ClassEscalationTest {

    private static final String RULES = """
            classes = premium, basic
            default-class = basic
            max-executing = 8
            tier-cookie.secret = escalation-test-secret-0123456789
            rule.1.type = tier-cookie
            rule.2.type = ip
            rule.2.value = 10.0.0.0/8
            rule.2.class = premium
            rule.5.type = path
            rule.5.value = /checkout/
            rule.5.class = premium
            rule.6.type = path
            rule.6.value = /static/
            rule.6.class = basic
            rule.10.type = host
            rule.10.value = partners.example.com
            rule.10.class = premium
            rule.20.type = header
            rule.20.header = X-Plan
            rule.20.value = gold
            rule.20.class = premium
            """;

    private final FakeClock clock = new FakeClock();

    static QosPolicy parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return PolicyParser.parse(p, "test");
    }

    /** Enters, completes, and returns the ticket. */
    private Ticket once(QosEngine engine, TestRequest r) {
        Ticket t = engine.enter(r, clock.nanoTime());
        t.complete();
        return t;
    }

    private static TestRequest with(TestRequest r, String sessionCookie) {
        return r.cookie("QOSSESSION", sessionCookie);
    }

    @Test
    void aCookieLessCheckoutDoesNotMakeAPremiumSession() {
        QosEngine engine = QosEngine.create(parse(RULES), clock);
        Ticket checkout = once(engine, TestRequest.get("/checkout/pay").from("203.0.113.9"));
        assertEquals("basic", checkout.serviceClass(), "a path rule does not raise a session without credentials");
        assertNotNull(checkout.setCookieHeader());
        String session = cookieValue(checkout.setCookieHeader());
        assertTrue(session.startsWith("v2.basic."), "the admission cookie carries the credentials' class: " + session);

        Ticket elsewhere = once(engine, with(TestRequest.get("/account").from("203.0.113.9"), session));
        assertEquals("basic", elsewhere.serviceClass(), "the cookie is not premium on other paths");
        assertEquals(1, engine.snapshot().get("basic").sessionsAdmitted());
        assertEquals(0, engine.snapshot().get("premium").sessionsAdmitted());
    }

    @Test
    void aClientChosenHeaderOrHostDoesNotMakeAPremiumSession() {
        QosEngine engine = QosEngine.create(parse(RULES), clock);
        Ticket gold = once(engine, TestRequest.get("/").header("X-Plan", "gold").from("203.0.113.9"));
        assertEquals("basic", gold.serviceClass());
        String session = cookieValue(gold.setCookieHeader());
        assertEquals("basic", once(engine, with(TestRequest.get("/other"), session)).serviceClass());
        assertEquals("basic", once(engine, with(TestRequest.get("/other").header("X-Plan", "gold"), session))
                .serviceClass(), "not on a later request either");

        Ticket partner = once(engine, TestRequest.get("/").host("partners.example.com").from("203.0.113.9"));
        assertEquals("basic", partner.serviceClass());
        assertTrue(cookieValue(partner.setCookieHeader()).startsWith("v2.basic."));
        assertEquals(0, engine.snapshot().get("premium").sessionsAdmitted());
    }

    @Test
    void credentialsStillGiveTheSessionItsClassAndRequestRulesLowerSingleRequests() {
        QosEngine engine = QosEngine.create(parse(RULES), clock);
        String tier = cookieValue(engine.tierCookies().setCookieHeader("premium", "alice"));
        Ticket first = once(engine, TestRequest.get("/static/logo.png").cookie("QOSTIER", tier));
        assertEquals("basic", first.serviceClass(), "a request rule lowers the request ...");
        String session = cookieValue(first.setCookieHeader());
        assertTrue(session.startsWith("v2.premium."), "... but the session is premium by its tier cookie");
        assertEquals(1, engine.snapshot().get("premium").sessionsAdmitted(), "admitted as premium");

        assertEquals("premium", once(engine, with(TestRequest.get("/item"), session)).serviceClass());
        assertEquals("premium", once(engine, with(TestRequest.get("/checkout/pay"), session)).serviceClass());
        assertEquals("basic", once(engine, with(TestRequest.get("/static/app.js"), session)).serviceClass(),
                "a premium session's request on a basic path runs as basic");

        Ticket office = once(engine, TestRequest.get("/").from("10.1.2.3"));
        assertEquals("premium", office.serviceClass(), "an ip rule is a credential");
        assertTrue(cookieValue(office.setCookieHeader()).startsWith("v2.premium."));
    }

    @Test
    void aTrustedHeaderRuleIsACredential() {
        QosEngine engine = QosEngine.create(parse(RULES + "rule.20.trusted = true\n"), clock);
        Ticket gold = once(engine, TestRequest.get("/").header("X-Plan", "gold"));
        assertEquals("premium", gold.serviceClass());
        String session = cookieValue(gold.setCookieHeader());
        assertTrue(session.startsWith("v2.premium."));
        assertEquals("premium", once(engine, with(TestRequest.get("/account"), session)).serviceClass(),
                "the session keeps the class its proxy-set header gave it");
        assertEquals("basic", once(engine, TestRequest.get("/checkout/")).serviceClass(),
                "the untrusted path rule still raises no one");
    }

    /** Sixty new sessions, each with a copy of one premium tier cookie, at one instant: how many are admitted. */
    private int admittedOfSixtyWithOneTierCookie(String policy) {
        QosEngine engine = QosEngine.create(parse(policy), clock);
        String tier = cookieValue(engine.tierCookies().setCookieHeader("premium", "alice"));
        int admitted = 0;
        for (int i = 0; i < 60; i++) {
            Ticket t = engine.enter(TestRequest.get("/").cookie("QOSTIER", tier).from("198.51.100." + i),
                    clock.nanoTime());
            if (t.state() == Ticket.State.REJECTED) {
                assertEquals(Rejection.Reason.SESSION_RATE, t.rejection().reason());
            } else {
                admitted++;
                t.complete();
            }
        }
        return admitted;
    }

    @Test
    void theHighestClassHasASessionRateByDefault() {
        assertEquals(50, admittedOfSixtyWithOneTierCookie(RULES), "50 new premium sessions a second, bursts of 50");
        assertEquals(60, admittedOfSixtyWithOneTierCookie(RULES + "class.premium.session-rate = 0\n"),
                "0 says no limit");
        assertEquals(8, admittedOfSixtyWithOneTierCookie(RULES + "class.premium.session-rate = 8\n"));
        assertEquals(60, admittedOfSixtyWithOneTierCookie(RULES.replace("default-class = basic",
                "default-class = premium")), "not when the highest class is everyone's");
        assertEquals(60, admittedOfSixtyWithOneTierCookie(RULES.replace("max-executing = 8\n", "")),
                "with automatic admission the admission law sets the rates");
    }

    @Test
    void aRequestRuleNamingTheHighestClassIsWarnedOfAtStart() {
        List<String> warnings = new ArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord record) {
                if (record.getLevel() == Level.WARNING) {
                    warnings.add(record.getMessage());
                }
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger logger = Logger.getLogger(QosEngine.class.getName());
        logger.addHandler(handler);
        try {
            QosEngine.create(parse(RULES + "rule.20.trusted = true\n"), clock);
        } finally {
            logger.removeHandler(handler);
        }
        assertEquals(2, warnings.size(), "the /checkout/ path rule and the host rule: " + warnings);
        assertTrue(warnings.get(0).contains("classification rule 3 in order (path [/checkout/]) names premium, the "
                + "highest class, and changes nothing"), warnings.get(0));
    }

    @Test
    void trustedIsRefusedWhereItMeansNothing() {
        PolicyException tier = assertThrows(PolicyException.class,
                () -> parse(RULES + "rule.1.trusted = true\n"));
        assertTrue(tier.getMessage().contains("rule.1.trusted = true"), tier.getMessage());
        PolicyException ip = assertThrows(PolicyException.class, () -> parse(RULES + "rule.2.trusted = false\n"));
        assertTrue(ip.getMessage().contains("rule.2.trusted"), ip.getMessage());
        PolicyException bad = assertThrows(PolicyException.class, () -> parse(RULES + "rule.20.trusted = yes\n"));
        assertTrue(bad.getMessage().contains("rule.20.trusted = yes"), bad.getMessage());
    }
}

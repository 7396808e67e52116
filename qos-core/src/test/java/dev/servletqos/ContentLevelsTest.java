package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static dev.servletqos.Engines.policy;
import static dev.servletqos.Engines.request;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.io.IOException;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * Content levels (paper 000 section 4.2): the engine decides each request's level from its class's live
 * fractional level m and a hash of the session, refuses new sessions at level 0, and clamps m when applied.
 */
class ContentLevelsTest {

    private final FakeClock clock = new FakeClock();

    /** premium (one level) above basic with {@code levels} levels; room for every request to run. */
    private QosEngine engine(int levels) {
        return QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 100, ClassPolicy.named("premium"),
                ClassPolicy.named("basic").withLevels(levels)).build(), clock);
    }

    private static void setLevel(QosEngine engine, double m) {
        engine.apply(engine.settings().withClass(1, engine.settings().get(1).withLevel(m)),
                Settings.Source.CONTROLLER);
    }

    /** A request of the admitted session whose cookie value is {@code session}; completed at once. */
    private Ticket again(QosEngine engine, String session) {
        Ticket t = engine.enter(request("basic").cookie("QOSSESSION", session), clock.nanoTime());
        t.complete();
        return t;
    }

    /** A new basic session's first request, completed at once. */
    private Ticket fresh(QosEngine engine) {
        Ticket t = engine.enter(request("basic"), clock.nanoTime());
        t.complete();
        return t;
    }

    @Test
    void atFullLevelEveryRequestIsServedAtTheClassesLevelCount() {
        QosEngine engine = engine(3);
        assertEquals(3, engine.settings().get(1).levels());
        assertEquals(3.0, engine.settings().get(1).level(), "a class starts at full content");
        Ticket t = fresh(engine);
        assertEquals(3, t.level());
        assertEquals(3, again(engine, cookieValue(t.setCookieHeader())).level());
        Ticket premium = engine.enter(request("premium"), clock.nanoTime());
        assertEquals(1, premium.level(), "a class without levels has one: full content");
        premium.complete();
    }

    @Test
    void aFractionFOfTheSessionsIsServedAtTheLevelAbove() {
        QosEngine engine = engine(3);
        setLevel(engine, 1.3);
        int n = 10_000;
        int[] at = new int[4];
        for (int i = 0; i < n; i++) {
            at[fresh(engine).level()]++;
        }
        assertEquals(0, at[0] + at[3], "m = 1.3 serves levels 1 and 2 only");
        double above = (double) at[2] / n;
        // binomial standard deviation sqrt(0.3 * 0.7 / 10^4) = 0.0046: 0.02 is more than four of them
        assertEquals(0.3, above, 0.02, "the fraction F of sessions at I+1");
        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(at[1], basic.completedAtLevel(1));
        assertEquals(at[2], basic.completedAtLevel(2));
        assertEquals(0, basic.completedAtLevel(3));
        assertEquals(1.3, basic.level());
        assertEquals(3, basic.levels());
    }

    @Test
    void oneSessionSeesOneLevelWhileTheFractionStaysAndFollowsItsChangesMonotonically() {
        QosEngine engine = engine(2);
        setLevel(engine, 1.5);
        List<String> sessions = new ArrayList<>();
        List<Integer> levels = new ArrayList<>();
        for (int i = 0; i < 400; i++) {
            Ticket t = fresh(engine);
            sessions.add(cookieValue(t.setCookieHeader()));
            levels.add(t.level());
        }
        assertTrue(levels.contains(1) && levels.contains(2), "both levels are served at m = 1.5");
        for (int round = 0; round < 5; round++) {
            clock.advance(Duration.ofSeconds(7));
            for (int i = 0; i < sessions.size(); i++) {
                assertEquals(levels.get(i), again(engine, sessions.get(i)).level(),
                        "session " + i + ", round " + round);
            }
        }
        // a renewed admission cookie carries the same session: the same level
        clock.advance(Duration.ofMinutes(16));
        for (int i = 0; i < sessions.size(); i++) {
            Ticket t = again(engine, sessions.get(i));
            assertNotNull(t.setCookieHeader(), "renewed after half the cookie's 30 min");
            sessions.set(i, cookieValue(t.setCookieHeader()));
            assertEquals(levels.get(i), t.level());
        }
        for (int i = 0; i < sessions.size(); i++) {
            assertEquals(levels.get(i), again(engine, sessions.get(i)).level(), "the renewed cookie, session " + i);
        }
        // a lower fraction moves sessions down only; a higher one up only
        setLevel(engine, 1.2);
        int down = 0;
        for (int i = 0; i < sessions.size(); i++) {
            int now = again(engine, sessions.get(i)).level();
            assertTrue(now <= levels.get(i), "session " + i + " went up as m fell");
            down += levels.get(i) - now;
        }
        assertTrue(down > 0, "some sessions were moved down to level 1");
        setLevel(engine, 1.8);
        for (int i = 0; i < sessions.size(); i++) {
            assertTrue(again(engine, sessions.get(i)).level() >= levels.get(i),
                    "session " + i + " went down as m rose");
        }
    }

    @Test
    void anotherNodeServesASessionAtTheSameLevel() {
        QosEngine a = engine(2);
        QosEngine b = engine(2);
        setLevel(a, 1.5);
        setLevel(b, 1.5);
        int[] levels = new int[3];
        for (int i = 0; i < 100; i++) {
            Ticket first = fresh(a);
            levels[first.level()]++;
            assertEquals(first.level(), again(b, cookieValue(first.setCookieHeader())).level(),
                    "the node behind the load balancer that did not admit the session");
        }
        assertTrue(levels[1] > 0 && levels[2] > 0, "both levels were served: " + java.util.Arrays.toString(levels));
    }

    @Test
    void levelZeroRefusesNewSessionsAndServesAdmittedOnesAtLevelOne() {
        QosEngine engine = engine(2);
        String admitted = cookieValue(fresh(engine).setCookieHeader());
        setLevel(engine, 0);

        Ticket refused = engine.enter(request("basic"), clock.nanoTime());
        assertEquals(State.REJECTED, refused.state());
        assertEquals(0, refused.level());
        assertEquals(Rejection.Reason.SESSION_LEVEL, refused.rejection().reason());
        assertEquals("session-level", refused.rejection().reason().tag());
        assertEquals(503, refused.rejection().status());
        assertTrue(refused.rejection().retryAfterSeconds() > 0, "a Retry-After");
        assertTrue(new String(refused.rejection().body("text/html"), java.nio.charset.StandardCharsets.UTF_8)
                .contains(Rejection.NEW_SESSION_REFUSED));
        assertNull(refused.setCookieHeader(), "a refused session gets no admission cookie");

        Ticket served = engine.enter(request("basic").cookie("QOSSESSION", admitted), clock.nanoTime());
        assertEquals(State.RUNNING, served.state(), "an admitted session is never refused for its level");
        assertEquals(1, served.level());
        served.complete();

        Ticket premium = engine.enter(request("premium"), clock.nanoTime());
        assertEquals(State.RUNNING, premium.state(), "another class's level is its own");
        premium.complete();

        ClassStats basic = engine.snapshot().get("basic");
        assertEquals(1, basic.sessionsRefusedLevel());
        assertEquals(1, basic.rejected());
        assertEquals(0, basic.sessionsRefusedQueued() + basic.sessionsRefusedRate());
        assertEquals(1, basic.sessionsAdmitted());
        assertTrue(basic.reconciles());
    }

    @Test
    void belowLevelOneTheFractionOfNewSessionsIsAdmittedAtLevelOne() {
        QosEngine engine = engine(2);
        setLevel(engine, 0.25);
        int n = 10_000;
        int admitted = 0;
        for (int i = 0; i < n; i++) {
            Ticket t = fresh(engine);
            if (t.state() == State.COMPLETED) {
                assertEquals(1, t.level());
                admitted++;
            } else {
                assertEquals(State.REJECTED, t.state());
                assertEquals(Rejection.Reason.SESSION_LEVEL, t.rejection().reason());
            }
        }
        assertEquals(0.25, (double) admitted / n, 0.02);
        assertEquals(n - admitted, engine.snapshot().get("basic").sessionsRefusedLevel());
    }

    @Test
    void applyClampsTheLevelAndKeepsThePolicysLevelCount() {
        QosEngine engine = engine(2);
        setLevel(engine, 5);
        assertEquals(2.0, engine.settings().get(1).level());
        setLevel(engine, -1);
        assertEquals(0.0, engine.settings().get(1).level());
        setLevel(engine, 1.25);
        setLevel(engine, Double.NaN);
        assertEquals(1.25, engine.settings().get(1).level(), "not a number keeps the level in force");
        Settings.ClassSettings c = engine.settings().get(1);
        Settings applied = engine.apply(engine.settings().withClass(1, new Settings.ClassSettings(c.name(),
                c.budget(), c.minBudget(), c.sessionRate(), c.sessionBurst(), c.delayTarget(), 7, 7)),
                Settings.Source.OPERATOR);
        assertEquals(2, applied.get(1).levels(), "the policy fixes the level count");
        assertEquals(2.0, applied.get(1).level(), "clamped to the policy's count");
        assertEquals(Settings.Source.OPERATOR, engine.settings().source());
        engine.update(s -> s.withClass(1, s.get(1).withLevel(Double.POSITIVE_INFINITY)));
        assertEquals(2.0, engine.settings().get(1).level());
        assertEquals(2, fresh(engine).level());
    }

    @Test
    void theLevelFunctionSplitsAtTheFraction() {
        assertEquals(2, Intake.level(1.5, 2, 0.49));
        assertEquals(1, Intake.level(1.5, 2, 0.5));
        assertEquals(2, Intake.level(2, 2, 0.99));
        assertEquals(1, Intake.level(1, 2, 0.0), "F = 0: everyone at I");
        assertEquals(0, Intake.level(0, 2, 0.0));
        assertEquals(1, Intake.level(0.5, 2, 0.2));
        assertEquals(0, Intake.level(0.5, 2, 0.7));
    }

    /**
     * The shares the status page shows ({@link Settings.ClassSettings#degradedShare()}, {@code refusedShare()}) are
     * those of the engine's own rule: over evenly spread session shares, the fraction {@link QosEngine#level} puts
     * at a level 1..M-1, and at 0.
     */
    @Test
    void theDegradedAndRefusedSharesAreTheLevelRulesFractions() {
        int n = 10_000;
        for (int levels : new int[] {1, 2, 3}) {
            for (double m = 0; m <= levels; m += 0.125) {
                int degraded = 0;
                int refused = 0;
                for (int i = 0; i < n; i++) {
                    int level = Intake.level(m, levels, (i + 0.5) / n);
                    degraded += level >= 1 && level < levels ? 1 : 0;
                    refused += level == 0 ? 1 : 0;
                }
                Settings.ClassSettings c = new Settings.ClassSettings("basic", 1, 0, 0, 1, Duration.ofSeconds(1),
                        levels, m);
                assertEquals((double) degraded / n, c.degradedShare(), 1e-9, "degraded, M " + levels + ", m " + m);
                assertEquals((double) refused / n, c.refusedShare(), 1e-9, "refused, M " + levels + ", m " + m);
            }
        }
        assertEquals(0.25, new Settings.ClassSettings("b", 1, 0, 0, 1, Duration.ofSeconds(1), 2, 1.75)
                .degradedShare(), 1e-12);
    }

    @Test
    void levelsArePolicyKeysCheckedAtStartup() throws IOException {
        QosPolicy p = parse("classes = a, b\nclass.b.levels = 4");
        assertEquals(1, p.classes().get(0).content().levels(), "default: full content only");
        assertEquals(4, p.classes().get(1).content().levels());
        PolicyException zero = assertThrows(PolicyException.class, () -> parse("classes = a\nclass.a.levels = 0"));
        assertEquals("class.a.levels = 0: must be 1..16", zero.getMessage());
        PolicyException many = assertThrows(PolicyException.class, () -> parse("classes = a\nclass.a.levels = 17"));
        assertEquals("class.a.levels", many.key());
        assertEquals("class.a.levels = 17: must be 1..16", many.getMessage());
    }

    private static QosPolicy parse(String text) throws IOException {
        Properties p = new Properties();
        p.load(new StringReader(text + "\ntier-cookie.secret = " + Engines.SECRET));
        return PolicyParser.parse(p, null);
    }
}

package dev.servletqos.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The policy's records by concern: each checks itself with the key and the value in the message, and a policy
 * built in code record by record is the one the same keys in a file give.
 */
class PolicyRecordsTest {

    private static final String SECRET = "records-secret-0123456789abcdef";

    @Test
    void eachRecordNamesTheKeyAndTheValueOfABadSetting() {
        assertEquals("admission.reject-status = 404: must be 503 or 429", assertThrows(PolicyException.class,
                () -> AdmissionLimits.DEFAULTS.withRejectStatus(404).check()).getMessage());
        assertEquals("session-table.max-entries = 0: must be 1..100000000", assertThrows(PolicyException.class,
                () -> SessionTablePolicy.DEFAULTS.withMaxEntries(0).check()).getMessage());
        assertEquals("streams.max-open = -1: must be 0 (no stream pool)..1000000", assertThrows(
                PolicyException.class, () -> StreamsPolicy.DEFAULTS.withMaxOpen(-1).check()).getMessage());
        assertEquals("tier-cookie.max-age = PT0S: must be 1s..400d", assertThrows(PolicyException.class,
                () -> CookiePolicy.DEFAULTS.withTierMaxAge(Duration.ZERO).check(false)).getMessage());
        assertEquals("content.1.prefix = /lo: content.paths is not set: the prefix would apply to no path",
                assertThrows(PolicyException.class, () -> ContentPolicy.NONE.withPrefix(1, "/lo").trees(2))
                        .getMessage());
    }

    @Test
    void theCookiesShowASecretByItsLengthOnly() {
        CookiePolicy c = CookiePolicy.DEFAULTS.withSecret("short");
        assertEquals("tier-cookie.secret = (hidden, 5 bytes): must be at least 16 bytes",
                assertThrows(PolicyException.class, () -> c.check(false)).getMessage());
        CookiePolicy good = CookiePolicy.DEFAULTS.withSecret(SECRET);
        assertFalse(good.toString().contains(SECRET), good.toString());
        assertEquals(good.hashCode(), CookiePolicy.DEFAULTS.withSecret("another-secret-0123456789abcdef").hashCode(),
                "the hash tells nothing about the secret");
    }

    @Test
    void aPolicyBuiltRecordByRecordIsTheOneItsKeysGive() {
        QosPolicy built = QosPolicy.builder().addClass(ClassPolicy.named("premium")).addClass(
                        ClassPolicy.named("basic").withLevels(2))
                .cookies(c -> c.withSecret(SECRET).withTierMaxAge(Duration.ofDays(30)).withSessionName("S"))
                .sessionTable(SessionTablePolicy.DEFAULTS.withIdleTimeout(Duration.ofMinutes(5)))
                .admission(a -> a.withRejectStatus(429).withMaxPerSession(3))
                .content(c -> c.withPaths(List.of("/img/")).withPrefix(1, "/lo"))
                .streams(s -> s.withEventStream(false).withMaxOpen(7))
                .build();
        QosPolicy parsed = PolicyParser.parse(props("classes = premium, basic\nclass.basic.levels = 2\n"
                + "tier-cookie.secret = " + SECRET + "\ntier-cookie.max-age = 30d\nsession-cookie.name = S\n"
                + "session-table.idle-timeout = 5m\nadmission.reject-status = 429\nadmission.max-per-session = 3\n"
                + "content.paths = /img/\ncontent.1.prefix = /lo\nstreams.event-stream = false\n"
                + "streams.max-open = 7\n"), "test");
        assertEquals(parsed, built);
        assertEquals(built, built.toBuilder().build());
        assertEquals(429, built.admission().rejectStatus());
        assertEquals(3, built.admission().maxPerSession());
        assertEquals(Duration.ofMinutes(5), built.sessionTable().idleTimeout());
        assertEquals("S", built.cookies().sessionName());
        assertEquals(7, built.streams().maxOpen());
        assertEquals("/lo/img/a.png", built.contentTrees().rewrite("/img/a.png", 1, 2));
    }

    private static Properties props(String text) {
        Properties props = new Properties();
        try {
            props.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return props;
    }
}

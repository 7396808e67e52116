package dev.servletqos.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.FakeClock;
import dev.servletqos.QosEngine;
import dev.servletqos.TestRequest;
import dev.servletqos.testkit.JsonTree;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The page's answers without a container: who may read it, methods, the JSON form and its {@code since}. */
class StatusPageTest {

    private final FakeClock clock = new FakeClock();
    private final QosEngine engine = QosEngine.create(StatusHistoryTest.policy(StatusHistoryTest.POLICY), clock);
    private final StatusPage page = new StatusPage(AllowedClients.loopback());

    @Test
    void loopbackOnlyByDefault() {
        AllowedClients a = AllowedClients.loopback();
        for (String ok : List.of("127.0.0.1", "127.1.2.3", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1")) {
            assertTrue(a.allows(ok), ok);
        }
        for (String no : List.of("10.0.0.1", "203.0.113.9", "::2", "fe80::1", "", "localhost", "not an address")) {
            assertFalse(a.allows(no), no);
        }
        assertFalse(a.allows(null));
        assertEquals(403, page.answer("GET", "192.168.1.4", null, engine, 1).status());
        assertEquals(200, page.answer("GET", "127.0.0.1", null, engine, 1).status());
    }

    @Test
    void aListOfRangesReplacesLoopback() {
        AllowedClients a = AllowedClients.parse("allow", " 10.0.0.0/8,2001:db8::/32 192.168.1.7 ");
        assertEquals(List.of("10.0.0.0/8", "2001:db8::/32", "192.168.1.7"), a.ranges());
        assertTrue(a.allows("10.200.0.1") && a.allows("2001:db8::5") && a.allows("192.168.1.7"));
        assertFalse(a.allows("127.0.0.1") || a.allows("192.168.1.8"));
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> AllowedClients.parse("allow", "10.0.0.0/8, example.org"));
        assertTrue(bad.getMessage().startsWith("allow = \"10.0.0.0/8, example.org\": \"example.org\": not an IPv4"),
                bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AllowedClients.parse("allow", " , "));
    }

    @Test
    void methodsAndNoEngine() {
        StatusPage.Answer post = page.answer("POST", "127.0.0.1", null, engine, 1);
        assertEquals(405, post.status());
        assertEquals("GET, HEAD", post.headers().get("Allow"));
        StatusPage.Answer none = page.answer("GET", "127.0.0.1", null, null, 1);
        assertEquals(503, none.status());
        assertEquals(StatusPage.TEXT, none.contentType());
        StatusPage.Answer get = page.answer("GET", "127.0.0.1", null, engine, 1);
        StatusPage.Answer head = page.answer("HEAD", "127.0.0.1", null, engine, 1);
        assertEquals(StatusPage.HTML, head.contentType());
        assertFalse(head.sendBody());
        assertTrue(get.sendBody());
        assertEquals(get.headers().get("Content-Security-Policy"), StatusPage.contentSecurityPolicy());
    }

    @Test
    @SuppressWarnings("unchecked")
    void theJsonFormAndItsSince() {
        engine.setBudget("basic", 0);
        engine.enter(TestRequest.get("/a"));
        StatusPage.Answer first = page.answer("GET", "127.0.0.1", "format=json", engine, 5_000);
        assertEquals(StatusPage.JSON, first.contentType());
        Map<String, Object> json = (Map<String, Object>) JsonTree.parse(first.text());
        assertEquals("servlet-qos-status/1", json.get("schema"));
        assertEquals(5_000.0, json.get("time"));
        Map<String, Object> e = (Map<String, Object>) json.get("engine");
        assertEquals("OPERATOR", e.get("settingsSource"));
        assertEquals(1.0, e.get("queued"));
        Map<String, Object> basic = (Map<String, Object>) ((List<Object>) json.get("classes")).get(1);
        assertEquals("basic", basic.get("name"));
        assertEquals(1.0, basic.get("queued"));
        assertEquals(0.0, basic.get("budget"));
        assertEquals(400.0, basic.get("delayTargetMillis"));
        assertEquals(null, basic.get("recentWaitMillis"), "no point before the first: no delay yet");
        assertEquals(null, basic.get("control"), "no control period yet");
        clock.advance(Duration.ofSeconds(1));
        page.answer("GET", "127.0.0.1", "format=json", engine, 6_000);
        Map<String, Object> later = (Map<String, Object>) JsonTree.parse(
                page.answer("GET", "127.0.0.1", "format=json&since=5000", engine, 6_100).text());
        List<Object> points = (List<Object>) ((Map<String, Object>) later.get("history")).get("points");
        assertEquals(1, points.size(), "only the point after 5000");
        assertEquals(6_000.0, ((Map<String, Object>) points.get(0)).get("t"));
        Map<String, Object> all = (Map<String, Object>) JsonTree.parse(
                page.answer("GET", "127.0.0.1", "since=x&format=json", engine, 6_200).text());
        assertEquals(2, ((List<Object>) ((Map<String, Object>) all.get("history")).get("points")).size(),
                "a since that is not a number shows the whole history");
    }

    @Test
    @SuppressWarnings("unchecked")
    void jsonTextCannotCloseTheScriptElementItSitsIn() {
        String text = new JsonOut().beginObject().field("m", "</script><b>&\"\n").field("n", Double.NaN)
                .field("x", 0.1234567).endObject().toString();
        assertEquals("{\"m\":\"\\u003c/script\\u003e\\u003cb\\u003e\\u0026\\\"\\n\",\"n\":null,\"x\":0.123}", text);
        assertEquals(Map.of("m", "</script><b>&\"\n", "x", 0.123), withoutNulls((Map<String, Object>) JsonTree.parse(text)));
    }

    private static Map<String, Object> withoutNulls(Map<String, Object> m) {
        Map<String, Object> out = new java.util.HashMap<>(m);
        out.values().removeIf(java.util.Objects::isNull);
        return out;
    }
}

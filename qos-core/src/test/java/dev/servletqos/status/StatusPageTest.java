package dev.servletqos.status;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.FakeClock;
import dev.servletqos.Periodic;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.control.EngineSampleSource;
import dev.servletqos.control.UtilizationStatus;
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

    /**
     * Two classes with content levels under the pi degradation law on CPU, a token-bucket rule and a virtual server.
     */
    static final String DEGRADING = """
            classes = premium, basic
            default-class = basic
            max-executing = 100
            class.premium.levels = 2
            class.basic.levels = 2
            control.degradation = pi
            control.utilization.source = cpu
            control.utilization.target = 0.5
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            rule.1.trusted = true
            bucket.search.path = /search/*
            bucket.search.rate = 2
            bucket.search.min-rate = 1
            bucket.search.depth = 2
            vhost.shop.hosts = shop.example
            vhost.shop.rmax = 10
            vhost.shop.wmax = 100000
            vhosts.request-cost = 0.01
            vhosts.byte-cost = 0.000001
            """;

    /**
     * An operator lowers basic's level through the settings seam: the page shows m, M and the share of sessions
     * served lighter, what was served at each level (also over time), the law's settings before its first period,
     * the bucket's tokens and refusals and the virtual server's requests. Then the law runs on a CPU load: the page
     * shows what it measured and fitted, each class's target and utilization, and the levels it set.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theContentLevelsAndTheDegradationLaw() {
        QosEngine e = QosEngine.create(StatusHistoryTest.policy(DEGRADING), clock);
        e.update(s -> s.withClass(1, s.get(1).withLevel(1.5)));
        Map<String, Object> before = json(e, 1_000);
        Map<String, Object> d = (Map<String, Object>) before.get("degradation");
        assertEquals("pi", d.get("law"));
        assertEquals("cpu", d.get("sourceSetting"));
        assertEquals(null, d.get("source"), "not measured before the first period");
        assertEquals(0.5, d.get("target"));
        assertEquals(4.0, d.get("gainMargin"));
        assertEquals(null, d.get("measured"));
        assertEquals(null, d.get("high"), "a threshold is threshold mode's");
        Map<String, Object> basic = klass(before, "basic");
        Map<String, Object> content = (Map<String, Object>) basic.get("content");
        assertEquals(2.0, content.get("levels"));
        assertEquals(1.5, content.get("level"), "the operator's m");
        assertEquals(0.5, content.get("degradedShare"), "m = 1.5 of 2: half the sessions at level 1");
        assertEquals(0.0, content.get("refusedShare"));
        assertEquals(null, basic.get("utilization"), "no period yet");
        Map<String, Object> premium = (Map<String, Object>) klass(before, "premium").get("content");
        assertEquals(2.0, premium.get("level"));
        assertEquals(0.0, premium.get("degradedShare"));

        // twenty new basic sessions: each served at the level the engine decided for it
        int degraded = 0;
        for (int i = 0; i < 20; i++) {
            Ticket t = e.enter(TestRequest.get("/page"));
            degraded += t.level() == 1 ? 1 : 0;
            t.complete();
        }

        // the bucket: two tokens deep, so the third request at once is refused; 2/s gives half a token in 250 ms
        for (int i = 0; i < 3; i++) {
            Ticket t = e.enter(TestRequest.get("/search/" + i));
            if (t.state() == Ticket.State.RUNNING) {
                degraded += t.level() == 1 ? 1 : 0; // a new basic session too
                t.complete();
            }
        }
        Ticket guaranteed = e.enter(TestRequest.get("/page").host("shop.example"));
        guaranteed.complete(1000);
        assertTrue(degraded > 0 && degraded < 22, "m = 1.5 serves some sessions at each level: " + degraded);
        clock.advance(Duration.ofMillis(1_000));
        Map<String, Object> after = json(e, 2_000);
        content = (Map<String, Object>) klass(after, "basic").get("content");
        assertEquals((double) degraded, content.get("completedDegraded"));
        assertEquals(List.of(0.0, (double) degraded, 23.0 - degraded), content.get("completedByLevel"),
                "basic's completions by level 0..2: the sessions above and the virtual server's at full content");
        Map<String, Object> point = lastPoint(after);
        Map<String, Object> basicPoint = (Map<String, Object>) ((List<Object>) point.get("classes")).get(1);
        assertEquals(1.5, basicPoint.get("level"));
        assertEquals(2.0, basicPoint.get("levels"));
        assertEquals((double) degraded, basicPoint.get("degraded"), "completed below full a second, over 1 s");
        assertEquals("cpu", after.get("bucketLaw"));
        Map<String, Object> bucket = (Map<String, Object>) ((List<Object>) after.get("buckets")).get(0);
        assertEquals(Map.of("name", "search", "paths", "/search/*", "rate", 2.0, "minRate", 1.0, "depth", 2.0,
                "tokens", 2.0, "hits", 3.0, "admitted", 2.0, "refused", 1.0), withoutNulls(bucket),
                "refilled to its depth in the second since");
        assertEquals(null, bucket.get("cookie"));
        assertEquals(Map.of("name", "shop", "hosts", "shop.example", "rmax", 10.0, "wmax", 100000.0, "requests", 1.0,
                "guaranteed", 1.0, "beyond", 0.0, "guaranteedBytes", 1000.0),
                ((List<Object>) after.get("hosts")).get(0));

        // the law runs: 50 requests of each class a period at 9 ms of the CPU each, 0.9 against a target of 0.5
        Periods periods = new Periods();
        e.start(periods);
        e.useSampleSource(new EngineSampleSource(e, () -> cpu));
        for (int p = 0; p < 4; p++) {
            int served = 0;
            for (int i = 0; i < 50; i++) {
                for (TestRequest r : List.of(TestRequest.get("/page").header("X-Tier", "premium"),
                        TestRequest.get("/page"))) {
                    Ticket t = e.enter(r);
                    if (t.state() == Ticket.State.RUNNING) {
                        t.complete(10_000);
                        served++;
                    }
                }
            }
            cpu = served * 0.009;
            clock.advance(Duration.ofSeconds(1));
            periods.run(Duration.ofSeconds(1));
        }
        UtilizationStatus u = e.controlStatus().utilization();
        Settings s = e.settings();
        assertEquals(Settings.Source.CONTROLLER, s.source());
        assertTrue(s.get(1).level() < 1.5, "the law lowered basic's level: " + s.get(1).level());
        Map<String, Object> ran = json(e, 7_000);
        d = (Map<String, Object>) ran.get("degradation");
        assertEquals("cpu", d.get("source"));
        assertEquals(round(u.measured()), d.get("measured"));
        assertEquals(round(u.estimated()), d.get("estimated"));
        assertTrue(u.a() > 0 && u.b() != 0, "fitted: a " + u.a() + ", b " + u.b());
        assertEquals(u.a(), d.get("a"), "as precise as fitted");
        assertEquals(u.b(), d.get("b"));
        assertEquals(0.0, d.get("c"));
        for (int k = 0; k < 2; k++) {
            Map<String, Object> c = (Map<String, Object>) ((List<Object>) ran.get("classes")).get(k);
            Map<String, Object> cu = (Map<String, Object>) c.get("utilization");
            UtilizationStatus.ClassLevel l = u.classes().get(k);
            assertEquals(round(l.utilization()), cu.get("utilization"), l.name());
            assertEquals(round(l.target()), cu.get("target"), l.name());
            assertEquals(l.saturated(), cu.get("saturated"), l.name());
            Map<String, Object> cc = (Map<String, Object>) c.get("content");
            assertEquals(round(s.get(k).level()), cc.get("level"), l.name());
            assertEquals(round(s.get(k).degradedShare()), cc.get("degradedShare"), l.name());
            assertEquals(round(s.get(k).refusedShare()), cc.get("refusedShare"), l.name());
        }
        assertEquals(0.5, ((Map<String, Object>) klass(ran, "premium").get("utilization")).get("target"),
                "the top class's target is the whole target");
        assertEquals(round(u.measured()), lastPoint(ran).get("utilization"));
        assertEquals(round(u.estimated()), lastPoint(ran).get("estimated"));
        e.stop();
    }

    private double cpu;

    /** The page's JSON form read at {@code millis}. */
    @SuppressWarnings("unchecked")
    private Map<String, Object> json(QosEngine e, long millis) {
        StatusPage.Answer a = page.answer("GET", "127.0.0.1", "format=json", e, millis);
        assertEquals(200, a.status(), a.text());
        return (Map<String, Object>) JsonTree.parse(a.text());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> klass(Map<String, Object> json, String name) {
        for (Object o : (List<Object>) json.get("classes")) {
            if (name.equals(((Map<String, Object>) o).get("name"))) {
                return (Map<String, Object>) o;
            }
        }
        throw new AssertionError("no class " + name);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> lastPoint(Map<String, Object> json) {
        List<Object> points = (List<Object>) ((Map<String, Object>) json.get("history")).get("points");
        return (Map<String, Object>) points.get(points.size() - 1);
    }

    /** What the JSON form writes for a number: three decimals. */
    private static double round(double v) {
        return Math.round(v * 1000) / 1000.0;
    }

    /** A {@link Periodic} whose tasks run when the test says, on the fake clock. */
    private static final class Periods implements Periodic {
        private final List<Map.Entry<Duration, Runnable>> tasks = new java.util.ArrayList<>();

        @Override
        public Cancellable schedule(Runnable task, Duration period) {
            Map.Entry<Duration, Runnable> t = Map.entry(period, task);
            tasks.add(t);
            return () -> tasks.remove(t);
        }

        void run(Duration period) {
            for (Map.Entry<Duration, Runnable> t : List.copyOf(tasks)) {
                if (t.getKey().equals(period)) {
                    t.getValue().run();
                }
            }
        }
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

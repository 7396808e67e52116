package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.metrics.QosMetrics;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.StreamsPolicy;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 22: probes and operations paths exempt from QoS by policy rules ({@code exempt.<n>.*}), and long-lived
 * requests (server-sent events, {@code streams.paths}): stream candidates that enter like any request and hold no
 * permit once their application went asynchronous ({@link Ticket#detach()}), never timed as service.
 */
class ExemptAndStreamsTest {

    private static final String BASE = """
            classes = basic
            max-executing = 1
            class.basic.max-queue = 1
            tier-cookie.secret = exempt-test-secret-0123456789
            """;
    private static final String PROBES = BASE + """
            exempt.1.paths = /health, /metrics
            exempt.1.methods = GET, HEAD
            exempt.2.paths = /qos/**
            exempt.2.addresses = 10.0.0.0/8
            """;

    private final FakeClock clock = new FakeClock();

    private Ticket enter(QosEngine engine, TestRequest r) {
        return engine.enter(r, clock.nanoTime());
    }

    private static TestRequest events(String path) {
        return TestRequest.get(path).header("Accept", "text/event-stream");
    }

    /** A stream as an adapter serves it: entered, run at once, and detached when its application went async. */
    private Ticket open(QosEngine engine, TestRequest r) {
        Ticket t = enter(engine, r);
        assertEquals(State.RUNNING, t.state(), "a permit is free: " + t);
        assertTrue(t.streamCandidate());
        assertFalse(t.stream(), "a candidate is no stream before it detaches");
        assertTrue(t.detach(), "detached: " + engine.snapshot());
        assertTrue(t.stream());
        assertEquals(State.RUNNING, t.state());
        return t;
    }

    private static void assertReconciles(QosEngine engine) {
        for (ClassStats c : engine.snapshot().classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }

    @Test
    void anExemptRequestRunsAtOnceWithEveryPermitBusyAndTheQueueFullAndIsCountedApart() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(PROBES), clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine, Tags.empty(), 0).bindTo(registry);
        Ticket running = enter(engine, TestRequest.get("/"));
        Ticket waiting = enter(engine, TestRequest.get("/"));
        Ticket full = enter(engine, TestRequest.get("/"));
        assertEquals(State.RUNNING, running.state());
        assertEquals(State.PARKED, waiting.state());
        assertEquals(Rejection.Reason.QUEUE_FULL, full.rejection().reason());

        List<Ticket> probes = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Ticket probe = enter(engine, TestRequest.get(i % 2 == 0 ? "/health" : "/metrics")
                    .method(i % 3 == 0 ? "HEAD" : "GET"));
            assertEquals(State.RUNNING, probe.state(), "probe " + i);
            assertTrue(probe.exempt());
            assertNull(probe.setCookieHeader(), "no admission cookie for an exempt request");
            assertNull(probe.serviceClass(), "in no class");
            assertEquals(1, probe.level());
            assertEquals(1, probe.levels(), "full content");
            assertNull(engine.contentPath(probe, TestRequest.get("/health")));
            probes.add(probe);
        }
        assertSame(probes.get(0), probes.get(99), "one shared ticket: nothing allocated");
        Ticket fromOps = enter(engine, TestRequest.get("/qos/status").from("10.1.2.3"));
        assertTrue(fromOps.exempt(), "every part of rule 2 matches");
        probes.forEach(Ticket::complete);
        probes.get(0).decline();
        assertEquals(State.RUNNING, fromOps.state(), "complete and decline change nothing of the shared ticket");

        // a rule matches only when every part it gives matches
        Ticket post = enter(engine, TestRequest.get("/health").method("POST"));
        assertEquals(Rejection.Reason.QUEUE_FULL, post.rejection().reason(), "POST is not a method of rule 1");
        Ticket outsider = enter(engine, TestRequest.get("/qos/status").from("192.0.2.7"));
        assertEquals(Rejection.Reason.QUEUE_FULL, outsider.rejection().reason(), "not an address of rule 2");

        EngineSnapshot s = engine.snapshot();
        assertEquals(101, s.exempt());
        ClassStats basic = s.get("basic");
        assertEquals(5, basic.entered(), "exempt requests are in no class");
        assertEquals(0, basic.completed());
        assertEquals(1, s.executing(), "exempt requests hold no permit");
        assertEquals(1, s.queued());
        assertEquals(101, registry.get("qos.exempt").functionCounter().count());
        assertReconciles(engine);
        running.complete();
        assertEquals(State.RUNNING, waiting.state(), "the queue moves as before");
    }

    @Test
    void theDefaultPolicyExemptsNothingAndStreamsServerSentEvents() {
        QosPolicy policy = ClassEscalationTest.parse(BASE);
        assertEquals(List.of(), policy.exempt());
        assertTrue(policy.streams().eventStream());
        assertEquals(List.of(), policy.streams().paths());
        assertEquals(StreamsPolicy.DEFAULT_MAX_OPEN, policy.streams().maxOpen());
        QosEngine engine = QosEngine.create(policy, clock);
        Ticket running = enter(engine, TestRequest.get("/"));
        Ticket health = enter(engine, TestRequest.get("/health"));
        assertFalse(health.exempt());
        assertEquals(State.PARKED, health.state(), "without an exempt rule a probe waits like any request");
        assertEquals(0, engine.snapshot().exempt());
        health.cancel();
        running.complete();
        assertReconciles(engine);
    }

    @Test
    void twoHundredStreamsTakeNoPermitDelayNobodyAndAreNeverTimedAsService() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse("""
                classes = basic
                max-executing = 4
                tier-cookie.secret = exempt-test-secret-0123456789
                """), clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine, Tags.empty(), 0).bindTo(registry);
        List<Ticket> streams = new ArrayList<>();
        List<String> sessions = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Ticket page = enter(engine, TestRequest.get("/page"));
            sessions.add(cookieValue(page.setCookieHeader()));
            page.complete();
        }
        for (int i = 0; i < 200; i++) {
            // half of them of admitted sessions, half without a cookie (a client that never loaded a page: it is
            // stateless, admitted by request, given no admission cookie, and counted in the pool's anonymous half)
            TestRequest r = events("/events");
            if (i % 2 == 0) {
                r.cookie("QOSSESSION", sessions.get(i / 2));
            }
            clock.advance(Duration.ofMillis(5)); // the stream's synchronous part, under its permit
            Ticket t = open(engine, r);
            assertEquals("basic", t.serviceClass());
            assertNull(t.setCookieHeader(), "stream " + i + ": " + t.setCookieHeader());
            streams.add(t);
        }
        assertEquals(200, registry.get("qos.streams.open").gauge().value());
        assertEquals(0, engine.snapshot().executing(), "200 detached streams hold none of the four permits");
        assertEquals(100, engine.snapshot().get("basic").sessionsAdmitted(), "the cookie-less streams made no session");

        // every other request still runs at once, on all four permits, and waits only for them
        for (int round = 0; round < 10; round++) {
            List<Ticket> ordinary = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Ticket t = enter(engine, TestRequest.get("/page").cookie("QOSSESSION", sessions.get(i)));
                assertEquals(State.RUNNING, t.state(), "round " + round + ", request " + i);
                ordinary.add(t);
            }
            Ticket fifth = enter(engine, TestRequest.get("/page"));
            assertEquals(State.PARKED, fifth.state(), "the four permits are the ordinary requests'");
            clock.advance(Duration.ofMillis(10));
            ordinary.forEach(Ticket::complete);
            assertEquals(State.RUNNING, fifth.state());
            clock.advance(Duration.ofMillis(10));
            fifth.complete();
        }
        EngineSnapshot open = engine.snapshot();
        assertEquals(200, open.streams());
        assertEquals(200, open.get("basic").streams());
        assertEquals(0, open.executing());
        assertReconciles(engine);

        clock.advance(Duration.ofMinutes(10)); // the streams were open for ten minutes
        streams.subList(0, 199).forEach(Ticket::complete);
        streams.get(199).decline();
        EngineSnapshot s = engine.snapshot();
        ClassStats basic = s.get("basic");
        assertEquals(0, s.streams());
        assertEquals(100 + 200 + 50 - 1, basic.completed());
        assertEquals(1, basic.declined());
        assertEquals(Duration.ofMillis(10 * 10).toNanos(), basic.waitNanos(),
                "only the fifth request of each round waited, for the other four: no stream delayed anyone");
        assertTrue(basic.serviceTimed() > 0, String.valueOf(basic));
        assertTrue(basic.serviceNanos() <= basic.serviceTimed() * Duration.ofMillis(20).toNanos(),
                "no stream's ten minutes in the service times: " + basic);
        long routeNanos = 0;
        for (long n : s.routes().nanos()) {
            routeNanos += n;
        }
        assertTrue(routeNanos < Duration.ofSeconds(1).toNanos(), "nor in the routes' service times");
        assertEquals(0, registry.get("qos.streams.open").gauge().value());
        assertReconciles(engine);
    }

    @Test
    void streamsBeyondMaxOpenAreRefused503AndCookieLessOnesTakeAtMostHalf() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(BASE.replace("max-executing = 1",
                "max-executing = 2") + "streams.max-open = 4\n"), clock);
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new QosMetrics(engine, Tags.empty(), 0).bindTo(registry);
        Ticket page = enter(engine, TestRequest.get("/"));
        String session = cookieValue(page.setCookieHeader());
        page.complete();

        List<Ticket> open = new ArrayList<>();
        open.add(open(engine, events("/a")));
        open.add(open(engine, events("/b")));
        Ticket third = enter(engine, events("/c"));
        assertEquals(State.REJECTED, third.state(), "cookie-less streams take at most half of streams.max-open");
        assertNull(third.setCookieHeader(), "refused before its session's admission");
        Ticket racing = enter(engine, events("/mine").cookie("QOSSESSION", session));
        assertEquals(State.RUNNING, racing.state(), "three of four open: it may enter");
        racing.complete(); // a long poll answered at once: it never went asynchronous, nor detached
        for (int i = 0; i < 2; i++) {
            open.add(open(engine, events("/mine").cookie("QOSSESSION", session)));
        }
        Ticket over = enter(engine, events("/mine").cookie("QOSSESSION", session));
        assertEquals(State.REJECTED, over.state());
        Rejection r = over.rejection();
        assertEquals(503, r.status());
        assertEquals(Rejection.Reason.STREAMS_FULL, r.reason());
        assertTrue(r.retryAfterSeconds() > 0);
        assertEquals(2, engine.snapshot().get("basic").streamsFull());
        assertEquals(2, registry.get("qos.rejections").tags("qos.class", "basic", "reason", "streams-full")
                .functionCounter().count());

        open.get(3).complete();
        Ticket late = enter(engine, events("/mine").cookie("QOSSESSION", session));
        assertEquals(State.RUNNING, late.state(), "a closed stream makes room");
        Ticket first = open(engine, events("/mine").cookie("QOSSESSION", session));
        assertEquals(4, engine.snapshot().streams());
        // late entered when there was room, but the pool filled before its application went asynchronous: it keeps
        // its permit, as any asynchronous request, until it completes; the bound holds
        assertFalse(late.detach(), "the pool filled meanwhile");
        assertFalse(late.stream());
        assertEquals(1, engine.snapshot().executing(), "late holds its permit");
        assertEquals(4, engine.snapshot().streams());
        late.complete();
        assertEquals(0, engine.snapshot().executing());
        assertEquals(State.RUNNING, enter(engine, TestRequest.get("/")).state(), "ordinary requests never wait "
                + "for streams");
        first.complete();
        assertReconciles(engine);
    }

    @Test
    void streamPathsAndTheSwitches() {
        QosEngine paths = QosEngine.create(ClassEscalationTest.parse(BASE
                + "streams.paths = /download/**, /poll\nstreams.event-stream = false\n"), clock);
        Ticket download = open(paths, TestRequest.get("/download/big.iso"));
        Ticket poll = open(paths, TestRequest.get("/poll"));
        Ticket sse = enter(paths, events("/events"));
        assertFalse(sse.streamCandidate(), "streams.event-stream = false");
        assertFalse(sse.detach(), "no candidate: an asynchronous request keeps its permit");
        assertEquals(1, paths.snapshot().executing());
        Ticket waiting = enter(paths, TestRequest.get("/poll"));
        assertTrue(waiting.streamCandidate());
        assertEquals(State.PARKED, waiting.state(), "a candidate waits for a permit like any request");
        assertFalse(waiting.detach(), "a waiting request cannot detach");
        sse.complete();
        assertEquals(State.RUNNING, waiting.state());
        assertTrue(waiting.detach());
        List.of(download, poll, waiting).forEach(Ticket::complete);
        assertEquals(3, paths.snapshot().get("basic").completed() - 1, "sse and the three streams");
        assertReconciles(paths);

        QosEngine off = QosEngine.create(ClassEscalationTest.parse(BASE + "streams.max-open = 0\n"
                + "streams.paths = /download/**\n"), clock);
        Ticket first = enter(off, events("/events"));
        assertFalse(first.streamCandidate(), "streams.max-open = 0: no stream pool, a stream is an ordinary request");
        assertEquals(State.RUNNING, first.state());
        assertFalse(first.detach());
        assertEquals(State.PARKED, enter(off, TestRequest.get("/download/x")).state());
    }

    @Test
    void aReloadThatRemovesAStreamsClassMovesItsOpenStreams() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse("""
                classes = premium, basic
                max-executing = 4
                tier-cookie.secret = exempt-test-secret-0123456789
                rule.1.type = ip
                rule.1.value = 192.0.2.0/24
                rule.1.class = premium
                """), clock);
        Ticket stream = open(engine, events("/events").from("192.0.2.9"));
        Ticket candidate = enter(engine, events("/events").from("192.0.2.10"));
        assertEquals("premium", stream.serviceClass());
        assertEquals(State.RUNNING, candidate.state());
        engine.reload(ClassEscalationTest.parse("""
                classes = basic
                max-executing = 4
                tier-cookie.secret = exempt-test-secret-0123456789
                """));
        assertEquals(1, engine.snapshot().get("basic").streams());
        assertEquals(1, engine.snapshot().get("basic").executing(), "the candidate's permit moved with it");
        assertReconciles(engine);
        assertTrue(candidate.detach(), "a candidate of the removed class detaches in the class that took it");
        assertEquals(2, engine.snapshot().get("basic").streams());
        assertEquals(0, engine.snapshot().executing());
        assertReconciles(engine);
        stream.complete();
        candidate.complete();
        assertEquals(0, engine.snapshot().streams());
        assertEquals(2, engine.snapshot().get("basic").completed());
        assertReconciles(engine);
    }

    @Test
    void aReloadedPolicyBringsItsExemptRulesAndStreamSettings() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(BASE), clock);
        Ticket running = enter(engine, TestRequest.get("/"));
        Ticket probe = enter(engine, TestRequest.get("/health"));
        assertEquals(State.PARKED, probe.state());
        QosPolicy next = ClassEscalationTest.parse(PROBES + "streams.max-open = 1\n");
        assertEquals(next, next.toBuilder().build(), "toBuilder keeps the exempt rules and stream settings");
        engine.reload(next);
        assertTrue(enter(engine, TestRequest.get("/health")).exempt());
        probe.cancel();
        running.complete();
        Ticket stream = open(engine, events("/events"));
        assertEquals(Rejection.Reason.STREAMS_FULL, enter(engine, events("/events")).rejection().reason(),
                "the reloaded streams.max-open");
        stream.complete();
        assertReconciles(engine);
    }

    @Test
    void aCandidateHoldsItsPermitUntilItDetachesAndIsEndedOnce() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(BASE), clock);
        Ticket candidate = enter(engine, events("/events"));
        assertEquals(State.RUNNING, candidate.state());
        assertTrue(candidate.streamCandidate());
        assertFalse(candidate.stream());
        assertNull(candidate.setCookieHeader(), "a cookie-less candidate is stateless, admitted by request: no cookie");
        Ticket page = enter(engine, TestRequest.get("/page"));
        assertEquals(State.PARKED, page.state(), "the candidate's synchronous part holds the one permit");
        assertEquals(0, engine.snapshot().streams());

        clock.advance(Duration.ofMillis(30));
        assertTrue(candidate.detach(), "its application went asynchronous");
        assertEquals(State.RUNNING, page.state(), "the permit went to the waiting page at once");
        assertFalse(candidate.detach(), "once");
        EngineSnapshot s = engine.snapshot();
        assertEquals(1, s.executing());
        assertEquals(1, s.streams());
        assertEquals(1, s.get("basic").streams());
        assertEquals(0, s.get("basic").serviceTimed(), "the candidate's 30 ms were not timed as service");
        assertReconciles(engine);

        Ticket next = enter(engine, TestRequest.get("/page"));
        assertEquals(State.PARKED, next.state());
        clock.advance(Duration.ofMinutes(5));
        candidate.complete();
        candidate.complete();
        candidate.decline();
        assertEquals(State.COMPLETED, candidate.state());
        assertEquals(State.PARKED, next.state(), "an ending stream gives back no permit: it held none");
        s = engine.snapshot();
        assertEquals(1, s.executing());
        assertEquals(0, s.streams());
        assertEquals(1, s.get("basic").completed());
        assertEquals(0, s.get("basic").serviceNanos(), "nor its five minutes");
        page.complete();
        assertEquals(State.RUNNING, next.state());
        next.decline();
        assertEquals(0, engine.snapshot().executing());
        assertReconciles(engine);
    }

    @Test
    void anEventStreamAcceptHeaderBypassesNothing() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(BASE), clock);
        Ticket running = enter(engine, TestRequest.get("/report"));
        assertEquals(State.RUNNING, running.state());
        // a client asks an expensive synchronous page for text/event-stream: it waits like any request
        Ticket sneaky = enter(engine, events("/report"));
        assertEquals(State.PARKED, sneaky.state(), "no permit without waiting for it");
        Ticket third = enter(engine, events("/report"));
        assertEquals(Rejection.Reason.QUEUE_FULL, third.rejection().reason(), "refused as any request is");
        assertEquals(0, engine.snapshot().get("basic").streamsFull());
        clock.advance(Duration.ofMillis(100));
        running.complete();
        assertEquals(State.RUNNING, sneaky.state(), "granted in its turn");
        Ticket after = enter(engine, TestRequest.get("/"));
        assertEquals(State.PARKED, after.state(), "the sneaky page holds the permit while it runs");
        clock.advance(Duration.ofMillis(200));
        sneaky.complete(); // the page answered on its thread: never detached, it held its permit throughout
        assertEquals(State.RUNNING, after.state());
        after.complete();
        EngineSnapshot s = engine.snapshot();
        ClassStats basic = s.get("basic");
        assertEquals(0, s.streams());
        assertEquals(3, basic.completed());
        assertEquals(2, basic.serviceTimed(), "both timed (requests waited)");
        assertEquals(Duration.ofMillis(300).toNanos(), basic.serviceNanos(), "the page's 200 ms are service time");
        assertReconciles(engine);
    }

    @Test
    void aRequestThatIsNoCandidateNeverDetaches() {
        QosEngine engine = QosEngine.create(ClassEscalationTest.parse(BASE), clock);
        Ticket async = enter(engine, TestRequest.get("/async"));
        assertFalse(async.streamCandidate());
        assertFalse(async.detach(), "an asynchronous page keeps its permit until it completes");
        assertEquals(State.PARKED, enter(engine, TestRequest.get("/")).state());
        assertEquals(0, engine.snapshot().streams());
        Ticket probe = QosEngine.create(ClassEscalationTest.parse(PROBES), clock).enter(TestRequest.get("/health"),
                clock.nanoTime());
        assertFalse(probe.detach(), "nor does an exempt request");
        async.complete();
        assertReconciles(engine);
    }

    @Test
    void badExemptAndStreamValuesFailAtStartNamingTheKeyAndTheValue() {
        assertFails("exempt.3.paths = health", BASE + "exempt.3.paths = health\n");
        assertFails("exempt.1.methods = GET, G T", BASE + "exempt.1.methods = GET, G T\n");
        assertFails("exempt.1.addresses = 10.0.0.300", BASE + "exempt.1.addresses = 10.0.0.300\n");
        assertFails("exempt.2.paths = (unset)", BASE + "exempt.2.paths =\n");
        assertFails("exempt.1.path = /health", BASE + "exempt.1.path = /health\n");
        assertFails("exempt.01.paths = /health", BASE + "exempt.01.paths = /health\n");
        assertFails("streams.max-open = -1", BASE + "streams.max-open = -1\n");
        assertFails("streams.max-open = 1000001", BASE + "streams.max-open = 1000001\n");
        assertFails("streams.paths = events", BASE + "streams.paths = events\n");
        assertFails("streams.event-stream = yes", BASE + "streams.event-stream = yes\n");
    }

    private static void assertFails(String expected, String policy) {
        PolicyException e = assertThrows(PolicyException.class, () -> ClassEscalationTest.parse(policy));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}

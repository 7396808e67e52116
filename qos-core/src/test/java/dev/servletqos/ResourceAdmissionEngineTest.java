package dev.servletqos;

import static dev.servletqos.Engines.policy;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Ticket.State;
import dev.servletqos.control.Sample;
import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import dev.servletqos.policy.VirtualServerPlan;
import dev.servletqos.policy.VirtualServerPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Token-bucket rules and virtual servers on the request path, on a fake clock. */
class ResourceAdmissionEngineTest {

    private final FakeClock clock = new FakeClock();

    private QosEngine bucketEngine() {
        return QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 10, ClassPolicy.named("basic"))
                .addBucket(BucketPolicy.onPaths("search", 2, 1, 2, "/search/*"))
                .addBucket(BucketPolicy.onCookie("export", 1, 0.5, 1, "EXPORT=1")).build(), clock);
    }

    private static TestRequest get(String path) {
        return TestRequest.get(path).header("X-Tier", "basic");
    }

    @Test
    void aRequestOverItsBucketIsRefusedWith503BeforeItIsClassified() {
        QosEngine engine = bucketEngine();
        long now = clock.nanoTime();
        Ticket a = engine.enter(get("/search/a"), now);
        Ticket b = engine.enter(get("/search/b"), now);
        Ticket c = engine.enter(get("/search/c"), now);
        assertEquals(State.RUNNING, a.state());
        assertEquals(State.RUNNING, b.state(), "the depth is 2");
        assertEquals(State.REJECTED, c.state());
        assertEquals(503, c.rejection().status());
        assertEquals(Rejection.Reason.BUCKET, c.rejection().reason());
        assertTrue(c.rejection().retryAfterSeconds() >= 8 && c.rejection().retryAfterSeconds() <= 13,
                "the policy's 10 s, jittered");
        assertNull(c.serviceClass(), "refused before it was classified");
        assertNull(c.setCookieHeader(), "and no session was admitted for it");
        assertEquals(State.RUNNING, engine.enter(get("/other"), now).state(), "a path no bucket covers");
        clock.advance(Duration.ofMillis(500));
        assertEquals(State.RUNNING, engine.enter(get("/search/d"), clock.nanoTime()).state(), "2/s: a token in 0.5 s");
        c.complete(); // a refused ticket has nothing to release
        EngineSnapshot s = engine.snapshot();
        assertEquals(new EngineSnapshot.BucketStats("search", 4, 1, 2, 2, 0), s.bucket("search"),
                "the token refilled in 0.5 s was taken");
        clock.advance(Duration.ofMillis(250));
        assertEquals(0.5, engine.snapshot().bucket("search").tokens(), 1e-9, "refilled at 2/s, read without taking");
        assertEquals(0.5, engine.snapshot().bucket("search").tokens(), 1e-9, "reading takes nothing");
        ClassStats basic = s.get("basic");
        assertEquals(4, basic.entered(), "the refused request is in no class");
        assertTrue(basic.reconciles());
    }

    @Test
    void aCookieBucketCoversTheRequestsWithThatCookie() {
        QosEngine engine = bucketEngine();
        long now = clock.nanoTime();
        assertEquals(State.RUNNING, engine.enter(get("/x").cookie("EXPORT", "1"), now).state());
        assertEquals(State.REJECTED, engine.enter(get("/x").cookie("EXPORT", "1"), now).state());
        assertEquals(State.RUNNING, engine.enter(get("/x").cookie("EXPORT", "2"), now).state(), "another value");
        assertEquals(State.RUNNING, engine.enter(get("/x"), now).state(), "no cookie");
    }

    @Test
    void ratesAreLiveSettingsClampedAtTheirMinimum() {
        QosEngine engine = bucketEngine();
        assertEquals(List.of(new Settings.BucketSettings("search", 2, 1, 2),
                new Settings.BucketSettings("export", 1, 0.5, 1)), engine.settings().buckets());
        engine.setBucketRate("search", 0.2);
        assertEquals(1, engine.settings().buckets().get(0).rate(), "clamped at the minimum");
        assertEquals(Settings.Source.OPERATOR, engine.settings().source());
        Settings s = engine.apply(engine.settings().withBucketRate(0, 50)
                .withBuckets(List.of(new Settings.BucketSettings("search", 50, 0, 99),
                        new Settings.BucketSettings("export", Double.NaN, 0, 1))), Settings.Source.CONTROLLER);
        assertEquals(new Settings.BucketSettings("search", 50, 1, 2), s.buckets().get(0),
                "the minimum and the depth stay the policy's");
        assertEquals(1, s.buckets().get(1).rate(), "NaN keeps the rate in force");
        assertEquals(50, engine.snapshot().bucket("search").rate(), "and the bucket runs at it");
        assertThrows(IllegalArgumentException.class, () -> engine.setBucketRate("nope", 3));
        assertThrows(IllegalArgumentException.class, () -> engine.apply(engine.settings().withBuckets(List.of()),
                Settings.Source.OPERATOR));
    }

    @Test
    void theControlLoopHandsTheBucketsHitsToTheLawAndAppliesItsRates() {
        QosEngine engine = bucketEngine();
        ManualPeriodic periodic = new ManualPeriodic();
        List<Sample> samples = new ArrayList<>();
        engine.start(periodic);
        engine.overrideControlLaw((sample, current) -> {
            samples.add(sample);
            return current.withBucketRate(0, 7);
        });
        for (int i = 0; i < 5; i++) {
            engine.enter(get("/search/x"), clock.nanoTime()).complete();
        }
        periodic.tick(clock, Duration.ofSeconds(1));
        assertEquals(List.of(new Sample.BucketSample("search", 5, 3, 2), new Sample.BucketSample("export", 0, 0, 1)),
                samples.get(0).buckets());
        assertEquals(7, engine.settings().buckets().get(0).rate());
        assertEquals(Settings.Source.CONTROLLER, engine.settings().source());
        engine.stop();
    }

    // ---- virtual servers

    /** One permit, a queue of one: a.example has a guarantee of 2/s, b.example none. */
    private QosEngine hostEngine() {
        return QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 1, ClassPolicy.named("basic").withMaxQueue(1))
                .addBucket(BucketPolicy.onPaths("all", 1, 1, 1, "/*"))
                .addVirtualServer(VirtualServerPolicy.of("a", 2, 1000, "a.example"))
                .virtualServerPlan(new VirtualServerPlan(0.1, 0.0001, 0.58)).build(), clock);
    }

    private static TestRequest on(String host) {
        return TestRequest.get("/page").header("X-Tier", "basic").host(host);
    }

    @Test
    void aGuaranteedRequestIsNeverRefusedAndStartsBeforeTheOthers() {
        QosEngine engine = hostEngine();
        long now = clock.nanoTime();
        Ticket b1 = engine.enter(on("b.example"), now);
        Ticket b2 = engine.enter(on("b.example"), now);
        assertEquals(State.RUNNING, b1.state());
        assertEquals(State.REJECTED, b2.state(), "b.example's second request is over the bucket");
        assertEquals(Rejection.Reason.BUCKET, b2.rejection().reason());
        clock.advance(Duration.ofSeconds(1));
        now = clock.nanoTime();
        Ticket b3 = engine.enter(on("b.example"), now);
        assertEquals(State.PARKED, b3.state(), "the one permit is b1's");
        assertEquals(State.REJECTED, engine.enter(on("b.example"), now).state());
        Ticket a1 = engine.enter(on("a.example"), now);
        Ticket a2 = engine.enter(on("a.example"), now);
        assertEquals(State.PARKED, a1.state(), "not refused by the bucket, nor by the full queue");
        assertEquals(State.PARKED, a2.state());
        assertTrue(a1.guaranteed() && !b3.guaranteed());
        assertNotNull(a1.setCookieHeader(), "a new session within the guarantee is admitted");
        Engines.Recorder r = new Engines.Recorder();
        a1.await(r);
        a2.await(r);
        b3.await(r);
        b1.complete();
        assertEquals(List.of(a1), r.granted, "the guaranteed request takes the freed permit before b3");
        a1.complete(600);
        a2.complete();
        assertEquals(List.of(a1, a2, b3), r.granted);
        b3.complete();
        Ticket a3 = engine.enter(on("a.example"), clock.nanoTime());
        assertEquals(State.REJECTED, a3.state(), "beyond 2/s a.example's requests are like any other");
        assertFalse(a3.guaranteed());
        EngineSnapshot s = engine.snapshot();
        assertEquals(new EngineSnapshot.HostStats("a", 3, 2, 600), s.host("a"));
        assertTrue(s.get("basic").reconciles());
    }

    @Test
    void theByteGuaranteeIsSpentByTheGuaranteedResponses() {
        QosEngine engine = hostEngine();
        Ticket a1 = engine.enter(on("a.example"), clock.nanoTime());
        assertTrue(a1.guaranteed());
        a1.complete(5000); // five seconds of a's 1000 bytes/s
        Ticket a2 = engine.enter(on("a.example"), clock.nanoTime());
        assertFalse(a2.guaranteed(), "the byte credit is spent");
        a2.complete();
        clock.advance(Duration.ofSeconds(5));
        Ticket a3 = engine.enter(on("a.example"), clock.nanoTime());
        assertTrue(a3.guaranteed(), "refilled at wmax");
        a3.complete();
    }

    @Test
    void aGuaranteedRequestIsServedAtFullContentWhileItsClassIsDegradedToRefusal() {
        QosEngine engine = QosEngine.create(policy(Scheduling.STRICT_PRIORITY, 4,
                ClassPolicy.named("basic").withLevels(3))
                .addVirtualServer(VirtualServerPolicy.of("a", 2, 1000, "a.example"))
                .virtualServerPlan(new VirtualServerPlan(0.1, 0, 0.58)).build(), clock);
        engine.update(s -> s.withClass(0, s.get(0).withLevel(0)));
        Ticket b = engine.enter(on("b.example"), clock.nanoTime());
        assertEquals(State.REJECTED, b.state(), "level 0 refuses b.example's new session");
        Ticket a = engine.enter(on("a.example"), clock.nanoTime());
        assertEquals(State.RUNNING, a.state(), "a.example's, within its guarantee, is admitted");
        assertEquals(3, a.level(), "at full content: another host's load does not degrade it");
        a.complete();
    }
}

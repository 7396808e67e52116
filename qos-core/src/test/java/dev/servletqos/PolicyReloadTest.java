package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reloading the policy of a running engine: whole and at once, nothing dropped, a bad policy changes nothing. */
class PolicyReloadTest {

    private static final String THREE = """
            classes = premium, silver, basic
            default-class = basic
            max-executing = 1
            tier-cookie.secret = test-secret-0123456789abcdef
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            rule.1.trusted = true
            rule.2.type = header
            rule.2.header = X-Tier
            rule.2.value = silver
            rule.2.class = silver
            rule.2.trusted = true
            class.basic.max-wait = 10s
            """;

    /** Silver is gone; basic waits longer; a new class gold on top; two permits. */
    private static final String TWO = """
            classes = gold, premium, basic
            default-class = basic
            max-executing = 2
            tier-cookie.secret = test-secret-0123456789abcdef
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            rule.1.trusted = true
            rule.2.type = header
            rule.2.header = X-Tier
            rule.2.value = gold
            rule.2.class = gold
            rule.2.trusted = true
            class.gold.budget = 0
            class.premium.budget = 1
            class.basic.budget = 1
            class.basic.max-wait = 20s
            """;

    private final FakeClock clock = new FakeClock();

    private static QosPolicy parse(String text) {
        return PolicyParser.read(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "test policy",
                Map.of());
    }

    private Ticket enter(QosEngine engine, String tier) {
        clock.advance(Duration.ofMillis(1));
        TestRequest r = TestRequest.get("/");
        return engine.enter(tier == null ? r : r.header("X-Tier", tier), clock.nanoTime());
    }

    private static void reconciles(QosEngine engine) {
        for (ClassStats c : engine.snapshot().classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }

    @Test
    void waitingRequestsKeepTheirPlaceAndARemovedClassesAreServedAsTheDefaultClassNeverDropped() {
        QosEngine engine = QosEngine.create(parse(THREE), clock);
        Ticket running = enter(engine, "silver");
        Ticket silver1 = enter(engine, "silver");
        Ticket basic1 = enter(engine, null);
        Ticket silver2 = enter(engine, "silver");
        Ticket premium1 = enter(engine, "premium");
        Ticket premium2 = enter(engine, "premium");
        assertEquals(Ticket.State.RUNNING, running.state());
        List<String> order = new ArrayList<>();
        for (Ticket t : List.of(silver1, basic1, silver2, premium1, premium2)) {
            assertEquals(Ticket.State.PARKED, t.state());
            t.await(new Ticket.Listener() {
                @Override
                public void granted(Ticket g) {
                    order.add(g == silver1 ? "silver1" : g == basic1 ? "basic1" : g == silver2 ? "silver2"
                            : g == premium1 ? "premium1" : "premium2");
                }

                @Override
                public void expired(Ticket e) {
                    order.add("expired");
                }
            });
        }

        engine.reload(parse(TWO));

        EngineSnapshot s = engine.snapshot();
        assertEquals(List.of("gold", "premium", "basic"), s.classes().stream().map(ClassStats::name).toList());
        assertEquals(2, s.maxExecuting(), "the new policy's settings are in force");
        assertEquals(Settings.Source.POLICY, engine.settings().source());
        // the second permit went at once to premium (budget 1), the first in its queue
        assertEquals(List.of("premium1"), order);
        assertEquals(1, s.get("premium").queued(), "premium2 keeps its place");
        assertEquals(3, s.get("basic").queued(), "silver's two joined basic's queue");
        assertEquals(1, s.get("basic").executing(), "silver's running request counts as basic's");
        assertEquals(2, s.executing());
        reconciles(engine);
        assertEquals("basic", silver1.serviceClass());
        assertEquals(Duration.ofSeconds(20).toNanos(), silver1.maxWaitNanos(), "basic's rules from now");

        running.complete(); // silver's permit goes back to basic: basic's first by arrival runs
        premium1.complete(); // premium2 runs
        assertEquals(List.of("premium1", "silver1", "premium2"), order);
        silver1.complete();
        premium2.complete();
        assertEquals(List.of("premium1", "silver1", "premium2", "basic1", "silver2"), order,
                "silver1 and silver2 were merged with basic1 in arrival order");
        basic1.complete();
        silver2.complete();
        EngineSnapshot end = engine.snapshot();
        assertEquals(0, end.executing());
        assertEquals(0, end.queued());
        reconciles(engine);
        assertEquals(4, end.get("basic").completed(), "basic1, silver1, silver2 and the silver that ran");
        assertEquals(0, end.get("basic").expired() + end.get("basic").cancelled() + end.get("basic").rejected());
    }

    @Test
    void aRemovedClassesWaitingRequestsExpireAtTheDefaultClasssMaximumWait() {
        QosEngine engine = QosEngine.create(parse(THREE), clock);
        Ticket running = enter(engine, null);
        Ticket silver = enter(engine, "silver");
        engine.reload(parse(TWO.replace("max-executing = 2", "max-executing = 1")
                .replace("class.premium.budget = 1", "class.premium.budget = 0")));
        clock.advance(Duration.ofSeconds(15));
        assertEquals(0, engine.expireOverdue(clock.nanoTime()), "silver's own 10 s no longer apply; basic's 20 s do");
        clock.advance(Duration.ofSeconds(6));
        assertEquals(1, engine.expireOverdue(clock.nanoTime()));
        assertEquals(Ticket.State.EXPIRED, silver.state());
        running.complete();
        reconciles(engine);
    }

    @Test
    void anAdmittedSessionOfARemovedClassGoesOnInTheDefaultClassAndAKeptClassKeepsItsSessions() {
        QosEngine engine = QosEngine.create(parse(THREE), clock);
        Ticket s = enter(engine, "silver");
        String silverSession = cookieValue(s.setCookieHeader());
        s.complete();
        Ticket p = enter(engine, "premium");
        String premiumSession = cookieValue(p.setCookieHeader());
        p.complete();

        engine.reload(parse(TWO));

        Ticket again = engine.enter(TestRequest.get("/").cookie("QOSSESSION", silverSession), clock.nanoTime());
        assertEquals("basic", again.serviceClass());
        again.complete();
        Ticket premium = engine.enter(TestRequest.get("/").cookie("QOSSESSION", premiumSession), clock.nanoTime());
        assertEquals("premium", premium.serviceClass(), "premium's index moved from 0 to 1: found by name");
        premium.complete();
        assertEquals(1, engine.snapshot().get("premium").sessionsAdmitted(), "an admitted session is not admitted "
                + "again");
        Ticket gold = enter(engine, "gold");
        assertEquals("gold", gold.serviceClass(), "the new rule classifies");
        reconciles(engine);
    }

    @Test
    void aPolicyThatDoesNotParseOrValidateIsRefusedWithTheReasonAndTheOldOneKeepsRunning() {
        QosEngine engine = QosEngine.create(parse(THREE), clock);
        AtomicReference<String> file = new AtomicReference<>(THREE.replace("max-executing = 1",
                "max-executing = -3"));
        engine.reloadFrom(() -> parse(file.get()));
        QosPolicy before = engine.policy();
        Settings settings = engine.settings();

        PolicyException bad = assertThrows(PolicyException.class, engine::reloadPolicy);
        assertTrue(bad.getMessage().contains("max-executing") && bad.getMessage().contains("-3"), bad.getMessage());
        file.set(THREE.replace("default-class = basic", "default-class = platinum"));
        bad = assertThrows(PolicyException.class, engine::reloadPolicy);
        assertTrue(bad.getMessage().contains("default-class") && bad.getMessage().contains("platinum"),
                bad.getMessage());
        file.set(THREE + "session-cookie.name = OTHER\n");
        bad = assertThrows(PolicyException.class, engine::reloadPolicy);
        assertEquals("session-cookie.name", bad.key(), bad.getMessage());
        assertTrue(bad.getMessage().contains("OTHER") && bad.getMessage().contains("restart"), bad.getMessage());
        file.set(THREE.replace("tier-cookie.secret = test-secret-0123456789abcdef",
                "tier-cookie.secret = another-secret-0123456789abcdef"));
        bad = assertThrows(PolicyException.class, engine::reloadPolicy);
        assertEquals("tier-cookie.secret", bad.key());
        assertTrue(!bad.getMessage().contains("another-secret"), "the secret is not shown: " + bad.getMessage());

        assertSame(before, engine.policy(), "the old policy keeps running");
        assertEquals(settings, engine.settings());
        Ticket t = enter(engine, "silver");
        assertEquals("silver", t.serviceClass());
        t.complete();

        file.set(TWO);
        assertEquals(List.of("gold", "premium", "basic"), engine.reloadPolicy().classes().stream()
                .map(c -> c.name()).toList());
        assertEquals(2, engine.settings().maxExecuting());
    }

    @Test
    void anEngineBuiltFromAPolicyObjectRefusesToReloadSayingWhy() {
        QosEngine engine = QosEngine.create(parse(THREE), clock);
        IllegalStateException e = assertThrows(IllegalStateException.class, engine::reloadPolicy);
        assertTrue(e.getMessage().contains("built from a policy object"), e.getMessage());
    }

    @Test
    void theControlLoopFollowsTheNewClassesAndOperatorsSeeThem() {
        QosEngine engine = QosEngine.create(parse(THREE + "control.mode = absolute\ncontrol.period = 1s\n"), clock);
        ManualPeriodic periodic = new ManualPeriodic();
        engine.start(periodic);
        List<QosPolicy> heard = new ArrayList<>();
        engine.onReload(heard::add);
        Ticket t = enter(engine, "silver");
        periodic.tick(clock, Duration.ofSeconds(1));
        t.complete();

        engine.reload(parse(TWO + "control.mode = absolute\ncontrol.period = 2s\n"));
        assertEquals(1, heard.size());
        assertEquals(List.of("gold", "premium", "basic"), heard.get(0).classes().stream().map(c -> c.name()).toList());
        periodic.tick(clock, Duration.ofSeconds(2));
        enter(engine, "premium").complete();
        periodic.tick(clock, Duration.ofSeconds(2));
        ControlStatus status = engine.controlStatus();
        assertEquals(0, status.failures(), String.valueOf(status.lastFailure()));
        assertEquals(2, status.periods() - 1, "two periods of the new 2 s after one of 1 s");
        assertEquals(List.of("gold", "premium", "basic"), status.classes().stream()
                .map(ControlStatus.Reading::name).toList());
        engine.setBudget("gold", 1);
        assertEquals(1, engine.settings().get(0).budget());
        engine.stop();
    }

    @Test
    void withPolicyWatchTheStartedEngineReloadsTheFileWhenItChangesAndKeepsTheOldPolicyForABadOne(
            @TempDir Path dir) throws Exception {
        Path file = dir.resolve("qos.properties");
        Files.writeString(file, THREE + "policy.watch = 2s\n");
        QosEngine engine = QosEngine.create(PolicyParser.load(file), clock);
        engine.reloadFrom(() -> PolicyParser.load(file), file);
        ManualPeriodic periodic = new ManualPeriodic();
        engine.start(periodic);
        assertEquals(1, periodic.live(Duration.ofSeconds(2)).size(), "the watch runs every 2 s");
        FileTime t = Files.getLastModifiedTime(file);

        periodic.tick(clock, Duration.ofSeconds(2));
        assertEquals(1, engine.settings().maxExecuting(), "an unchanged file is not reloaded");

        Files.writeString(file, THREE.replace("max-executing = 1", "max-executing = many") + "policy.watch = 2s\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(t.toMillis() + 1000));
        periodic.tick(clock, Duration.ofSeconds(2));
        assertEquals(List.of("premium", "silver", "basic"), engine.policy().classes().stream().map(c -> c.name())
                .toList(), "a file that does not load changes nothing");

        Files.writeString(file, TWO + "policy.watch = 2s\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(t.toMillis() + 2000));
        periodic.tick(clock, Duration.ofSeconds(2));
        assertEquals(List.of("gold", "premium", "basic"), engine.policy().classes().stream().map(c -> c.name())
                .toList());
        assertEquals(2, engine.settings().maxExecuting());

        Files.writeString(file, TWO + "policy.watch = 0s\n");
        Files.setLastModifiedTime(file, FileTime.fromMillis(t.toMillis() + 3000));
        periodic.tick(clock, Duration.ofSeconds(2));
        assertEquals(Duration.ZERO, engine.policy().watch());
        assertEquals(0, periodic.live(Duration.ofSeconds(2)).size(), "a file that says 0s stops the watch");
        engine.stop();
    }

    @Test
    void aReloadKeepsTheCeilingTheContainersThreadsAllow() {
        String auto = THREE.replace("max-executing = 1\n", "") + "control.capacity = auto\n";
        QosEngine engine = QosEngine.create(parse(auto), clock);
        assertEquals(14, engine.fitToThreads(16), "16 threads less an eighth, at least 2");
        engine.reload(parse(auto.replace("class.basic.max-wait = 10s", "class.basic.max-wait = 12s")));
        assertEquals(14, engine.settings().ceiling(), "not the policy's 200 again");
        assertTrue(engine.settings().maxExecuting() <= 14, engine.settings().toString());
    }

    /** THREE with a token-bucket rule on a cookie. */
    private static final String EXPORT = THREE + """
            bucket.export.cookie = EXPORT=1
            bucket.export.rate = 10
            bucket.export.min-rate = 1
            """;

    private Ticket enterPath(QosEngine engine, String path) {
        clock.advance(Duration.ofMillis(1));
        return engine.enter(TestRequest.get(path), clock.nanoTime());
    }

    @Test
    void aReloadThatAddsABucketPutsItsRuleInForceAtOnceAndAnUnchangedBucketKeepsItsLiveRate() {
        QosEngine engine = QosEngine.create(parse(EXPORT), clock);
        engine.setBucketRate("export", 3);
        Ticket running = enter(engine, null);
        Ticket search0 = enterPath(engine, "/search/a");
        Ticket premium = enter(engine, "premium");
        assertEquals(Ticket.State.PARKED, search0.state(), "no rule covers /search yet");
        assertEquals(Ticket.State.PARKED, premium.state());

        String withSearch = EXPORT + """
                bucket.search.path = /search/*
                bucket.search.rate = 1
                bucket.search.depth = 1
                """;
        engine.reload(parse(withSearch));

        assertEquals(List.of("export", "search"), engine.settings().buckets().stream()
                .map(Settings.BucketSettings::name).toList());
        assertEquals(3, engine.settings().buckets().get(0).rate(), "export's rule is the same: its live rate stays");
        assertEquals(1, engine.settings().buckets().get(1).rate());
        Ticket search1 = enterPath(engine, "/search/b");
        Ticket search2 = enterPath(engine, "/search/c");
        assertEquals(Ticket.State.PARKED, search1.state(), "it took the new bucket's one token");
        assertEquals(Ticket.State.REJECTED, search2.state());
        assertEquals(Rejection.Reason.BUCKET, search2.rejection().reason());
        assertEquals(null, search2.serviceClass(), "refused before it had a class");
        EngineSnapshot.BucketStats b = engine.snapshot().bucket("search");
        assertEquals(2, b.hits());
        assertEquals(1, b.refused());
        assertEquals(Ticket.State.PARKED, search0.state(), "a request waiting before the reload keeps its place");
        reconciles(engine);

        running.complete(); // premium first, then the basic requests in their order
        assertEquals(Ticket.State.RUNNING, premium.state());
        premium.complete();
        assertEquals(Ticket.State.RUNNING, search0.state());
        search0.complete();
        assertEquals(Ticket.State.RUNNING, search1.state());
        search1.complete();

        engine.setBucketRate("search", 5);
        engine.reload(parse(withSearch.replace("bucket.export.rate = 10", "bucket.export.rate = 20")));
        assertEquals(20, engine.settings().buckets().get(0).rate(), "export's rule changed: the new policy's rate");
        assertEquals(5, engine.settings().buckets().get(1).rate(), "search's rule is the same: its live rate stays");
        assertEquals(2, engine.snapshot().bucket("search").hits(), "a kept bucket counts on");
        engine.reload(parse(THREE));
        assertEquals(List.of(), engine.settings().buckets());
        assertEquals(Ticket.State.RUNNING, enterPath(engine, "/search/d").state(), "no bucket covers it any more");
        reconciles(engine);
    }

    /** THREE with content levels (silver's three, the others two) and both caps. */
    private static final String LEVELS = THREE + """
            class.premium.levels = 2
            class.silver.levels = 3
            class.basic.levels = 2
            admission.max-per-session = 2
            admission.max-queued-per-address = 1
            """;

    /** TWO (no silver) on one permit, with levels: basic's the same, premium's three now, gold's two. */
    private static final String LEVELS_AFTER = TWO.replace("max-executing = 2", "max-executing = 1")
            .replace("class.premium.budget = 1", "class.premium.budget = 0") + """
            class.gold.levels = 2
            class.premium.levels = 3
            class.basic.levels = 2
            admission.max-per-session = 2
            admission.max-queued-per-address = 1
            """;

    @Test
    void aReloadThatRemovesAClassWithLevelsMovesItsRequestsWithinTheDefaultClasssLevelsAndKeepsTheCountsOfTheCaps() {
        QosEngine engine = QosEngine.create(parse(LEVELS), clock);
        engine.update(s -> s.withClass(0, s.get(0).withLevel(1)).withClass(1, s.get(1).withLevel(2.5))
                .withClass(2, s.get(2).withLevel(1.5)));
        Ticket running = engine.enter(TestRequest.get("/").header("X-Tier", "silver").from("10.0.0.1"),
                clock.nanoTime());
        assertEquals(Ticket.State.RUNNING, running.state());
        String session = cookieValue(running.setCookieHeader());
        clock.advance(Duration.ofMillis(1));
        Ticket parked = engine.enter(TestRequest.get("/").cookie("QOSSESSION", session).from("10.0.0.1"),
                clock.nanoTime());
        assertEquals(Ticket.State.PARKED, parked.state());
        assertEquals("silver", parked.serviceClass());
        assertEquals(3, parked.levels());
        assertTrue(parked.level() == 2 || parked.level() == 3, "silver at 2.5: " + parked.level());
        assertEquals(running.level(), parked.level(), "one session, one level");

        engine.reload(parse(LEVELS_AFTER));

        Settings s = engine.settings();
        assertEquals(2, s.get(0).level(), "gold is new: full content");
        assertEquals(3, s.get(1).levels());
        assertEquals(3, s.get(1).level(), "premium's levels changed: the new policy's level, not the 1 in force");
        assertEquals(1.5, s.get(2).level(), "basic stays with two levels: its level stays");
        assertEquals(Ticket.State.PARKED, parked.state(), "the one permit is still silver's running request's");
        assertEquals("basic", parked.serviceClass());
        assertEquals(2, parked.levels());
        assertEquals(2, parked.level(), "its level 2 or 3 of silver's, within basic's two");
        Invariants invariants = new Invariants(engine.policy(), engine.snapshot());
        invariants.check(engine.snapshot(), "after the reload");

        // the session's two requests in flight and the address's waiting one are still counted
        clock.advance(Duration.ofMillis(1));
        Ticket third = engine.enter(TestRequest.get("/").cookie("QOSSESSION", session).from("10.0.0.2"),
                clock.nanoTime());
        // issue 22: it waited for a 429 (session-limit); now it waits in the session's line
        assertEquals(Ticket.State.PARKED, third.state());
        assertEquals(1, engine.snapshot().get("basic").lined(), "the session has two in flight: it waits in its line");
        clock.advance(Duration.ofMillis(1));
        // issue 22: an admitted session's request (a credential) is never counted by its address, and the queue is
        // not scarce: a new session from the same address waits
        Ticket sameAddress = engine.enter(TestRequest.get("/").from("10.0.0.1"), clock.nanoTime());
        assertEquals(Ticket.State.PARKED, sameAddress.state());
        assertTrue(sameAddress.cancel());
        assertEquals(0, engine.snapshot().get("basic").sessionLimited(), "the third waits in its line: no refusal");
        assertEquals(0, engine.snapshot().get("basic").addressLimited());
        invariants.check(engine.snapshot(), "after the refusals");

        running.complete(); // silver's permit, now basic's, goes to the waiting request
        assertEquals(Ticket.State.RUNNING, parked.state());
        invariants.check(engine.snapshot(), "the moved request runs");
        clock.advance(Duration.ofMillis(1));
        Ticket waitsAgain = engine.enter(TestRequest.get("/").from("10.0.0.1"), clock.nanoTime());
        assertEquals(Ticket.State.PARKED, waitsAgain.state(), "10.0.0.1 has nothing waiting any more");
        parked.complete();
        assertEquals(Ticket.State.RUNNING, third.state(), "the session's line moved on as its first ended");
        invariants.check(engine.snapshot(), "the line moved on");
        third.complete();
        waitsAgain.complete();
        clock.advance(Duration.ofMillis(1));
        Ticket later = engine.enter(TestRequest.get("/").cookie("QOSSESSION", session).from("10.0.0.1"),
                clock.nanoTime());
        assertEquals(Ticket.State.RUNNING, later.state(), "the session has nothing in flight any more");
        assertEquals("basic", later.serviceClass());
        assertTrue(later.level() == 1 || later.level() == 2, "basic at 1.5: " + later.level());
        later.complete();

        EngineSnapshot end = engine.snapshot();
        invariants.check(end, "at the end");
        assertEquals(0, end.executing() + end.queued());
        ClassStats basic = end.get("basic");
        assertEquals(5, basic.completed(), "silver's two, the session's third, the address's and the session's last");
        assertTrue(basic.completedAtLevel(2) >= 2, "silver's two at level 2 or 3 count at basic's 2: "
                + java.util.Arrays.toString(basic.completedByLevel()));
        reconciles(engine);
    }

    @Test
    void theControlLoopRebuildsItsDegradationLawFromTheReloadedPolicy() {
        String levels = "class.premium.levels = 2\nclass.basic.levels = 2\ncontrol.period = 1s\n";
        QosEngine engine = QosEngine.create(parse(THREE + levels), clock);
        ManualPeriodic periodic = new ManualPeriodic();
        engine.start(periodic);
        engine.useSampleSource(new dev.servletqos.control.EngineSampleSource(engine, () -> 0.95));
        periodic.tick(clock, Duration.ofSeconds(1));
        assertEquals(null, engine.controlStatus().utilization(), "no degradation law yet");

        engine.reload(parse(TWO + levels + """
                control.degradation = threshold
                control.utilization.source = cpu
                control.threshold.interval = 1s
                """));
        for (int i = 0; i < 10 && engine.settings().get(2).level() == 2; i++) {
            periodic.tick(clock, Duration.ofSeconds(1));
        }
        dev.servletqos.control.UtilizationStatus u = engine.controlStatus().utilization();
        assertEquals("threshold", u.law());
        assertEquals(List.of("gold", "premium", "basic"), u.classes().stream()
                .map(dev.servletqos.control.UtilizationStatus.ClassLevel::name).toList());
        assertEquals(1, engine.settings().get(2).level(), "a CPU at 0.95 degrades basic, the lowest class");
        assertEquals(2, engine.settings().get(1).level());
        assertEquals(0, engine.controlStatus().failures(), String.valueOf(engine.controlStatus().lastFailure()));

        engine.reload(parse(TWO + levels));
        periodic.tick(clock, Duration.ofSeconds(1));
        assertEquals(null, engine.controlStatus().utilization(), "the reloaded policy runs no degradation law");
        assertEquals(1, engine.settings().get(2).level(), "basic stays with two levels: its level stays");
        engine.stop();
    }

    @Test
    void aReloadPutsNewCredentialsAndRequestRulesInForce() {
        String untrusted = """
                classes = premium, basic
                default-class = basic
                max-executing = 4
                tier-cookie.secret = test-secret-0123456789abcdef
                rule.1.type = header
                rule.1.header = X-Tier
                rule.1.value = premium
                rule.1.class = premium
                """;
        QosEngine engine = QosEngine.create(parse(untrusted), clock);
        Ticket before = enter(engine, "premium");
        assertEquals("basic", before.serviceClass(), "a header rule not trusted gives no session its class");
        before.complete();

        engine.reload(parse(untrusted + """
                rule.1.trusted = true
                rule.2.type = path
                rule.2.value = /cheap/*
                rule.2.class = basic
                """));

        Ticket first = enter(engine, "premium");
        assertEquals("premium", first.serviceClass(), "the header is a credential now");
        String session = cookieValue(first.setCookieHeader());
        first.complete();
        clock.advance(Duration.ofMillis(1));
        Ticket cheap = engine.enter(TestRequest.get("/cheap/a").cookie("QOSSESSION", session), clock.nanoTime());
        assertEquals("basic", cheap.serviceClass(), "the new request rule lowers this one request");
        cheap.complete();
        clock.advance(Duration.ofMillis(1));
        Ticket again = engine.enter(TestRequest.get("/").cookie("QOSSESSION", session), clock.nanoTime());
        assertEquals("premium", again.serviceClass(), "the session keeps its class");
        again.complete();
        reconciles(engine);
    }
}

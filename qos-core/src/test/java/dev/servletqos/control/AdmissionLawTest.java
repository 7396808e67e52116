package dev.servletqos.control;

import static dev.servletqos.control.Fixtures.cls;
import static dev.servletqos.control.Fixtures.settings;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The admission law on hand-typed one-second periods: a limit of 20 permits, premium (250 ms) above basic (1 s),
 * sessions of 12 requests of 50 ms, so one session holds 0.6 permit-seconds and the server completes 33.3
 * sessions a second.
 */
class AdmissionLawTest {

    private static final int LIMIT = 20;
    private static final double SERVICE = 0.05;
    private static final double REQUESTS = 12;
    /** A delay well under both targets. */
    private static final double LOW_DELAY = 0.02;

    private final AdmissionLaw law = new AdmissionLaw(java.util.Map.of());
    private Settings settings = settings(LIMIT, 0.95, cls("premium", 10, 1, 0.25), cls("basic", 10, 1, 1.0));

    @Test
    void theClassBelowGetsWhatThePermitsTheClassAboveHoldsLeave() {
        warmUp();
        // premium holds 4 x 0.6 = 2.4 permits and wants no more; basic may use the other 17.6
        assertEquals(LIMIT / (SERVICE * REQUESTS), rate(0), 1e-9, "premium: the whole server");
        assertEquals((LIMIT - 4 * SERVICE * REQUESTS) / (SERVICE * REQUESTS), rate(1), 1e-9, "basic");
    }

    @Test
    void aClassAboveThatStartsRefusingLeavesNoRoomBelowAlthoughItsPermitsAreStillFew() {
        warmUp();
        // a crowd of premium sessions, twice what the server completes: 70 a second arrive, its rate admits 33;
        // the permits premium holds are still those of its earlier sessions, as a session brings its requests
        // over its whole visit
        next(new ClassSample("premium", 10, 4 * REQUESTS + 70, 4 * REQUESTS, 4 * REQUESTS, 0, LOW_DELAY,
                        waits(LOW_DELAY), SERVICE, 0, 4 * SERVICE * REQUESTS, 0.12, 0, 3, 33, 37),
                period("basic", 10, 0));
        assertTrue(rate(0) >= LIMIT / (SERVICE * REQUESTS), "premium keeps the whole server: " + rate(0));
        assertEquals(AdmissionLaw.MIN_RATE, rate(1), 1e-12, "basic is left the least rate, not 29 a second");
    }

    /**
     * Basic refused sessions while the permits were idle: the law lets it fill them at once, 1.5 times the
     * feed-forward. Then a quiet spell, no session at all: the boost ends and the rate is the feed-forward again.
     * Kept, it met the next step at 1.5 times the server's rate (on the realism suite 86 basic sessions in the
     * first second of a step to 4x, three seconds of the back end's work).
     */
    @Test
    void aQuietSpellEndsTheBoostThatFillsIdlePermits() {
        warmUp();
        double feedForward = rate(1);
        ClassSample idle = period("basic", 2, 5);
        next(period("premium", 0, 0), idle);
        assertEquals(AdmissionLaw.U_MAX * (LIMIT / (SERVICE * REQUESTS)), rate(1), 0.5, "refusing on idle permits");
        next(period("premium", 0, 0), period("basic", 0, 0));
        assertTrue(rate(1) <= 1.1 * LIMIT / (SERVICE * REQUESTS), "after a quiet second: " + rate(1)
                + "; before the refusals " + feedForward);
    }

    @Test
    void aClassAboveRefusingFewerThanItsRateLeavesTheRestBelow() {
        warmUp();
        // premium's queue guard refused 2 of 6 sessions in a burst: it wants 6 a second, 3.6 permits
        next(new ClassSample("premium", 10, 4 * REQUESTS + 2, 4 * REQUESTS, 4 * REQUESTS, 0, LOW_DELAY,
                        waits(LOW_DELAY), SERVICE, 0, 4 * SERVICE * REQUESTS, 0.12, 0, 3, 4, 2),
                period("basic", 10, 0));
        assertEquals((LIMIT - 6 * SERVICE * REQUESTS) / (SERVICE * REQUESTS), rate(1), 0.05, "basic");
    }

    /**
     * Premium's queue guard refuses every new session for three periods while the queue a slower back end left
     * drains (its delay four times the target): the rate did not limit premium, so its factor stays where it was.
     * Before, the factor fell by a fifth a period on that delay, and once the queue had drained the few sessions
     * it admitted left the server idle for a visit.
     */
    @Test
    void aDelayWhileTheQueueGuardRefusesEveryoneDoesNotLowerTheRate() {
        for (int i = 0; i < 10; i++) {
            next(period("premium", 30, 5), period("basic", 0, 10));
        }
        double before = rate(0);
        for (int i = 0; i < 3; i++) {
            next(new ClassSample("premium", 10, 30 * REQUESTS + 40, 30 * REQUESTS, 30 * REQUESTS, 0, 1.0, waits(1.0),
                    SERVICE, 0, LIMIT, 1, 200, LIMIT, 0, 40), period("basic", 0, 10));
        }
        assertTrue(rate(0) >= 0.9 * before, "premium's rate from " + before + " to " + rate(0));
    }

    /**
     * The operator gave basic a session rate of 5 a second: the law's rate for basic never goes above it (the
     * permits premium leaves would serve 29 a second), also before the law has measured basic's sessions, while
     * premium, given none, gets the law's own rate.
     */
    @Test
    void aSessionRateGivenInThePolicyIsTheLawsCeiling() {
        AdmissionLaw bounded = new AdmissionLaw(java.util.Map.of("basic", 5.0));
        settings = bounded.next(new Sample(1, LIMIT, Double.NaN, List.of(period("premium", 4, 0),
                period("basic", 10, 0))), settings);
        assertEquals(5.0, rate(1), 1e-9, "basic before its rate is measured");
        for (int i = 0; i < 10; i++) {
            settings = bounded.next(new Sample(1, LIMIT, Double.NaN, List.of(period("premium", 4, 0),
                    period("basic", 10, 3))), settings);
        }
        assertEquals(5.0, rate(1), 1e-9, "basic, measured");
        assertEquals(LIMIT / (SERVICE * REQUESTS), rate(0), 1e-9, "premium: no ceiling given, the whole server");
    }

    /**
     * A cookie-less flood of 500 new sessions a second from one address, held by its address's share: its first
     * requests are no admitted session's requests. Basic's rate stays what the permits premium leaves serve, as
     * before the flood; counted as requests of admitted sessions they cut basic's rate from 29 to 8.5 a second in
     * ten periods, below what the other addresses asked.
     */
    @Test
    void aFloodHeldByItsAddressShareDoesNotLowerTheRate() {
        warmUp();
        double before = rate(1);
        for (int i = 0; i < 10; i++) {
            ClassSample b = period("basic", 10, 0);
            next(period("premium", 4, 0), new ClassSample("basic", 10, b.arrivals() + 500, b.grants(), b.completions(),
                    500, LOW_DELAY, waits(LOW_DELAY), SERVICE, 0, b.busy(), b.share(), 0, 1, 10, 0, 500));
        }
        assertEquals(before, rate(1), 1e-9, "basic's rate under the flood");
    }

    /**
     * A quiet second: no session starts, and basic's only completions are two cookie-less API calls of 0.1 ms. A
     * session's work is still that of its twelve requests of 50 ms, so basic's rate is what the whole server serves
     * (premium holds nothing now). That second's mean taken as basic's service time put its rate at 95,000 sessions a
     * second on the realism suite, and the step to four times the capacity that came next let 74 basic sessions in
     * within a second, three seconds of the server's work, whose pages then aged past premium's.
     */
    @Test
    void aQuietSecondOfCheapRequestsDoesNotOpenTheRate() {
        warmUp();
        double cheap = 0.0001;
        next(period("premium", 0, 0), new ClassSample("basic", 10, 2, 2, 2, 0, LOW_DELAY, waits(LOW_DELAY), cheap,
                0, 2 * cheap, 2 * cheap / LIMIT, 0, 0, 0, 0, 0, 2));
        double whole = LIMIT / (SERVICE * REQUESTS);
        assertEquals(whole, rate(1), 0.01 * whole, "basic's rate after a quiet second");
    }

    /**
     * The permits full, the back end shared: a request takes 200 ms, and the server completes 8.3 sessions a second.
     * Then the load ends, and in a quiet second the last requests have the back end to themselves: 50 ms. Basic's
     * rate stays what the server completes with its permits in use. Taken from that second, it was four times that
     * (on the realism suite 98 sessions a second when a step to four times the capacity came: 80 let in within a
     * second, three seconds of the server's work, whose pages aged past premium's).
     */
    @Test
    void anIdleServersQuickRequestsDoNotSetTheServiceTime() {
        double loaded = 0.2;
        for (int i = 0; i < 10; i++) {
            // premium 1 session a second, basic 7: 8 x 12 requests of 200 ms hold 19.2 of the 20 permits
            next(period("premium", 1, 0, loaded), period("basic", 7, 0, loaded));
        }
        double full = LIMIT / (loaded * REQUESTS);
        assertTrue(rate(0) <= 1.01 * full, "premium under load: " + rate(0) + "; the server completes " + full);
        next(period("premium", 0, 0, SERVICE), period("basic", 2, 0, SERVICE));
        assertTrue(rate(1) <= 1.01 * full, "basic after a quiet second: " + rate(1) + "; the server completes "
                + full + " sessions a second with its permits in use");
    }

    /**
     * The back end got four times as fast: the rate the slow one gave leaves the permits idle while basic refuses
     * sessions. Those periods set the service time (demand is held back, so the requests are not a light load's),
     * and the rate opens to what the faster server completes. Learned only with the permits full, the service time
     * stayed the slow one's, and with it the rate that kept them from filling (the simulator, after the back end
     * recovered from a spell at half its speed: the capacity law's limit fell to 10 for 16 connections).
     */
    @Test
    void aBackEndThatGotFasterIsFollowedWhileSessionsAreRefused() {
        double slow = 0.2;
        for (int i = 0; i < 10; i++) {
            next(period("premium", 1, 0, slow), period("basic", 7, 0, slow));
        }
        for (int i = 0; i < 3; i++) {
            next(period("premium", 0, 0, SERVICE), period("basic", 8, 10, SERVICE));
        }
        double whole = LIMIT / (SERVICE * REQUESTS);
        assertTrue(rate(1) >= whole, "basic's rate: " + rate(1) + "; the faster server completes " + whole);
    }

    /**
     * A minute of cookie-less API calls, 100 a second, each admitted stateless (no session made), beside basic's 10
     * sessions a second: they are no session's requests, and basic's rate stays what its sessions' work gives.
     * Counted, they raised R from 4 to 44 on the realism suite's idle server, and the next load at its capacity
     * met a rate of 6 sessions a second.
     */
    @Test
    void statelessCallsAreNoSessionsRequests() {
        warmUp();
        double before = rate(1);
        for (int i = 0; i < 60; i++) {
            ClassSample b = period("basic", 10, 0);
            next(period("premium", 4, 0), new ClassSample("basic", 10, b.arrivals() + 100, b.grants() + 100,
                    b.completions() + 100, 0, LOW_DELAY, waits(LOW_DELAY), SERVICE, 0, b.busy() + 100 * SERVICE,
                    (b.busy() + 100 * SERVICE) / LIMIT, 0, 1, 10, 0, 0, 100));
        }
        assertEquals(before, rate(1), 0.01 * before, "basic's rate beside the stateless calls");
    }

    /** Ten periods of premium admitting 4 sessions a second and basic 10, neither refusing: R and s measured. */
    private void warmUp() {
        for (int i = 0; i < 10; i++) {
            next(period("premium", 4, 0), period("basic", 10, 0));
        }
    }

    /** A class that admitted {@code sessions} a second, refused {@code refused}, its requests running at once. */
    private static ClassSample period(String name, double sessions, double refused) {
        return period(name, sessions, refused, SERVICE);
    }

    /** As {@link #period(String, double, double)}, its requests taking {@code service} seconds each. */
    private static ClassSample period(String name, double sessions, double refused, double service) {
        double requests = sessions * REQUESTS;
        return new ClassSample(name, 10, requests + refused, requests, requests, 0, LOW_DELAY, waits(LOW_DELAY),
                service, 0, requests * service, requests * service / LIMIT, 0, 1, sessions, refused);
    }

    private static WaitHistogram waits(double seconds) {
        long[] counts = new long[WaitHistogram.BUCKETS];
        counts[WaitHistogram.bucket(Math.round(seconds * 1e9))] = 10;
        return WaitHistogram.of(counts);
    }

    private void next(ClassSample premium, ClassSample basic) {
        settings = law.next(new Sample(1, LIMIT, Double.NaN, List.of(premium, basic)), settings);
    }

    private double rate(int k) {
        return settings.get(k).sessionRate();
    }
}

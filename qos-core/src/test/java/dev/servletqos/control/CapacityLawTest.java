package dev.servletqos.control;

import static dev.servletqos.control.Fixtures.PERIOD;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The capacity law on typed-in periods: a shop whose pages take 10 ms and 250 ms, in a mix that changes from
 * period to period. Measured by route, a period full of slow pages is not a back end that queues; measured by
 * the plain mean, it is, and the limit is cut for nothing. Pages that all take longer than their own earlier
 * times are a back end that queues, and the limit is cut.
 */
class CapacityLawTest {

    private static final double FAST = 0.010;
    private static final double SLOW = 0.250;

    private static Settings settings(int maxExecuting) {
        return settings(maxExecuting, 0.25);
    }

    /** One class with delay target {@code targetSeconds}; the law may raise the limit to 100. */
    private static Settings settings(int maxExecuting, double targetSeconds) {
        return Fixtures.settings(maxExecuting, 0.95, Fixtures.cls("all", maxExecuting, 0, targetSeconds))
                .withCeiling(100);
    }

    /**
     * A servlet that only computes, 20 µs of CPU a request, on two cores, with 64 connections asking all the time: a
     * back end of two "connections" that queues 0.6 ms deep at 64 in service. That queue is a small fraction of the
     * 250 ms target, so the limit is not cut (it would only move the wait into the engine and park every request)
     * and grows with the demand. The same server 500 times slower (10 ms a request) queues 300 ms deep, and is cut.
     */
    @Test
    void aQueueTooShallowToMatterAgainstTheTargetsIsNotCut() {
        int limit = limitForComputingServlet(20e-6);
        assertTrue(limit >= 64, "no request held in the engine: limit " + limit);
        assertTrue(limitForComputingServlet(10e-3) < 16, "a queue that matters is cut");
    }

    /** The limit after 40 periods of a servlet taking {@code cpu} seconds on two cores, later 64 requests asking. */
    private static int limitForComputingServlet(double cpu) {
        CapacityLaw law = new CapacityLaw();
        Settings s = settings(16);
        for (int i = 0; i < 40; i++) {
            // two requests at a time first (the law learns the no-load time), then 64
            int asking = i < 15 ? 2 : 64;
            int executing = Math.min(asking, s.maxExecuting());
            double service = cpu * Math.max(1, executing / 2.0) * (i % 2 == 0 ? 1.02 : 0.98);
            double rate = 2 / cpu * Math.min(1, executing / 2.0);
            ClassSample c = new ClassSample("all", s.maxExecuting(), rate, rate, rate, 0, 0, WaitHistogram.empty(),
                    service, 0, executing, executing / (double) s.maxExecuting(), asking - executing, executing, 1, 0);
            s = law.next(new Sample(PERIOD, s.maxExecuting(), Double.NaN, List.of(c), List.of()), s);
        }
        return s.maxExecuting();
    }

    /**
     * A period in which {@code fast} and {@code slow} pages completed (over the period), each taking its time
     * times {@code queueing}, with {@code busy} permits held and requests waiting in the engine.
     */
    private static Sample period(int maxExecuting, int fast, int slow, double queueing, double busy, boolean routes) {
        double took = fast * FAST * queueing + slow * SLOW * queueing;
        int n = fast + slow;
        ClassSample c = new ClassSample("all", maxExecuting, n / PERIOD, n / PERIOD, n / PERIOD, 0, 0.05,
                WaitHistogram.empty(), took / n, 0, busy, busy / maxExecuting, 5, maxExecuting, 1, 0);
        List<Sample.RouteSample> r = new ArrayList<>();
        if (routes) {
            r.add(new Sample.RouteSample(1, fast, FAST * queueing));
            r.add(new Sample.RouteSample(2, slow, SLOW * queueing));
        }
        return new Sample(PERIOD, maxExecuting, Double.NaN, List.of(c), r);
    }

    /** Periods alternating between mostly fast pages and many slow ones; returns the lowest limit seen. */
    private static int lowestLimitOverChangingMix(boolean routes) {
        CapacityLaw law = new CapacityLaw();
        Settings s = settings(16);
        int lowest = s.maxExecuting();
        for (int i = 0; i < 40; i++) {
            boolean slowPeriod = i % 3 == 2;
            s = law.next(period(s.maxExecuting(), slowPeriod ? 50 : 200, slowPeriod ? 40 : 10, 1, 14, routes), s);
            lowest = Math.min(lowest, s.maxExecuting());
        }
        return lowest;
    }

    @Test
    void aPeriodOfSlowPagesIsNotTakenForABackEndThatQueuesWhenMeasuredByRoute() {
        assertTrue(lowestLimitOverChangingMix(true) >= 16, "measured by route, the mix moves nothing down");
        // the same periods, measured by the plain mean: the law cuts for nothing (why routes are measured)
        assertTrue(lowestLimitOverChangingMix(false) < 16, "the plain mean cuts on a change of mix");
    }

    @Test
    void everyPageTakingLongerThanItsOwnTimeIsABackEndThatQueues() {
        CapacityLaw law = new CapacityLaw();
        Settings s = settings(16);
        // enough periods for the law to measure its noise (none: every period alike) and the slow page's reference
        for (int i = 0; i < 25; i++) {
            s = law.next(period(s.maxExecuting(), 200, 10, 1, 14, true), s);
        }
        int before = s.maxExecuting();
        // twice as long for every page, in the same mix: requests wait inside the back end
        s = law.next(period(before, 200, 10, 2, before, true), s);
        assertTrue(s.maxExecuting() < before, "cut from " + before + " to " + s.maxExecuting());
        assertEquals(Settings.Source.CONTROLLER, s.source());
        assertEquals(Math.round(before * (1 + CapacityLaw.AIM) / 2), s.maxExecuting(), "to L (1 + aim) / r");
    }

    /**
     * A back end of 16 connections whose every request gets twice as slow (as the simulator saw it): the first
     * reading after the change also holds the requests that had queued inside it (3.3 times the no-load time at
     * 19 in service), the later ones take twice the no-load time below 16 in service. The law cuts once or twice on
     * the belief that the back end queues, finds it slower within a few readings and puts the limit back, without
     * cutting it to a third on the way (each period at a low limit leaves connections idle).
     */
    @Test
    void aBackEndThatGotSlowerIsFoundWithoutCuttingTheLimitToAThird() {
        CapacityLaw law = new CapacityLaw();
        Settings s = settings(16);
        for (int i = 0; i < 25; i++) {
            s = law.next(period(s.maxExecuting(), 200, 0, Math.max(1, s.maxExecuting() / 16.0), s.maxExecuting(),
                    false), s);
        }
        int before = s.maxExecuting();
        List<Integer> limits = new ArrayList<>();
        s = law.next(period(before, 200, 0, 3.3, before, false), s);
        limits.add(s.maxExecuting());
        for (int i = 0; i < 5; i++) {
            s = law.next(period(s.maxExecuting(), 100, 0, 2 * Math.max(1, s.maxExecuting() / 16.0),
                    s.maxExecuting(), false), s);
            limits.add(s.maxExecuting());
        }
        String trace = "limits after the change, from " + before + ": " + limits;
        assertTrue(limits.stream().allMatch(l -> 3 * l >= before), "never cut to a third: " + trace);
        assertTrue(limits.subList(0, 4).stream().anyMatch(l -> l >= before), "put back in four readings: " + trace);
        assertTrue(limits.get(limits.size() - 1) >= 16, "every connection used at the end: " + trace);
    }

    /**
     * A back end of 16 connections twice as slow for a while, then at its own speed again. Once it has recovered
     * the law takes back the baseline from before the slow spell; before, it grew the limit against the slow
     * baseline until the service time of a back end queueing 2.3 times over read as no queueing (the simulator's
     * runs ended at 31 to 52 for 16 connections).
     */
    @Test
    void aBackEndThatRecoversFromASlowSpellGetsItsOldBaselineBack() {
        CapacityLaw law = new CapacityLaw();
        Settings s = settings(16);
        double[] noise = {1.02, 0.98, 1.01, 0.99};
        int period = 0;
        for (int i = 0; i < 25; i++, period++) {
            s = law.next(period(s.maxExecuting(), 200, 0, Math.max(1, s.maxExecuting() / 16.0) * noise[period % 4],
                    s.maxExecuting(), false), s);
        }
        s = law.next(period(s.maxExecuting(), 200, 0, 3.3, s.maxExecuting(), false), s);
        for (int i = 0; i < 15; i++, period++) {
            s = law.next(period(s.maxExecuting(), 100, 0, 2 * Math.max(1, s.maxExecuting() / 16.0)
                    * noise[period % 4], s.maxExecuting(), false), s);
        }
        int slow = s.maxExecuting();
        List<Integer> limits = new ArrayList<>();
        for (int i = 0; i < 20; i++, period++) {
            s = law.next(period(s.maxExecuting(), 200, 0, Math.max(1, s.maxExecuting() / 16.0) * noise[period % 4],
                    s.maxExecuting(), false), s);
            limits.add(s.maxExecuting());
        }
        String trace = "limit " + slow + " at the end of the slow spell, then " + limits;
        assertTrue(slow >= 16 && slow <= 24, "every connection used in the slow spell: " + trace);
        assertTrue(limits.stream().allMatch(l -> l <= 32), "never above twice the connections: " + trace);
        int last = limits.get(limits.size() - 1);
        assertTrue(last >= 16 && last <= 24, "at the connections again: " + trace);
    }
}

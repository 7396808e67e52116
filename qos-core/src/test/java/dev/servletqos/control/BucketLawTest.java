package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Settings;
import dev.servletqos.policy.BucketControl;
import dev.servletqos.policy.ControlPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Paper 002's bucket law on samples typed in: convergence, minimum rates, and raising only at 90 % hits. */
class BucketLawTest {

    private static Settings settings(double rate, double minRate) {
        return new Settings(16, 16, List.of(new Settings.ClassSettings("basic", 16, 1, 0, 1, Duration.ofSeconds(1))),
                ControlPolicy.DEFAULTS, Settings.Source.POLICY,
                List.of(new Settings.BucketSettings("search", rate, minRate, 5)));
    }

    private static ClassSample queued(int q) {
        return new ClassSample("basic", 16, 0, 0, 0, 0, Double.NaN, WaitHistogram.empty(), Double.NaN, 0, 0, 0, q, 0, 0,
                0);
    }

    /** One period of 1 s: the CPU, the queue and the bucket's hits. */
    private static Sample sample(double cpu, int queue, long hits, double rate) {
        return new Sample(1, 16, cpu, List.of(queued(queue)), List.of(),
                List.of(new Sample.BucketSample("search", hits, 0, rate)));
    }

    @Test
    void onCpuTheRateConvergesToWhereTheCpuIsAtItsTarget() {
        // a plant of 5 ms of CPU per admitted request, 300/s offered: the CPU is at 0.9 when 180/s are admitted
        BucketLaw law = new BucketLaw(BucketControl.DEFAULTS);
        Settings s = settings(40, 10);
        List<Double> rates = new ArrayList<>();
        for (int period = 0; period < 60; period++) {
            double rate = s.buckets().get(0).rate();
            double cpu = Math.min(1, Math.min(300, rate) * 0.005);
            s = law.next(sample(cpu, 0, 300, rate), s);
            rates.add(s.buckets().get(0).rate());
        }
        // rate' = rate + 20 (0.9 - 0.005 rate): the error shrinks by 0.9 each period
        assertEquals(180, rates.get(59), 0.5, rates.toString());
        for (int i = 1; i < rates.size(); i++) {
            assertTrue(rates.get(i) >= rates.get(i - 1) && rates.get(i) <= 180, "from below, without overshoot: "
                    + rates);
        }
        assertEquals(Settings.Source.CONTROLLER, s.source());
    }

    @Test
    void onCpuAboveTheTargetTheRateFallsToItsMinimumAndNoFurther() {
        BucketLaw law = new BucketLaw(BucketControl.DEFAULTS);
        Settings s = settings(30, 10);
        for (int period = 0; period < 20; period++) {
            s = law.next(sample(1.0, 0, 300, s.buckets().get(0).rate()), s);
            assertTrue(s.buckets().get(0).rate() >= 10, "never below the minimum");
        }
        // 30 - 2 per period: 10 after 10 periods, held there
        assertEquals(10, s.buckets().get(0).rate(), 1e-9);
    }

    @Test
    void aRateIsRaisedOnlyWhenItsHitsReachedNinetyPercentOfIt() {
        BucketLaw law = new BucketLaw(BucketControl.DEFAULTS);
        Settings s = settings(50, 10);
        // paper 002's example: 50/s allowed, CPU at 0.6, 30 hits: no raise
        assertSame(s, law.next(sample(0.6, 0, 30, 50), s));
        assertSame(s, law.next(sample(0.6, 0, 44, 50), s), "44 hits are 88 % of 50");
        Settings raised = law.next(sample(0.6, 0, 45, 50), s);
        assertEquals(50 + 20 * 0.3, raised.buckets().get(0).rate(), 1e-9, "45 hits are 90 %");
        // a period of 0.5 s: 23 hits are 92 % of what 50/s admits in it
        Sample half = new Sample(0.5, 16, 0.6, List.of(queued(0)), List.of(),
                List.of(new Sample.BucketSample("search", 23, 0, 50)));
        assertEquals(56, law.next(half, s).buckets().get(0).rate(), 1e-9);
        // lowering needs no hits
        assertEquals(48, law.next(sample(1.0, 0, 0, 50), s).buckets().get(0).rate(), 1e-9);
    }

    @Test
    void withoutACpuReadingNothingChanges() {
        BucketLaw law = new BucketLaw(BucketControl.DEFAULTS);
        Settings s = settings(50, 10);
        assertSame(s, law.next(sample(Double.NaN, 0, 100, 50), s));
    }

    @Test
    void onTheQueueTheRateConvergesWhereTheQueueIsAtItsTarget() {
        // a server that completes 100/s; what the bucket admits beyond that queues, what it admits less drains
        BucketControl c = BucketControl.DEFAULTS.withLaw(BucketControl.Law.QUEUE);
        BucketLaw law = new BucketLaw(c);
        Settings s = settings(150, 10);
        double queue = 0;
        List<Double> rates = new ArrayList<>();
        List<Double> queues = new ArrayList<>();
        for (int period = 0; period < 400; period++) {
            double rate = s.buckets().get(0).rate();
            queue = Math.max(0, queue + Math.min(300, rate) - 100);
            s = law.next(sample(Double.NaN, (int) Math.round(queue), 300, rate), s);
            rates.add(s.buckets().get(0).rate());
            queues.add(queue);
        }
        assertEquals(100, rates.get(399), 1, "the rate ends at what the server completes: " + rates);
        assertEquals(10, queues.get(399), 2, "with the queue at its target: " + queues);
        assertTrue(rates.stream().allMatch(r -> r >= 10), "never below the minimum");
    }

    @Test
    void onTheQueueAGrowingQueueLowersTheRateMoreThanAStandingOne() {
        BucketControl c = BucketControl.DEFAULTS.withLaw(BucketControl.Law.QUEUE);
        BucketLaw standing = new BucketLaw(c);
        BucketLaw growing = new BucketLaw(c);
        Settings s = settings(100, 10);
        standing.next(sample(Double.NaN, 30, 100, 100), s);
        growing.next(sample(Double.NaN, 10, 100, 100), s);
        double a = standing.next(sample(Double.NaN, 30, 100, 100), s).buckets().get(0).rate();
        double b = growing.next(sample(Double.NaN, 30, 100, 100), s).buckets().get(0).rate();
        assertEquals(100 + 0.0625 * (10 - 30), a, 1e-9, "P alone on a queue that stands");
        assertEquals(100 + 0.0625 * (10 - 30) - 0.25 * 20, b, 1e-9, "P and D on a queue that grew by 20");
    }
}

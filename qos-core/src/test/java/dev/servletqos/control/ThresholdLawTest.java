package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy.Degradation;
import dev.servletqos.policy.ControlPolicy.DegradationLaw;
import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThresholdLawTest {

    /** Threshold mode measuring over intervals of one period (the samples here are 1 s each). */
    static final Degradation THRESHOLD = Degradation.DEFAULTS.withLaw(DegradationLaw.THRESHOLD)
            .withSource(UtilizationSource.CPU).withInterval(java.time.Duration.ofSeconds(1));

    static Sample cpu(double u) {
        return new Sample(1, 16, u, List.of(UtilizationEstimatorTest.cls(10, 1000, 0, 0.1),
                UtilizationEstimatorTest.cls(10, 1000, 0, 0.1)));
    }

    static Settings twoClasses() {
        return UtilizationLawTest.settings(UtilizationLawTest.cls("premium", 2), UtilizationLawTest.cls("basic", 2));
    }

    static Settings feed(LevelLaw law, Settings s, double... cpu) {
        Settings out = s;
        for (double u : cpu) {
            out = law.next(cpu(u), out);
        }
        return out;
    }

    @Test
    void betweenTheThresholdsNothingSwitches() {
        LevelLaw law = ControlLaws.threshold(THRESHOLD);
        Settings s = twoClasses();
        // swings between 0.55 and 0.85: the average (weight 0.4) stays between 0.60 and 0.75
        for (int i = 0; i < 50; i++) {
            s = feed(law, s, i % 2 == 0 ? 0.62 : 0.72);
            assertEquals(2.0, s.get(0).level());
            assertEquals(2.0, s.get(1).level());
        }
    }

    @Test
    void aboveHighTheLowestClassIsDegradedFirstAndBelowLowTheHighestIsRestoredFirst() {
        LevelLaw law = ControlLaws.threshold(THRESHOLD);
        Settings s = twoClasses();
        s = feed(law, s, 0.5, 0.7, 0.9); // average 0.5, 0.58, 0.708
        assertEquals(2.0, s.get(1).level(), "0.708 is below 0.75");
        s = feed(law, s, 0.9); // 0.785
        assertEquals(1.0, s.get(1).level(), "basic degraded");
        assertEquals(2.0, s.get(0).level(), "premium not yet");
        s = feed(law, s, 0.9, 0.9);
        assertEquals(2.0, s.get(0).level(), "two intervals to see the first switch's effect");
        s = feed(law, s, 0.9);
        assertEquals(1.0, s.get(0).level(), "still high: premium degraded too");
        s = feed(law, s, 0.2, 0.2, 0.2);
        assertEquals(2.0, s.get(0).level(), "premium restored first");
        assertEquals(1.0, s.get(1).level());
        s = feed(law, s, 0.2, 0.2, 0.2);
        assertEquals(2.0, s.get(1).level());
    }

    @Test
    void theNetworkThresholdsCountWhenTheCapacityIsGiven() {
        // two classes of 1000 bytes/s = 2 kB/s over 3 kB/s: 0.67, above 0.55
        LevelLaw law = ControlLaws.threshold(THRESHOLD.withNetworkCapacity(3_000));
        Settings s = feed(law, twoClasses(), 0.3);
        assertEquals(1.0, s.get(1).level());
        assertEquals(0.667, law.utilization().network(), 0.001);
        LevelLaw off = ControlLaws.threshold(THRESHOLD);
        assertEquals(2.0, feed(off, twoClasses(), 0.3).get(1).level());
    }

    @Test
    void aClassWithoutDegradedContentIsNeverRefused() {
        LevelLaw law = ControlLaws.threshold(THRESHOLD);
        Settings s = UtilizationLawTest.settings(UtilizationLawTest.cls("basic", 1));
        s = feed(law, s, 0.99, 0.99, 0.99, 0.99, 0.99);
        assertEquals(1.0, s.get(0).level());
    }

    @Test
    void theUtilizationIsAveragedOverTheIntervalFirst() {
        LevelLaw law = ControlLaws.threshold(THRESHOLD.withInterval(java.time.Duration.ofSeconds(4)));
        Settings s = twoClasses();
        // 1.0 for one second in four: the interval's mean is 0.55, below the high threshold
        for (int i = 0; i < 5; i++) {
            s = feed(law, s, 1.0, 0.4, 0.4, 0.4);
            assertEquals(2.0, s.get(1).level());
        }
        assertEquals(0.55, law.utilization().smoothed(), 1e-9);
        s = feed(law, s, 1.0, 1.0, 0.7, 0.7); // 0.85: average 0.4 x 0.85 + 0.6 x 0.55 = 0.67
        assertEquals(2.0, s.get(1).level());
        s = feed(law, s, 1.0, 1.0, 1.0);
        assertEquals(2.0, s.get(1).level(), "the interval is not over");
        s = feed(law, s, 1.0); // 0.4 + 0.6 x 0.67 = 0.802
        assertEquals(1.0, s.get(1).level());
    }
}

package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy.Degradation;
import dev.servletqos.policy.ControlPolicy.DegradationLaw;
import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import java.util.List;
import org.junit.jupiter.api.Test;

class ThresholdLawTest {

    static final Degradation THRESHOLD = Degradation.DEFAULTS.withLaw(DegradationLaw.THRESHOLD)
            .withSource(UtilizationSource.CPU);

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
        s = feed(law, s, 0.9, 0.9, 0.9);
        assertEquals(2.0, s.get(0).level(), "three periods to see the first switch's effect");
        s = feed(law, s, 0.9);
        assertEquals(1.0, s.get(0).level(), "still high: premium degraded too");
        s = feed(law, s, 0.2, 0.2, 0.2, 0.2);
        assertEquals(2.0, s.get(0).level(), "premium restored first");
        assertEquals(1.0, s.get(1).level());
        s = feed(law, s, 0.2, 0.2, 0.2, 0.2);
        assertEquals(2.0, s.get(1).level());
        assertEquals(0.2 + 0.6 * Math.pow(0.6, 7) * 0.785, law.utilization().smoothed(), 0.01);
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
}

package dev.servletqos.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The degradation keys: defaults from papers 000 and 003, and a bad value names its key and value. */
class DegradationPolicyTest {

    private static final String BASE = "classes = premium, basic\nclass.basic.levels = 2\n";

    private static QosPolicy parse(String text) {
        Properties p = new Properties();
        try {
            p.load(new StringReader(BASE + text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return PolicyParser.parse(p, "qos.properties");
    }

    @Test
    void defaultsAreThePapers() {
        ControlPolicy.Degradation d = parse("").control().degradation();
        assertEquals(ControlPolicy.DegradationLaw.NONE, d.law());
        assertEquals(ControlPolicy.UtilizationSource.AUTO, d.source());
        assertEquals(0.58, d.target());
        assertEquals(4, d.gainMargin());
        assertEquals(0.75, d.high());
        assertEquals(0.60, d.low());
        assertEquals(0.55, d.networkHigh());
        assertEquals(0.35, d.networkLow());
        assertEquals(0.4, d.weight());
        assertEquals(0, d.networkCapacity());
        assertEquals(0, d.rejectionCost());
        assertEquals(java.time.Duration.ofSeconds(40), d.interval());
    }

    @Test
    void everyKeyIsRead() {
        ControlPolicy.Degradation d = parse(String.join("\n", "control.degradation = threshold",
                "control.utilization.source = occupancy", "control.utilization.target = 0.8",
                "control.utilization.gain-margin = 10", "control.threshold.high = 0.9", "control.threshold.low = 0.5",
                "control.threshold.network-high = 0.7", "control.threshold.network-low = 0.2",
                "control.threshold.weight = 0.5", "control.network.capacity = 12500000",
                "control.utilization.rejection-cost = 0.55", "control.threshold.interval = 10s"))
                .control().degradation();
        assertEquals(new ControlPolicy.Degradation(ControlPolicy.DegradationLaw.THRESHOLD,
                ControlPolicy.UtilizationSource.OCCUPANCY, 0.8, 10, 0.9, 0.5, 0.7, 0.2, 0.5, 12_500_000, 0.00055,
                java.time.Duration.ofSeconds(10)), d);
    }

    @Test
    void aBadValueNamesItsKey() {
        assertFails("control.degradation = sometimes", "control.degradation");
        assertFails("control.utilization.source = disk", "control.utilization.source");
        assertFails("control.utilization.target = 1.2", "control.utilization.target");
        assertFails("control.utilization.gain-margin = 2", "control.utilization.gain-margin");
        assertFails("control.threshold.low = 0.8", "control.threshold.low");
        assertFails("control.threshold.network-high = 0.3", "control.threshold.network-low");
        assertFails("control.threshold.weight = 0", "control.threshold.weight");
        assertFails("control.network.capacity = -1", "control.network.capacity");
        assertFails("control.utilization.rejection-cost = 2000", "control.utilization.rejection-cost");
        PolicyException e = assertThrows(PolicyException.class, () -> parse("control.threshold.interval = 20m"));
        assertTrue(e.getMessage().contains("control.threshold.interval"), e.getMessage());
    }

    private static void assertFails(String line, String key) {
        PolicyException e = assertThrows(PolicyException.class, () -> parse(line));
        assertTrue(e.getMessage().contains(key), () -> "expected <" + key + "> in <" + e.getMessage() + ">");
        String value = line.substring(line.indexOf('=') + 1).trim();
        assertTrue(e.getMessage().contains(value) || e.getMessage().contains(String.valueOf(Double.valueOf(value))),
                () -> "expected the value in <" + e.getMessage() + ">");
    }
}

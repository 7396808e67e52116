package dev.servletqos.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ControlPolicy.DegradationLaw;
import dev.servletqos.policy.ControlPolicy.UtilizationSource;
import dev.servletqos.policy.QosPolicy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SamplePolicyTest {

    @TempDir
    Path dir;

    @Test
    void theBundledPolicyDegradesContentByWorkerOccupancy() {
        QosPolicy p = SamplePolicy.load(null);
        assertEquals(DegradationLaw.PI, p.control().degradation().law());
        assertEquals(UtilizationSource.OCCUPANCY, p.control().degradation().source());
        assertEquals(0.9, p.control().degradation().target());
        assertEquals(2, p.classes().get(0).content().levels());
        assertEquals(2, p.classes().get(1).content().levels());
    }

    @Test
    void thePolicyWithoutDegradationDiffersOnlyInItsDegradationLaw() throws Exception {
        Path file = SamplePolicy.writeWithoutDegradation(null, dir);
        assertEquals(dir.resolve(SamplePolicy.NO_DEGRADATION_FILE), file);
        QosPolicy bundled = SamplePolicy.load(null);
        QosPolicy plain = SamplePolicy.load(file);
        assertEquals(DegradationLaw.NONE, plain.control().degradation().law());
        assertEquals(bundled.control().withDegradation(bundled.control().degradation().withLaw(DegradationLaw.NONE)),
                plain.control());
        assertEquals(bundled.classes(), plain.classes());
        // a policy file of the operator's own, with the key written its own way
        Path mine = dir.resolve("mine.properties");
        Files.writeString(mine, Files.readString(file, StandardCharsets.UTF_8).replace("control.degradation = none",
                "  control.degradation:threshold"), StandardCharsets.UTF_8);
        assertEquals(DegradationLaw.THRESHOLD, SamplePolicy.load(mine).control().degradation().law());
        Path out = SamplePolicy.writeWithoutDegradation(mine, dir.resolve("out"));
        assertEquals(DegradationLaw.NONE, SamplePolicy.load(out).control().degradation().law());
        assertTrue(Files.readString(out).contains("# (the demo's comparison)   control.degradation:threshold"));
    }
}

package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class OptionsTest {

    @Test
    void defaultsAndEveryOption() {
        Options d = Options.parse();
        assertEquals("tomcat", d.container());
        assertEquals(8080, d.port());
        assertTrue(d.qos());
        assertFalse(d.demo());
        assertEquals(Path.of("target", "qos-demo"), d.out());
        assertEquals(4, d.profile().phases().size(), "normal, crowd, slow back end, relief");

        Options o = Options.parse("--container", "jetty", "--port", "9090", "--qos", "off", "--policy", "p.properties",
                "--scale", "2", "--demo", "--demo-profile", "a:1:1,b:2:3", "--capacity", "12.5", "--out", "x");
        assertEquals("jetty", o.container());
        assertEquals(9090, o.port());
        assertTrue(o.portGiven());
        assertFalse(o.qos());
        assertTrue(o.qosGiven());
        assertEquals(Path.of("p.properties"), o.policy());
        assertEquals(2, o.scale());
        assertTrue(o.demo());
        assertEquals("a:1:1,b:2:3", o.profile().toString());
        assertEquals(12.5, o.capacity());
        assertNull(o.compare());
        assertEquals("tuned", Options.parse("--demo", "--compare-policy", "tuned").compare());
        assertEquals("mine.properties", Options.parse("--compare-policy", "mine.properties", "--demo").compare());
        assertNull(Options.parse("--help"));
    }

    @Test
    void theRunWithoutDegradationIsOnByDefaultAndCanBeSkipped() {
        assertTrue(Options.parse("--demo").noDegradationRun());
        assertTrue(Options.parse("--demo", "--no-degradation-run", "on").noDegradationRun());
        assertFalse(Options.parse("--demo", "--no-degradation-run", "off").noDegradationRun());
        assertFalse(Options.parse("--demo", "--qos", "off", "--no-degradation-run", "off").noDegradationRun());
        assertEquals("--no-degradation-run maybe: must be on or off", assertThrows(IllegalArgumentException.class,
                () -> Options.parse("--demo", "--no-degradation-run", "maybe")).getMessage());
        assertEquals("--no-degradation-run: only with --demo", assertThrows(IllegalArgumentException.class,
                () -> Options.parse("--no-degradation-run", "off")).getMessage());
        assertEquals("--no-degradation-run on runs QoS on: not with --qos off", assertThrows(
                IllegalArgumentException.class, () -> Options.parse("--demo", "--qos", "off", "--no-degradation-run",
                        "on")).getMessage());
        assertTrue(Options.USAGE.contains("--no-degradation-run on|off"));
    }

    @Test
    void aBadOptionIsNamedWithItsValue() {
        assertEquals("--container undertow: must be tomcat or jetty",
                assertThrows(IllegalArgumentException.class, () -> Options.parse("--container", "undertow")).getMessage());
        assertEquals("--port 70000: must be 0..65535",
                assertThrows(IllegalArgumentException.class, () -> Options.parse("--port", "70000")).getMessage());
        assertEquals("--qos maybe: must be on or off",
                assertThrows(IllegalArgumentException.class, () -> Options.parse("--qos", "maybe")).getMessage());
        assertEquals("--policy needs a value",
                assertThrows(IllegalArgumentException.class, () -> Options.parse("--policy")).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--demo-profile", "crowd:40"))
                .getMessage().contains("\"crowd:40\""));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--scale", "0"))
                .getMessage().startsWith("--scale 0: "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Options.parse("--frobnicate"))
                .getMessage().contains("--frobnicate"));
        assertEquals("--compare-policy tuned: only with --demo",
                assertThrows(IllegalArgumentException.class, () -> Options.parse("--compare-policy", "tuned"))
                        .getMessage());
        assertEquals("--compare-policy tuned runs QoS on: not with --qos off",
                assertThrows(IllegalArgumentException.class,
                        () -> Options.parse("--demo", "--qos", "off", "--compare-policy", "tuned")).getMessage());
    }
}

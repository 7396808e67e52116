package dev.servletqos.sample.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProfileTest {

    @Test
    void aPhaseMayNameTheBackEndsFactor() {
        Profile p = Profile.parse("normal:10:0.8,slow:30:4:x2,fast:5:1:x0.5");
        assertEquals(1, p.phases().get(0).backendFactor());
        assertFalse(p.phases().get(0).backendChanged());
        assertEquals(2, p.phases().get(1).backendFactor());
        assertEquals(4, p.phases().get(1).multiple());
        assertTrue(p.phases().get(1).backendChanged());
        assertEquals("4.0x, back end x2", p.phases().get(1).describe());
        assertEquals(0.5, p.phases().get(2).backendFactor());
        assertEquals("normal:10:0.8,slow:30:4:x2,fast:5:1:x0.5", p.toString());
        assertEquals(p, Profile.parse(p.toString()));
        assertEquals(Profile.parse("a:1:1"), Profile.parse("a:1:1:x1"));
    }

    @Test
    void theDefaultSlowsTheBackEndDownTwiceUnderLoadAndLastsAtMost80Seconds() {
        Profile p = Profile.parse(Profile.DEFAULT);
        assertTrue(p.seconds() <= 80, p.toString());
        assertTrue(p.phases().stream().anyMatch(x -> x.backendFactor() == 2 && x.multiple() > 1), p.toString());
        assertTrue(p.phases().stream().anyMatch(x -> x.multiple() == 4 && !x.backendChanged()), p.toString());
    }

    @Test
    void aBadFactorIsNamedWithItsPhase() {
        assertEquals("--demo-profile: \"slow:30:4:2\": the back end's factor is written x and a number, e.g. x2"
                + " (twice as slow)", message("slow:30:4:2"));
        assertEquals("--demo-profile: \"slow:30:4:xfast\": the back end's factor must be a number from 0.1 to 20:"
                + " 1 is normal speed, 2 twice as slow, was \"fast\"", message("slow:30:4:xfast"));
        assertTrue(message("slow:30:4:x50").contains("was \"50\""));
        assertTrue(message("slow:30:4:x2:y").contains("is not name:seconds:multiple[:xFACTOR]"));
    }

    private static String message(String spec) {
        return assertThrows(IllegalArgumentException.class, () -> Profile.parse(spec)).getMessage();
    }
}

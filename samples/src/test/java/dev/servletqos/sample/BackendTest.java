package dev.servletqos.sample;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BackendTest {

    @Test
    void theFactorIsANumberFromATenthToTwenty() {
        Backend b = new Backend();
        assertEquals(1, b.factor());
        assertEquals(1, b.setFactor(2));
        assertEquals(2, b.factor());
        assertEquals(2, Backend.parse(" 2 "));
        assertEquals(0.5, Backend.parse("0.5"));
        assertEquals("factor must be a number from 0.1 to 20: 1 is normal speed, 2 twice as slow, was \"abc\"",
                assertThrows(IllegalArgumentException.class, () -> Backend.parse("abc")).getMessage());
        assertEquals("factor must be a number from 0.1 to 20: 1 is normal speed, 2 twice as slow, was \"0\"",
                assertThrows(IllegalArgumentException.class, () -> Backend.parse("0")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> Backend.parse("NaN"));
        assertThrows(IllegalArgumentException.class, () -> Backend.parse("Infinity"));
        assertThrows(IllegalArgumentException.class, () -> Backend.parse("21"));
        assertEquals("factor is required, e.g. factor=2 (a number from 0.1 to 20: 1 is normal speed, 2 twice as"
                + " slow)", assertThrows(IllegalArgumentException.class, () -> Backend.parse(null)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> b.setFactor(Double.NaN));
        assertEquals(2, b.factor(), "a refused value changes nothing");
    }

    @Test
    void onlyLoopbackAddressesMayUseTheAdminPath() {
        for (String ok : new String[] {"127.0.0.1", "127.1.2.3", "::1", "0:0:0:0:0:0:0:1", "[::1]",
                "::ffff:127.0.0.1"}) {
            assertTrue(BackendServlet.loopback(ok), ok);
        }
        for (String no : new String[] {"10.0.0.1", "192.168.1.17", "0.0.0.0", "::", "2001:db8::1",
                "::ffff:10.0.0.1", "fe80::1%1", "localhost", "example.com", "", "abc", "127.0.0.1.example.com",
                "1.2.3"}) {
            assertFalse(BackendServlet.loopback(no), no);
        }
        assertFalse(BackendServlet.loopback(null));
    }
}

package dev.servletqos.loadtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class LoadProfileTest {

    @Test
    void defaultsArePaper004sClientTimeoutAndAFifthPremium() {
        LoadProfile p = LoadProfile.from(new Properties());
        assertEquals("http://127.0.0.1:8080", p.baseUrl().toString());
        assertEquals(Duration.ofSeconds(5), p.timeout());
        assertEquals(0.2, p.premiumShare());
        assertEquals(4, p.load());
        assertEquals(LoadProfile.DEFAULT_CAPACITY * 4 * 0.2, p.topRate(true), 1e-9);
        assertEquals(LoadProfile.DEFAULT_CAPACITY * 4 * 0.8, p.topRate(false), 1e-9);
    }

    @Test
    void readsBackItsOwnProperties() {
        Properties in = new Properties();
        in.setProperty("qos.baseUrl", "http://127.0.0.1:9000/");
        in.setProperty("qos.capacity", "12.5");
        in.setProperty("qos.ramp", "1500ms");
        in.setProperty("qos.hold", "2m");
        in.setProperty("qos.label", "x");
        LoadProfile p = LoadProfile.from(in);
        assertEquals("http://127.0.0.1:9000", p.baseUrl().toString());
        assertEquals(Duration.ofMillis(1500), p.ramp());
        assertEquals(Duration.ofMinutes(2), p.hold());
        Properties again = new Properties();
        again.putAll(p.toProperties());
        assertEquals(p, LoadProfile.from(again));
    }

    @Test
    void aBadValueIsNamedWithItsKey() {
        assertEquals("qos.capacity = fast: not a number", message("qos.capacity", "fast"));
        assertEquals("qos.premiumShare = 1.5: must be 0..1", message("qos.premiumShare", "1.5"));
        assertEquals("qos.hold = 60: a duration needs a unit (500ms, 20s, 2m)", message("qos.hold", "60"));
        assertEquals("qos.baseUrl = https://example.com: must be an http://host:port URL",
                message("qos.baseUrl", "https://example.com"));
    }

    @Test
    void onlyTheLoopbackIsATarget() {
        assertEquals("qos.baseUrl = http://192.0.2.1:8080: the load generator only targets this machine's loopback"
                + " (127.0.0.1, localhost or [::1]), not 192.0.2.1", message("qos.baseUrl", "http://192.0.2.1:8080"));
        assertThrows(IllegalArgumentException.class, () -> LoadProfile.from(props("qos.baseUrl",
                "http://example.com:8080")));
        assertThrows(IllegalArgumentException.class, () -> LoadProfile.from(props("qos.baseUrl",
                "http://127.0.0.2:8080")));
        for (String ok : new String[] {"http://127.0.0.1:1", "http://localhost:8080", "http://LOCALHOST:8080",
                "http://[::1]:8080"}) {
            assertEquals(ok, LoadProfile.from(props("qos.baseUrl", ok)).baseUrl().toString());
        }
    }

    @Test
    void theArrivalRateIsBounded() {
        Properties p = props("qos.capacity", "500");
        p.setProperty("qos.load", "4");
        assertEquals(2000, LoadProfile.from(p).offeredRate(), 1e-9);
        p.setProperty("qos.load", "4.1");
        assertEquals("qos.capacity x qos.load = 500 x 4.1: offers more than 2000 sessions/s, the load generator's"
                + " bound", assertThrows(IllegalArgumentException.class, () -> LoadProfile.from(p)).getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> LoadTestRun.parse(new String[] {"--capacity", "1000", "--load", "3"}));
    }

    private static Properties props(String key, String value) {
        Properties p = new Properties();
        p.setProperty(key, value);
        return p;
    }

    private static String message(String key, String value) {
        Properties p = new Properties();
        p.setProperty(key, value);
        return assertThrows(IllegalArgumentException.class, () -> LoadProfile.from(p)).getMessage();
    }
}

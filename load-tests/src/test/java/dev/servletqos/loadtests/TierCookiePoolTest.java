package dev.servletqos.loadtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import org.junit.jupiter.api.Test;

class TierCookiePoolTest {

    @Test
    void findsTheTierCookieAmongTheSetCookieHeaders() {
        List<String> headers = List.of("JSESSIONID=abc; Path=/; HttpOnly",
                "QOSSESSION=v1.s; Path=/; HttpOnly",
                "QOSTIER=v1.premium.dTE.1893456000.sig; Max-Age=31536000; Path=/; HttpOnly; SameSite=Lax");
        assertEquals("v1.premium.dTE.1893456000.sig", TierCookiePool.cookieValue(headers, "QOSTIER"));
        assertEquals("v1.s", TierCookiePool.cookieValue(headers, "QOSSESSION"));
        assertEquals("q", TierCookiePool.cookieValue(List.of("QOSTIER=\"q\""), "QOSTIER"));
        assertNull(TierCookiePool.cookieValue(headers, "QOS"));
        assertNull(TierCookiePool.cookieValue(List.of("QOSTIER=; Max-Age=0"), "QOSTIER"));
    }
}

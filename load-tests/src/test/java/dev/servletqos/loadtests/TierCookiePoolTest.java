package dev.servletqos.loadtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
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

    /** A shop on 127.0.0.1 that refuses the first {@code refusals} logins with 503 and Retry-After: 1. */
    private static HttpServer shop(int refusals, AtomicInteger logins) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/login", x -> {
            int n = logins.incrementAndGet();
            if (n <= refusals) {
                x.getResponseHeaders().add("Retry-After", "1");
                x.sendResponseHeaders(503, -1);
            } else {
                x.getResponseHeaders().add("Set-Cookie", "QOSTIER=v1.premium.u" + n + "; Max-Age=60; Path=/");
                x.sendResponseHeaders(200, -1);
            }
            x.close();
        });
        server.start();
        return server;
    }

    @Test
    void aRefusedLoginIsTriedAgainAfterItsRetryAfterAndEveryUserGetsACookie() throws Exception {
        AtomicInteger logins = new AtomicInteger();
        HttpServer server = shop(2, logins);
        try {
            TierCookiePool pool = new TierCookiePool(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                    "QOSTIER");
            long t0 = System.nanoTime();
            assertEquals(3, pool.fill(3, Duration.ofSeconds(5), Duration.ofSeconds(30)));
            assertTrue(System.nanoTime() - t0 >= 2_000_000_000L, "waited the two Retry-Afters");
            assertEquals(5, logins.get(), "two refused, then three logins");
            assertEquals("v1.premium.u3", pool.get(0));
        } finally {
            server.stop(0);
        }
    }

    @Test
    void aShopThatKeepsRefusingFailsThePreparationAtTheDeadlineNamingTheStatus() throws Exception {
        HttpServer server = shop(Integer.MAX_VALUE, new AtomicInteger());
        try {
            TierCookiePool pool = new TierCookiePool(URI.create("http://127.0.0.1:" + server.getAddress().getPort()),
                    "QOSTIER");
            IOException e = assertThrows(IOException.class, () -> pool.fill(3, Duration.ofSeconds(5),
                    Duration.ofMillis(2500)));
            assertTrue(e.getMessage().matches(".*still answered 503 after [1-9][0-9]* retries.*"), e.getMessage());
        } finally {
            server.stop(0);
        }
    }
}

package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.TierCookies;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.Shop;
import dev.servletqos.sample.ShopClient;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Returning users: the tier cookie /login issues outlives the session, and the next visit carrying it is a
 * premium session from its first request, before any other cookie exists.
 */
class TierCookieTest {

    @ParameterizedTest(name = "{0}")
    @CsvSource({"tomcat", "jetty"})
    void theTierCookieFromLoginMakesTheNextNewSessionPremium(String container) throws Exception {
        try (ShopServer server = Containers.start(container, ShopEndpointsTest.config(true))) {
            ShopClient firstVisit = new ShopClient(server.port());
            HttpResponse<String> login = firstVisit.get("/login?tier=premium&user=ann");
            assertEquals(200, login.statusCode());
            String tier = ShopClient.setCookie(login, "QOSTIER");
            assertNotNull(tier);
            assertTrue(login.headers().allValues("set-cookie").stream()
                    .anyMatch(h -> h.startsWith("QOSTIER=") && h.contains("Max-Age=2592000")),
                    "a 30-day cookie: " + login.headers().allValues("set-cookie"));
            // the login itself came without a tier cookie: a new visitor, basic
            assertEquals(1, server.engine().snapshot().get("basic").sessionsAdmitted());

            // a later visit: only the tier cookie survives (no admission cookie, no container session)
            ShopClient returning = new ShopClient(server.port());
            returning.cookies.put("QOSTIER", tier);
            HttpResponse<String> first = returning.get("/browse");
            assertEquals(200, first.statusCode());
            String admission = ShopClient.setCookie(first, "QOSSESSION");
            assertTrue(admission != null && admission.startsWith("v2.premium."), "admitted as premium: " + admission);
            assertEquals(1, server.engine().snapshot().get("premium").sessionsAdmitted());
            // the session keeps its class without the tier cookie
            returning.cookies.remove("QOSTIER");
            assertEquals(200, returning.get("/item?id=5").statusCode());
            assertEquals(1, server.engine().snapshot().get("premium").sessionsAdmitted());
            // a permit is released when the response is complete, just after the client has it
            EngineIdle.await(server, Duration.ofSeconds(10));
            assertEquals(2, server.engine().snapshot().get("premium").completed());

            // a cookie whose signature does not check out is a new visitor again
            ShopClient forger = new ShopClient(server.port());
            String tail = tier.endsWith("AAAA") ? "BBBB" : "AAAA";
            forger.cookies.put("QOSTIER", tier.substring(0, tier.length() - 4) + tail);
            HttpResponse<String> forged = forger.get("/browse");
            assertEquals(200, forged.statusCode());
            assertTrue(ShopClient.setCookie(forged, "QOSSESSION").startsWith("v2.basic."));
            assertEquals(1, server.engine().snapshot().get("premium").sessionsAdmitted());
            EngineIdle.await(server, Duration.ofSeconds(10));
        }
    }

    @Test
    void withQosOffLoginIssuesTheSameSignedCookie() throws Exception {
        try (ShopServer server = Containers.start("tomcat", ShopEndpointsTest.config(false))) {
            HttpResponse<String> login = new ShopClient(server.port()).get("/login?tier=premium&user=bob");
            TierCookies.Verified v = Shop.tierCookies(SamplePolicy.load(null))
                    .verify(ShopClient.setCookie(login, "QOSTIER"));
            assertEquals(TierCookies.Verified.Status.VALID, v.status());
            assertEquals("premium", v.serviceClass());
            assertEquals("bob", v.subject());
        }
    }
}

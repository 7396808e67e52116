package dev.servletqos.loadtests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.URI;
import org.junit.jupiter.api.Test;

class ShopSessionsTest {

    private static final URI PAGE = URI.create("http://127.0.0.1:8080/item");

    @Test
    void imagesOfTheShopAreResolvedAgainstThePage() {
        assertEquals("http://127.0.0.1:8080/img/full/a.svg", ShopSessions.sameOrigin(PAGE, "/img/full/a.svg").toString());
        assertEquals("http://127.0.0.1:8080/img/a.svg", ShopSessions.sameOrigin(PAGE, "img/a.svg").toString());
        assertEquals("http://127.0.0.1:8080/img/a.svg",
                ShopSessions.sameOrigin(PAGE, "http://127.0.0.1:8080/img/a.svg").toString());
    }

    @Test
    void anotherOriginIsRefused() {
        assertNull(ShopSessions.sameOrigin(PAGE, "http://example.com/img/a.svg"));
        assertNull(ShopSessions.sameOrigin(PAGE, "//example.com/img/a.svg"));
        assertNull(ShopSessions.sameOrigin(PAGE, "http://127.0.0.1:8081/img/a.svg"));
        assertNull(ShopSessions.sameOrigin(PAGE, "http://127.0.0.1/img/a.svg"));
        assertNull(ShopSessions.sameOrigin(PAGE, "https://127.0.0.1:8080/img/a.svg"));
        assertNull(ShopSessions.sameOrigin(PAGE, "http://user@127.0.0.1:8080/img/a.svg"));
        assertNull(ShopSessions.sameOrigin(PAGE, "file:///etc/passwd"));
        assertNull(ShopSessions.sameOrigin(PAGE, "http://[bad"));
    }
}

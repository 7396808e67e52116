package dev.servletqos.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.URI;
import org.junit.jupiter.api.Test;

/** What a client of the shop (the demo's generator, the Gatling simulation) follows of a page's references. */
class PageTest {

    private static final URI PAGE = URI.create("http://127.0.0.1:8080/item");

    @Test
    void imagesOfTheShopAreResolvedAgainstThePage() {
        assertEquals("http://127.0.0.1:8080/img/full/a.svg", Page.Embedded.sameOrigin(PAGE, "/img/full/a.svg").toString());
        assertEquals("http://127.0.0.1:8080/img/a.svg", Page.Embedded.sameOrigin(PAGE, "img/a.svg").toString());
        assertEquals("http://127.0.0.1:8080/img/a.svg", Page.Embedded.sameOrigin(PAGE, " /img/a.svg ").toString());
        assertEquals("http://127.0.0.1:8080/img/a.svg",
                Page.Embedded.sameOrigin(PAGE, "http://127.0.0.1:8080/img/a.svg").toString());
    }

    @Test
    void anotherOriginIsRefused() {
        assertNull(Page.Embedded.sameOrigin(PAGE, "http://example.com/img/a.svg"));
        assertNull(Page.Embedded.sameOrigin(PAGE, "//example.com/img/a.svg"));
        assertNull(Page.Embedded.sameOrigin(PAGE, "http://127.0.0.1:8081/img/a.svg"));
        assertNull(Page.Embedded.sameOrigin(PAGE, "http://127.0.0.1/img/a.svg"));
        assertNull(Page.Embedded.sameOrigin(PAGE, "https://127.0.0.1:8080/img/a.svg"));
        assertNull(Page.Embedded.sameOrigin(PAGE, "http://user@127.0.0.1:8080/img/a.svg"));
        assertNull(Page.Embedded.sameOrigin(PAGE, "file:///etc/passwd"));
        assertNull(Page.Embedded.sameOrigin(PAGE, "http://[bad"));
    }
}

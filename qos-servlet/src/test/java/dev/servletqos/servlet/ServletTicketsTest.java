package dev.servletqos.servlet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

/** The path a request is forwarded to for its content level's tree is percent-encoded as a URI path. */
class ServletTicketsTest {

    @Test
    void aPlainPathIsKeptAsItIs() {
        String p = "/degraded/img/a-b_c.~1!$&'()*+,=:@.png";
        assertSame(p, ServletTickets.encodePath(p));
    }

    @Test
    void otherCharactersArePercentEncodedAsUtf8() {
        assertEquals("/degraded/img/caf%C3%A9%20au%20lait.png",
                ServletTickets.encodePath("/degraded/img/caf\u00e9 au lait.png"));
        assertEquals("/d/a%3Bb%3Fc%23d%25e", ServletTickets.encodePath("/d/a;b?c#d%e"));
        assertEquals("/d/%F0%9F%98%80", ServletTickets.encodePath("/d/\uD83D\uDE00"));
    }
}

package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The event-stream check every request's {@code Accept} header meets ({@link AcceptHeader}), on text and on bytes. */
class FrontDoorTest {

    /** The check on the header's text, checked against the same on its bytes within a larger buffer. */
    private static boolean contains(String header, String type) {
        boolean fromText = AcceptHeader.contains(header, type);
        byte[] h = header.getBytes(StandardCharsets.ISO_8859_1);
        byte[] buffer = new byte[h.length + 40];
        System.arraycopy(h, 0, buffer, 20, h.length);
        System.arraycopy("text/event-stream".getBytes(StandardCharsets.ISO_8859_1), 0, buffer, 0, 17);
        System.arraycopy("/event-stream".getBytes(StandardCharsets.ISO_8859_1), 0, buffer, 20 + h.length, 13);
        assertEquals(fromText, AcceptHeader.contains(buffer, 20, 20 + h.length, type), "bytes of [" + header + "]");
        return fromText;
    }

    @Test
    void anAcceptHeaderNamingTheEventStreamInAnyCaseAndPlaceIsOne() {
        assertTrue(contains("text/event-stream", FrontDoor.EVENT_STREAM));
        assertTrue(contains("TEXT/Event-Stream", FrontDoor.EVENT_STREAM));
        assertTrue(contains("application/json, text/event-stream;q=0.9", FrontDoor.EVENT_STREAM));
        assertTrue(contains("*/*,text/event-stream", FrontDoor.EVENT_STREAM));
    }

    @Test
    void aBrowsersOrAnApiCallersAcceptHeaderIsNone() {
        assertFalse(contains("text/html,application/xhtml+xml,*/*;q=0.8", FrontDoor.EVENT_STREAM));
        assertFalse(contains("application/json", FrontDoor.EVENT_STREAM));
        assertFalse(contains("text/event-strea", FrontDoor.EVENT_STREAM));
        assertFalse(contains("/event-stream", FrontDoor.EVENT_STREAM));
        assertFalse(contains("", FrontDoor.EVENT_STREAM));
        assertFalse(contains("tex/event-stream", FrontDoor.EVENT_STREAM));
    }
}

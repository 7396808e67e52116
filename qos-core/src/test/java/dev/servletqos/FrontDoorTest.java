package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The event-stream check every request's {@code Accept} header meets ({@link FrontDoor#containsIgnoreCase}). */
class FrontDoorTest {

    @Test
    void anAcceptHeaderNamingTheEventStreamInAnyCaseAndPlaceIsOne() {
        assertTrue(FrontDoor.containsIgnoreCase("text/event-stream", FrontDoor.EVENT_STREAM));
        assertTrue(FrontDoor.containsIgnoreCase("TEXT/Event-Stream", FrontDoor.EVENT_STREAM));
        assertTrue(FrontDoor.containsIgnoreCase("application/json, text/event-stream;q=0.9", FrontDoor.EVENT_STREAM));
        assertTrue(FrontDoor.containsIgnoreCase("*/*,text/event-stream", FrontDoor.EVENT_STREAM));
    }

    @Test
    void aBrowsersOrAnApiCallersAcceptHeaderIsNone() {
        assertFalse(FrontDoor.containsIgnoreCase("text/html,application/xhtml+xml,*/*;q=0.8", FrontDoor.EVENT_STREAM));
        assertFalse(FrontDoor.containsIgnoreCase("application/json", FrontDoor.EVENT_STREAM));
        assertFalse(FrontDoor.containsIgnoreCase("text/event-strea", FrontDoor.EVENT_STREAM));
        assertFalse(FrontDoor.containsIgnoreCase("/event-stream", FrontDoor.EVENT_STREAM));
        assertFalse(FrontDoor.containsIgnoreCase("", FrontDoor.EVENT_STREAM));
        assertFalse(FrontDoor.containsIgnoreCase("tex/event-stream", FrontDoor.EVENT_STREAM));
    }
}

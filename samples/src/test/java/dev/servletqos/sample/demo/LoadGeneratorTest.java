package dev.servletqos.sample.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.workload.ShopWorkload;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

class LoadGeneratorTest {

    @Test
    void embeddedImagesAreFoundByTheWorkloadsTagAndAttribute() {
        Matcher m = LoadGenerator.reference(ShopWorkload.ITEM.embeds())
                .matcher("<h1>x</h1>\n<img src=\"/img/a.svg\" alt=\"A\">\n<img alt=\"B\" src=\"/img/b.svg\">");
        assertTrue(m.find());
        assertEquals("/img/a.svg", m.group(1));
        assertTrue(m.find());
        assertEquals("/img/b.svg", m.group(1));
        assertFalse(m.find());
    }

    @Test
    void onlyARefusalAtTheDoorIsNotADelay() {
        String door = "<p>We cannot start a new visit right now because the site is very busy.</p>";
        String expired = "<p>The site is very busy and could not answer your request in time.</p>";
        assertTrue(LoadGenerator.sessionRefusal(true, 503, door));
        assertTrue(LoadGenerator.sessionRefusal(true, 429, ""));
        assertFalse(LoadGenerator.sessionRefusal(true, 503, expired)); // the first request waited and expired
        assertFalse(LoadGenerator.sessionRefusal(false, 503, expired));
        assertFalse(LoadGenerator.sessionRefusal(false, 503, door));
    }
}

package dev.servletqos.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** {@code content.paths} and {@code content.<level>.prefix}: parsed, checked at start, and the rewrite they make. */
class ContentTreesTest {

    private static final String CLASSES = "classes = premium, basic\nclass.basic.levels = 3\n";

    @Test
    void aMatchingPathBelowFullContentIsServedFromItsLevelsTree() {
        ContentTrees t = parse(CLASSES + "content.paths = /img/, *.css\ncontent.1.prefix = /degraded\n"
                + "content.2.prefix = /lighter/tree\n").contentTrees();
        assertEquals("/degraded/img/a.png", t.rewrite("/img/a.png", 1, 3));
        assertEquals("/lighter/tree/img/a.png", t.rewrite("/img/a.png", 2, 3));
        assertEquals("/degraded/site/main.css", t.rewrite("/site/main.css", 1, 3));
        assertNull(t.rewrite("/img/a.png", 3, 3), "full content is served as requested");
        assertNull(t.rewrite("/img/a.png", 1, 1), "level 1 of a class with one level is its full content");
        assertNull(t.rewrite("/page", 1, 3), "a path outside content.paths");
        assertNull(t.rewrite("/imgx/a.png", 1, 3), "a prefix matches at a segment boundary");
        assertNull(t.rewrite(null, 1, 3));
        assertNull(t.rewrite("/img/a.png", 0, 3), "level 0 is refused, never served");
    }

    @Test
    void aLevelWithoutPrefixIsServedAsRequested() {
        ContentTrees t = parse(CLASSES + "content.paths = /img/\ncontent.1.prefix = /degraded\n").contentTrees();
        assertNull(t.rewrite("/img/a.png", 2, 3));
        assertEquals("/degraded", t.prefix(1));
        assertNull(t.prefix(2));
    }

    @Test
    void withoutContentKeysNothingIsRewritten() {
        QosPolicy p = parse(CLASSES);
        assertSame(ContentTrees.NONE, p.contentTrees());
        assertTrue(p.contentTrees().isEmpty());
        assertNull(p.contentTrees().rewrite("/img/a.png", 1, 3));
    }

    @Test
    void badContentKeysStopTheStartNamingKeyAndValue() {
        fails(CLASSES + "content.1.prefix = /degraded\n",
                "content.1.prefix = /degraded: content.paths is not set: the prefix would apply to no path");
        fails(CLASSES + "content.paths = /img/\n", "content.paths = /img/: no content.<level>.prefix is set: give "
                + "the tree of at least one level, e.g. content.1.prefix = /degraded");
        fails(CLASSES + "content.paths = /img/\ncontent.1.prefix = degraded\n",
                "content.1.prefix = degraded: must be a path such as /degraded: starting with '/', not ending with it");
        fails(CLASSES + "content.paths = /img/\ncontent.1.prefix = /degraded/\n",
                "content.1.prefix = /degraded/: must be a path such as /degraded: starting with '/', not ending "
                        + "with it");
        fails(CLASSES + "content.paths = /img/\ncontent.1.prefix = /a/../WEB-INF\n",
                "content.1.prefix = /a/../WEB-INF: must not have an empty, '.' or '..' segment");
        fails(CLASSES + "content.paths = /img/\ncontent.1.prefix = /a?b\n",
                "content.1.prefix = /a?b: may hold letters, digits, '-', '_', '.', '~' and '/' only");
        fails(CLASSES + "content.paths = /img/\ncontent.3.prefix = /x\n", "content.3.prefix = /x: no class has a "
                + "content level 3 below its full content (the most class.<name>.levels is 3); full content is "
                + "served from the path as it is");
        fails(CLASSES + "content.paths = img\ncontent.1.prefix = /x\n", "content.paths = img: \"img\": path pattern "
                + "must start with '/' (or with '*' to match the last segments at any depth, as in \"*.jpg\")");
        PolicyException zero = assertThrows(PolicyException.class,
                () -> parse(CLASSES + "content.paths = /img/\ncontent.0.prefix = /x\n"));
        assertEquals("content.0.prefix", zero.key());
        PolicyException high = assertThrows(PolicyException.class,
                () -> parse(CLASSES + "content.paths = /img/\ncontent.16.prefix = /x\n"));
        assertEquals("test: content.16.prefix = /x: the level must be 1..15 (below the full content of a class)",
                high.getMessage());
        PolicyException typo = assertThrows(PolicyException.class,
                () -> parse(CLASSES + "content.paths = /img/\ncontent.1.prefx = /x\n"));
        assertEquals("test: content.1.prefx = /x: unknown key; did you mean content.1.prefix?", typo.getMessage());
    }

    @Test
    void theBuilderGivesTheContentTreesBack() {
        QosPolicy p = parse(CLASSES + "content.paths = /img/\ncontent.2.prefix = /lighter\n");
        assertEquals(p, p.toBuilder().build());
        QosPolicy none = p.toBuilder().content(c -> c.withPaths(java.util.List.of()).withPrefix(2, null)).build();
        assertSame(ContentTrees.NONE, none.contentTrees());
    }

    private static void fails(String text, String message) {
        PolicyException e = assertThrows(PolicyException.class, () -> parse(text));
        assertEquals("test: " + message, e.getMessage());
    }

    private static QosPolicy parse(String text) {
        Properties props = new Properties();
        try {
            props.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return PolicyParser.parse(props, "test");
    }
}

package dev.servletqos.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The key table, the parser and {@code docs/configuration.md} say the same thing. */
class PolicyKeysTest {

    private static final String CLASSES = "classes = premium, basic\n";

    @Test
    void docsStateEveryKeysDefaultAsTheTableDoes() {
        Map<String, String> documented = documentedDefaults();
        List<String> wrong = new ArrayList<>();
        for (PolicyKeys.Section<?> section : PolicyKeys.SECTIONS) {
            for (Key<?, ?> key : section.keys()) {
                String name = section.prefix() + key.name();
                String inDocs = documented.get(name);
                String inTable = key.byDefault().text();
                if (!inTable.equals(inDocs)) {
                    wrong.add(name + ": the table says <" + inTable + ">, the docs <" + inDocs + ">");
                }
            }
        }
        assertEquals(List.of(), wrong, "defaults in docs/configuration.md's key tables");
    }

    @Test
    void docsDocumentNoKeyTheTableLacks() {
        List<String> known = new ArrayList<>();
        for (PolicyKeys.Section<?> section : PolicyKeys.SECTIONS) {
            known.addAll(section.names(null));
        }
        List<String> unknown = new ArrayList<>(documentedDefaults().keySet());
        unknown.removeAll(known);
        assertEquals(List.of(), unknown, "keys documented in docs/configuration.md but not in the key table");
    }

    @Test
    void literalDefaultsAreWhatTheCodeApplies() {
        // a rule key's default is checked on a rule that takes it
        String rule = "rule.1.type = path\nrule.1.value = /x\nrule.1.class = basic\n";
        for (PolicyKeys.Section<?> section : PolicyKeys.SECTIONS) {
            boolean rules = section == PolicyKeys.RULE;
            String base = rules ? CLASSES + rule : CLASSES;
            QosPolicy defaults = parse(base);
            for (Key<?, ?> key : section.keys()) {
                String literal = key.byDefault().literal();
                if (literal == null) {
                    continue;
                }
                String line = section.prefix(rules ? "1" : "basic") + key.name() + " = " + literal;
                assertEquals(defaults, parse(base + line + "\n"), line + " changes the policy");
            }
        }
    }

    @Test
    void everyRowIsDescribed() {
        for (PolicyKeys.Section<?> section : PolicyKeys.SECTIONS) {
            for (Key<?, ?> key : section.keys()) {
                String name = section.prefix() + key.name();
                assertFalse(key.description().isBlank(), name);
                assertTrue(key.description().endsWith("."), name + ": one sentence");
                assertEquals(key, section.find(key.name()), name + " appears once");
            }
        }
    }

    @Test
    void enumsListTheirChoicesAsTheirRange() {
        for (PolicyKeys.Section<?> section : PolicyKeys.SECTIONS) {
            for (Key<?, ?> key : section.keys()) {
                if (key.type().name().equals("enum")) {
                    assertEquals(key.type().choiceList(), key.range(), section.prefix() + key.name());
                }
            }
        }
    }

    /** Key to default cell of every row of the docs' tables whose header starts with "| key |". */
    private static Map<String, String> documentedDefaults() {
        Map<String, String> defaults = new LinkedHashMap<>();
        int defaultColumn = -1;
        for (String line : PolicyParserTest.docs().split("\n")) {
            if (!line.startsWith("|")) {
                defaultColumn = -1;
                continue;
            }
            List<String> cells = cells(line);
            if (cells.get(0).equals("key")) {
                defaultColumn = cells.indexOf("default");
            } else if (defaultColumn > 0 && cells.get(0).startsWith("`")) {
                defaults.put(plain(cells.get(0)), plain(cells.get(defaultColumn)));
            }
        }
        assertFalse(defaults.isEmpty(), "docs/configuration.md has key tables");
        return defaults;
    }

    private static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        for (String cell : line.substring(1).split("\\|", -1)) {
            cells.add(cell.trim());
        }
        return cells;
    }

    private static String plain(String markdown) {
        return markdown.replace("`", "").replaceAll("\\s+", " ").trim();
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

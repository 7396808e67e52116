package dev.servletqos.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Keeps the starter's configuration metadata for the policy keys
 * ({@code META-INF/additional-spring-configuration-metadata.json}, which Boot's configuration processor merges into
 * the jar's {@code spring-configuration-metadata.json}, so that IDEs complete and document {@code servlet-qos.*})
 * generated from the key table: one entry per key, one map entry per named section ({@code servlet-qos.class} for
 * {@code class.<name>.*}), hints for the enumerated values. In this package to read the package-private key table.
 *
 * <p>When a key changes, regenerate the file:
 * {@code ./mvnw -pl servlet-qos-spring-boot -am test -Dtest=SpringMetadataTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dmetadata.write=true}.
 */
class SpringMetadataTest {

    private static final Path FILE = Path.of("src/main/resources/META-INF/additional-spring-configuration-metadata.json");
    private static final Path MERGED = Path.of("target/classes/META-INF/spring-configuration-metadata.json");
    private static final String PREFIX = "servlet-qos.";

    @Test
    void theMetadataFileIsGeneratedFromTheKeyTable() throws IOException {
        String expected = metadata();
        if (Boolean.getBoolean("metadata.write")) {
            Files.writeString(FILE, expected, StandardCharsets.UTF_8);
        }
        assertThat(Files.readString(FILE, StandardCharsets.UTF_8)).as("%s is stale: regenerate it (see this class)",
                FILE).isEqualTo(expected);
    }

    @Test
    void theJarsMetadataHasEveryKeyAndTheStartersOwn() throws IOException {
        String merged = Files.readString(MERGED, StandardCharsets.UTF_8);
        for (PolicyKeys.Section<?> s : PolicyKeys.SECTIONS) {
            for (String key : s.names(null)) {
                assertThat(merged).contains("\"name\": \"" + PREFIX + propertyName(s, key) + "\"");
            }
        }
        assertThat(merged).contains("\"name\": \"servlet-qos.adapter\"").contains("\"name\": \"servlet-qos.policy\"")
                .contains("\"name\": \"servlet-qos.exempt-actuator\"");
    }

    /** A key as it is in the metadata: itself, or for a named section the section's map. */
    private static String propertyName(PolicyKeys.Section<?> s, String key) {
        int open = s.prefix().indexOf('<');
        return open < 0 ? key : s.prefix().substring(0, open - 1);
    }

    static String metadata() {
        List<String> properties = new ArrayList<>();
        List<String> hints = new ArrayList<>();
        List<String> maps = new ArrayList<>();
        for (PolicyKeys.Section<?> s : PolicyKeys.SECTIONS) {
            int open = s.prefix().indexOf('<');
            if (open >= 0) {
                String map = s.prefix().substring(0, open - 1);
                String entry = "    {\n      \"name\": " + json(PREFIX + map) + ",\n"
                        + "      \"type\": \"java.util.Map<java.lang.String,java.lang.String>\",\n"
                        + "      \"description\": " + json("Policy keys " + s.prefix() + "*: " + s.suffixes()
                        + ". See docs/configuration.md.") + "\n    }";
                if (maps.contains(map)) {
                    continue;
                }
                maps.add(map);
                properties.add(entry);
                continue;
            }
            for (Key<?, ?> k : s.keys()) {
                String name = PREFIX + s.prefix() + k.name();
                StringBuilder p = new StringBuilder("    {\n      \"name\": ").append(json(name)).append(",\n")
                        .append("      \"type\": ").append(json(javaType(k.type()))).append(",\n")
                        .append("      \"description\": ").append(json(description(k)));
                if (k.byDefault().literal() != null && k.byDefault().note() == null) {
                    p.append(",\n      \"defaultValue\": ").append(json(k.byDefault().literal()));
                }
                properties.add(p.append("\n    }").toString());
                String choices = k.type().choiceList();
                if (!choices.isEmpty()) {
                    StringBuilder h = new StringBuilder("    {\n      \"name\": ").append(json(name))
                            .append(",\n      \"values\": [\n");
                    String[] values = choices.split(", ");
                    for (int i = 0; i < values.length; i++) {
                        h.append("        {\n          \"value\": ").append(json(values[i])).append("\n        }")
                                .append(i < values.length - 1 ? ",\n" : "\n");
                    }
                    hints.add(h.append("      ]\n    }").toString());
                }
            }
        }
        return "{\n  \"properties\": [\n" + String.join(",\n", properties) + "\n  ],\n  \"hints\": [\n"
                + String.join(",\n", hints) + "\n  ]\n}\n";
    }

    private static String description(Key<?, ?> k) {
        StringBuilder d = new StringBuilder(k.description());
        if (!k.unit().isEmpty()) {
            d.append(" Unit: ").append(k.unit()).append('.');
        }
        if (!k.range().isEmpty()) {
            d.append(" Range: ").append(k.range()).append('.');
        }
        if (k.byDefault().literal() == null || k.byDefault().note() != null) {
            d.append(" Default: ").append(k.byDefault().text()).append('.');
        }
        return d.toString();
    }

    private static String javaType(ValueType<?> type) {
        return switch (type.name()) {
            case "integer" -> "java.lang.Integer";
            case "decimal" -> "java.lang.Double";
            case "boolean" -> "java.lang.Boolean";
            case "duration" -> "java.time.Duration";
            case "list" -> "java.util.List<java.lang.String>";
            default -> "java.lang.String";
        };
    }

    private static String json(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}

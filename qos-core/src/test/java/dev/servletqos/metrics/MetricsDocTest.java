package dev.servletqos.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.QosEngine;
import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.VirtualServerPlan;
import dev.servletqos.policy.VirtualServerPolicy;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * {@code docs/metrics.md} names every meter {@link QosMetrics} registers, with its type, tag keys (and, where the
 * doc lists them, every tag value) and unit, and nothing that is not registered: the page cannot drift.
 */
class MetricsDocTest {

    private static final Path DOC = Path.of("..", "docs", "metrics.md");
    private static final Pattern TAG = Pattern.compile("`([a-z.]+)`(?:\\s*\\(([^)]*)\\))?");

    /** One row of the doc's tables. */
    record Row(String type, Map<String, Set<String>> tags, String unit) {
    }

    static Map<String, Row> rows(String doc) {
        Map<String, Row> rows = new LinkedHashMap<>();
        for (String line : doc.split("\n")) {
            if (!line.startsWith("| `qos.")) {
                continue;
            }
            String[] cells = line.split("\\|", -1);
            // "", meter, type, tags, unit, meaning, ""
            assertEquals(7, cells.length, "a row has five cells: " + line);
            String name = cells[1].trim().replace("`", "");
            Map<String, Set<String>> tags = new LinkedHashMap<>();
            Matcher m = TAG.matcher(cells[3]);
            while (m.find()) {
                Set<String> values = new LinkedHashSet<>();
                if (m.group(2) != null) {
                    for (String v : m.group(2).split(",")) {
                        values.add(v.trim());
                    }
                }
                tags.put(m.group(1), values);
            }
            String unit = cells[4].trim().replace("`", "");
            Row was = rows.put(name, new Row(cells[2].trim(), tags, unit.equals("none") ? null : unit));
            assertEquals(null, was, name + " has two rows");
        }
        return rows;
    }

    @Test
    void everyMeterTheBinderRegistersIsDocumentedWithItsTypeTagsAndUnitAndNothingElseIs() throws IOException {
        Map<String, Row> doc = rows(Files.readString(DOC, StandardCharsets.UTF_8));
        assertTrue(doc.size() > 10, "the tables were found: " + doc.keySet());

        // every kind of meter: per class (one with content levels), per bucket, per virtual server, of a cluster
        QosPolicy policy = QosPolicy.builder().addClass(ClassPolicy.named("premium"))
                .addClass(ClassPolicy.named("basic").withLevels(2))
                .addBucket(BucketPolicy.onPaths("search", 2, 1, 1, "/search/*"))
                .addVirtualServer(VirtualServerPolicy.of("shop", 1, 1000, "shop.example"))
                .virtualServerPlan(new VirtualServerPlan(0.1, 0, 0.58)).build();
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        QosEngine engine = QosEngine.create(policy);
        dev.servletqos.ClusterLink.join(engine, new dev.servletqos.cluster.InMemoryClusterState(), "node-1",
                java.time.Duration.ofSeconds(1));
        try (QosMetrics metrics = new QosMetrics(engine)) {
            metrics.bindTo(registry);
            List<String> problems = new ArrayList<>();
            Set<String> registered = new TreeSet<>();
            for (Meter meter : registry.getMeters()) {
                Meter.Id id = meter.getId();
                registered.add(id.getName());
                Row row = doc.get(id.getName());
                if (row == null) {
                    problems.add(id.getName() + " is registered but not in docs/metrics.md");
                    continue;
                }
                String type = id.getType().name().toLowerCase(Locale.ROOT);
                if (!type.equals(row.type())) {
                    problems.add(id.getName() + ": a " + type + ", the doc says " + row.type());
                }
                if (!java.util.Objects.equals(id.getBaseUnit(), row.unit())) {
                    problems.add(id.getName() + ": unit " + id.getBaseUnit() + ", the doc says " + row.unit());
                }
                Set<String> keys = new TreeSet<>();
                for (Tag t : id.getTags()) {
                    keys.add(t.getKey());
                    Set<String> values = row.tags().get(t.getKey());
                    if (values != null && !values.isEmpty() && !values.contains(t.getValue())) {
                        problems.add(id.getName() + ": tag " + t.getKey() + " = " + t.getValue()
                                + " is not among the doc's " + values);
                    }
                }
                if (!keys.equals(new TreeSet<>(row.tags().keySet()))) {
                    problems.add(id.getName() + ": tags " + keys + ", the doc says " + row.tags().keySet());
                }
            }
            for (String name : doc.keySet()) {
                if (!registered.contains(name)) {
                    problems.add(name + " is in docs/metrics.md but no meter has that name");
                }
            }
            assertEquals(List.of(), problems);
        }
    }
}

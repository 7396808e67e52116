package dev.servletqos.sample.run;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A scrape in the Prometheus text format (0.0.4) as the tests read it: its samples and the {@code # TYPE} and
 * {@code # HELP} of each family. Strict: a line that is neither a comment nor a well-formed sample is an
 * {@link IllegalArgumentException} quoting it.
 */
final class Exposition {

    /** One sample line: {@code name{labels} value}. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final Pattern LINE = Pattern.compile(
            "([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)})?\\s+(\\S+)(?:\\s+-?[0-9]+)?");
    private static final Pattern LABEL = Pattern.compile(
            "\\s*([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"\\s*(,|$)");

    final List<Sample> samples = new ArrayList<>();
    final Map<String, String> types = new HashMap<>();
    final Map<String, String> help = new HashMap<>();

    static Exposition parse(String body) {
        Exposition e = new Exposition();
        for (String line : body.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            if (line.startsWith("#")) {
                String[] p = line.split(" ", 4);
                if (p.length >= 4 && p[1].equals("TYPE")) {
                    e.types.put(p[2], p[3].trim());
                } else if (p.length >= 4 && p[1].equals("HELP")) {
                    e.help.put(p[2], p[3]);
                }
                continue;
            }
            Matcher m = LINE.matcher(line);
            if (!m.matches()) {
                throw new IllegalArgumentException("not a sample line: " + line);
            }
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null && !m.group(2).isEmpty()) {
                Matcher l = LABEL.matcher(m.group(2));
                int end = 0;
                while (l.lookingAt()) {
                    labels.put(l.group(1), l.group(2));
                    end = l.end();
                    l.region(end, m.group(2).length());
                    if (end == m.group(2).length()) {
                        break;
                    }
                }
                if (end != m.group(2).length()) {
                    throw new IllegalArgumentException("malformed labels: " + line);
                }
            }
            double value;
            try {
                value = switch (m.group(3)) {
                    case "+Inf" -> Double.POSITIVE_INFINITY;
                    case "-Inf" -> Double.NEGATIVE_INFINITY;
                    default -> Double.parseDouble(m.group(3));
                };
            } catch (NumberFormatException x) {
                throw new IllegalArgumentException("not a number: " + line, x);
            }
            e.samples.add(new Sample(m.group(1), labels, value));
        }
        return e;
    }

    /** The names of the samples, sorted. */
    Set<String> names() {
        Set<String> names = new TreeSet<>();
        samples.forEach(s -> names.add(s.name()));
        return names;
    }

    /** The samples named {@code name} whose labels include all of {@code labels}. */
    List<Sample> find(String name, Map<String, String> labels) {
        List<Sample> out = new ArrayList<>();
        for (Sample s : samples) {
            if (s.name().equals(name) && s.labels().entrySet().containsAll(labels.entrySet())) {
                out.add(s);
            }
        }
        return out;
    }

    /** The value of the one sample named {@code name} with {@code labels}; fails unless exactly one matches. */
    double value(String name, Map<String, String> labels) {
        List<Sample> found = find(name, labels);
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " samples " + name + labels + " in the scrape, expected one");
        }
        return found.get(0).value();
    }
}

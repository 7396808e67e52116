package dev.servletqos.sample.run;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a dashboard's PromQL expression names: its metrics, its label matchers and its grouping labels. Enough
 * PromQL for dashboards (selectors, functions, aggregations with {@code by}/{@code without}, binary operators with
 * {@code on}/{@code ignoring}/{@code group_left}, ranges, offsets, Grafana's {@code $variables}), not a parser of
 * the whole language.
 */
final class PromQl {

    /** One label matcher of a selector: {@code metric{label op "value"}}. */
    record LabelMatcher(String metric, String label, String op, String value) {
    }

    private static final Pattern STRING = Pattern.compile("\"(?:[^\"\\\\]|\\\\.)*\"");
    private static final Pattern SELECTOR = Pattern.compile(
            "(?<![A-Za-z0-9_:.$])([A-Za-z_:][A-Za-z0-9_:]*)\\s*\\{([^}]*)}");
    private static final Pattern MATCHER = Pattern.compile(
            "([A-Za-z_][A-Za-z0-9_]*)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Pattern GROUPING = Pattern.compile(
            "\\b(by|without|on|ignoring|group_left|group_right)\\s*\\(([^)]*)\\)");
    private static final Pattern IDENTIFIER = Pattern.compile("(?<![A-Za-z0-9_:.$])[A-Za-z_:][A-Za-z0-9_:]*");
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "bool", "offset", "by", "without",
            "on", "ignoring", "group_left", "group_right", "inf", "nan", "Inf", "NaN");

    private PromQl() {
    }

    /** The metric names {@code expr} selects, in order of appearance. */
    static Set<String> metrics(String expr) {
        String s = STRING.matcher(expr).replaceAll("\"\"");
        s = s.replaceAll("\\{[^}]*}", " ");
        s = s.replaceAll("\\[[^]]*]", " ");
        s = GROUPING.matcher(s).replaceAll(" ");
        Set<String> names = new LinkedHashSet<>();
        Matcher m = IDENTIFIER.matcher(s);
        while (m.find()) {
            String name = m.group();
            int next = m.end();
            while (next < s.length() && Character.isWhitespace(s.charAt(next))) {
                next++;
            }
            boolean call = next < s.length() && s.charAt(next) == '(';
            if (!call && !KEYWORDS.contains(name)) {
                names.add(name);
            }
        }
        return names;
    }

    /** The label matchers of {@code expr}'s selectors that have braces. */
    static List<LabelMatcher> matchers(String expr) {
        List<LabelMatcher> out = new ArrayList<>();
        Matcher sel = SELECTOR.matcher(expr);
        while (sel.find()) {
            Matcher m = MATCHER.matcher(sel.group(2));
            while (m.find()) {
                out.add(new LabelMatcher(sel.group(1), m.group(1), m.group(2), m.group(3)));
            }
        }
        return out;
    }

    /** The labels {@code expr} groups by ({@code by (...)}, {@code on (...)}; not {@code without}). */
    static Set<String> groupingLabels(String expr) {
        Set<String> labels = new LinkedHashSet<>();
        Matcher m = GROUPING.matcher(STRING.matcher(expr).replaceAll("\"\""));
        while (m.find()) {
            if (m.group(1).equals("without") || m.group(1).equals("ignoring")) {
                continue;
            }
            for (String l : m.group(2).split(",")) {
                if (!l.isBlank()) {
                    labels.add(l.trim());
                }
            }
        }
        return labels;
    }
}

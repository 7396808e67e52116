package dev.servletqos.sample.run;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.sample.ShopClient;
import dev.servletqos.testkit.JsonTree;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard in {@code samples/grafana/}: it loads, every panel asks the chosen Prometheus, and every
 * metric, label and label value its queries name is one the shop's {@code /metrics} really exports.
 */
class GrafanaDashboardTest {

    static final Path DASHBOARD = Path.of(System.getProperty("basedir", "."), "grafana",
            "servlet-qos-dashboard.json");
    /** Labels Prometheus adds to every series of a target when it scrapes; no exporter serves them. */
    private static final Set<String> TARGET_LABELS = Set.of("instance", "job");
    private static final Pattern LABEL_VALUES = Pattern.compile("label_values\\(\\s*(.+?)\\s*,\\s*(\\w+)\\s*\\)");
    private static final Pattern PLAIN_ALTERNATIVES = Pattern.compile("[A-Za-z0-9_.+-]+(\\|[A-Za-z0-9_.+-]+)*");

    @SuppressWarnings("unchecked")
    static Map<String, Object> dashboard() throws IOException {
        return (Map<String, Object>) JsonTree.parse(Files.readString(DASHBOARD, StandardCharsets.UTF_8));
    }

    @SuppressWarnings("unchecked")
    static List<Map<String, Object>> list(Object o) {
        return (List<Map<String, Object>>) o;
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    /** Every PromQL expression of the dashboard, by where it is: panel title and refId, or variable name. */
    static Map<String, String> expressions(Map<String, Object> d) {
        Map<String, String> out = new LinkedHashMap<>();
        for (Map<String, Object> p : list(d.get("panels"))) {
            for (Map<String, Object> t : list(p.get("targets"))) {
                out.put("panel \"" + p.get("title") + "\" " + t.get("refId"), (String) t.get("expr"));
            }
        }
        for (Map<String, Object> v : list(map(d.get("templating")).get("list"))) {
            if ("query".equals(v.get("type"))) {
                Object q = v.get("query");
                String query = q instanceof Map ? (String) map(q).get("query") : (String) q;
                Matcher m = LABEL_VALUES.matcher(query);
                assertTrue(m.matches(), "variable " + v.get("name") + ": label_values(selector, label): " + query);
                out.put("variable " + v.get("name"), m.group(1));
            }
        }
        return out;
    }

    @Test
    void theExtractorFindsMetricsNotFunctionsLabelsOrVariables() {
        String expr = "sum by (qos_class, reason) (rate(a_total{instance=~\"$instance\", outcome=\"x\"}[$__rate_interval]))"
                + " / on (qos_class) group_left b_seconds + count(c offset 5m) > 3e2 and d{l!~\"y|z\"}";
        assertEquals(List.of("a_total", "b_seconds", "c", "d"), new ArrayList<>(PromQl.metrics(expr)));
        assertEquals(List.of(new PromQl.LabelMatcher("a_total", "instance", "=~", "$instance"),
                        new PromQl.LabelMatcher("a_total", "outcome", "=", "x"),
                        new PromQl.LabelMatcher("d", "l", "!~", "y|z")),
                PromQl.matchers(expr));
        assertEquals(Set.of("qos_class", "reason"), PromQl.groupingLabels(expr));
    }

    @Test
    void everyPanelQueriesThePrometheusChosenInTheDatasourceVariable() throws IOException {
        Map<String, Object> d = dashboard();
        Map<String, Object> variable = list(map(d.get("templating")).get("list")).stream()
                .filter(v -> "datasource".equals(v.get("type"))).findFirst().orElse(null);
        assertNotNull(variable, "a datasource variable");
        assertEquals("prometheus", variable.get("query"));
        String uid = "${" + variable.get("name") + "}";
        Set<Object> ids = new HashSet<>();
        for (Map<String, Object> p : list(d.get("panels"))) {
            String title = (String) p.get("title");
            assertTrue(ids.add(p.get("id")), "panel ids are unique: " + title);
            assertEquals(uid, map(p.get("datasource")).get("uid"), title);
            assertFalse(list(p.get("targets")).isEmpty(), title + " has queries");
            for (Map<String, Object> t : list(p.get("targets"))) {
                assertEquals(uid, map(t.get("datasource")).get("uid"), title + " " + t.get("refId"));
                String expr = (String) t.get("expr");
                assertTrue(expr != null && !PromQl.metrics(expr).isEmpty(), title + ": a query naming a metric");
            }
        }
        // what the issue asks the dashboard to show
        Set<String> named = new TreeSet<>();
        expressions(d).values().forEach(e -> named.addAll(PromQl.metrics(e)));
        assertTrue(named.containsAll(Set.of("qos_wait_seconds_sum", "qos_wait_seconds_count", "qos_control_reference",
                "qos_budget_requests", "qos_max_executing_requests", "qos_max_executing_ceiling_requests",
                "qos_session_rate_sessions", "qos_sessions_total", "qos_rejections_total",
                "qos_requests_total", "shop_pages_seconds_count")), named.toString());
    }

    @Test
    void everyMetricLabelAndValueTheDashboardNamesIsExportedByTheRunningShop() throws Exception {
        Map<String, String> expressions = expressions(dashboard());
        try (ShopServer server = Containers.start("tomcat", ShopEndpointsTest.config(true))) {
            // a little load: a basic session, and a premium one (a returning subscriber: the tier cookie from an
            // earlier login, a new admission session), each through the shop to checkout
            for (String tier : new String[] {"basic", "premium"}) {
                ShopClient c = new ShopClient(server.port());
                assertEquals(200, c.get("/login?tier=" + tier).statusCode());
                c.cookies.remove("QOSSESSION");
                assertEquals(200, c.get("/browse?page=3").statusCode());
                HttpResponse<String> item = c.get("/item?id=45");
                assertEquals(200, item.statusCode());
                Matcher img = Pattern.compile("<img src=\"([^\"]+)\"").matcher(item.body());
                assertTrue(img.find(), item.body());
                assertEquals(200, c.getBytes(img.group(1)).statusCode());
                assertEquals(200, c.post("/checkout").statusCode());
            }
            Map<String, String> premiumCompleted = Map.of("qos_class", "premium", "outcome", "completed");
            HttpResponse<String> r = PrometheusEndpointTest.scrapeUntil(new ShopClient(server.port()),
                    e -> e.find("qos_requests_total", premiumCompleted).stream().mapToDouble(Exposition.Sample::value)
                            .sum() >= 4);
            Exposition scrape = Exposition.parse(r.body());

            List<String> problems = new ArrayList<>();
            for (Map.Entry<String, String> x : expressions.entrySet()) {
                String where = x.getKey();
                String expr = x.getValue();
                Set<String> metrics = PromQl.metrics(expr);
                for (String metric : metrics) {
                    if (scrape.find(metric, Map.of()).isEmpty()) {
                        problems.add(where + ": " + metric + " is not exported");
                    }
                }
                for (PromQl.LabelMatcher m : PromQl.matchers(expr)) {
                    if (TARGET_LABELS.contains(m.label()) || m.value().contains("$")) {
                        continue;
                    }
                    Set<String> values = new LinkedHashSet<>();
                    scrape.find(m.metric(), Map.of()).forEach(s -> values.add(s.labels().get(m.label())));
                    boolean plain = m.op().equals("=") || (m.op().equals("=~")
                            && PLAIN_ALTERNATIVES.matcher(m.value()).matches());
                    List<String> wanted = plain ? List.of(m.value().split("\\|")) : List.of();
                    for (String w : wanted) {
                        if (!values.contains(w)) {
                            problems.add(where + ": " + m.metric() + " has no " + m.label() + "=\"" + w + "\" (has "
                                    + values + ")");
                        }
                    }
                    if (!plain && values.stream().allMatch(v -> v == null)) {
                        problems.add(where + ": " + m.metric() + " has no label " + m.label());
                    }
                }
                for (String label : PromQl.groupingLabels(expr)) {
                    for (String metric : metrics) {
                        List<Exposition.Sample> samples = scrape.find(metric, Map.of());
                        if (!TARGET_LABELS.contains(label) && !samples.isEmpty()
                                && samples.stream().noneMatch(s -> s.labels().containsKey(label))) {
                            problems.add(where + ": " + metric + " has no label " + label + " to group by");
                        }
                    }
                }
            }
            Set<String> exported = new TreeSet<>();
            scrape.names().stream().filter(n -> n.startsWith("qos_") || n.startsWith("shop_")).forEach(exported::add);
            assertTrue(problems.isEmpty(), String.join("\n", problems) + "\nexported: " + exported);
            EngineIdle.await(server, Duration.ofSeconds(10));
        }
    }
}

package dev.servletqos.status;

import dev.servletqos.ClassStats;
import dev.servletqos.ControlStatus;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.Rejection;
import dev.servletqos.Settings;
import dev.servletqos.control.UtilizationStatus;
import dev.servletqos.jmx.ClassStatistics;
import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.VirtualServerPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The read-only status page of an engine, written once for every adapter: the servlet
 * ({@code dev.servletqos.servlet.QosStatusServlet}) and the Jetty handler ({@code dev.servletqos.jetty.QosStatusHandler})
 * only turn a request into {@link #answer} and write the {@link Answer} back.
 *
 * <p>{@code GET} answers an HTML page (per class: queue, executing, budget, delay against target, refusals,
 * admissions, its content level m of M with the shares of its sessions served lighter content and refused, and
 * its utilization and target under the degradation law; max-executing and its ceiling; who set the settings last;
 * the degradation law's measured and estimated utilization and fitted costs; the token buckets' rates, tokens and
 * refusals and the virtual servers' requests, when the policy has them; charts of the last minutes that
 * redraw as the page polls its own JSON form every {@value #POLL_MILLIS} ms). {@code GET ?format=json}
 * answers the same data as JSON (schema {@value #SCHEMA}, in {@code docs/operations.md}); {@code &since=T}
 * (epoch milliseconds) limits the history to the points after T. {@code HEAD} answers the headers alone, any
 * other method 405. A client outside the {@link AllowedClients} gets 403, and 503 while no engine runs.
 *
 * <p>The page loads nothing from anywhere: its style and script are inline, its charts SVG drawn by the
 * script, and its {@code Content-Security-Policy} allows only those two (by hash) and requests to its own
 * origin. It only reads {@link QosEngine#snapshot()} and {@link QosEngine#controlStatus()}; each read also
 * feeds the page's {@link StatusHistory}. Thread-safe.
 */
public final class StatusPage {

    /** The JSON form's schema name and version. */
    public static final String SCHEMA = "servlet-qos-status/1";
    /** How often the page polls its JSON form, in milliseconds. */
    public static final int POLL_MILLIS = 2000;
    public static final String HTML = "text/html;charset=utf-8";
    public static final String JSON = "application/json;charset=utf-8";
    public static final String TEXT = "text/plain;charset=utf-8";

    private static final String DATA_MARK = "/*QOS-DATA*/";
    private static final String POLL_MARK = "/*QOS-POLL*/";
    private static final String[] TEMPLATE;
    private static final String CSP;

    static {
        String page;
        try (InputStream in = StatusPage.class.getResourceAsStream("status.html")) {
            page = new String(Objects.requireNonNull(in, "status.html").readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        page = page.replace(POLL_MARK, Integer.toString(POLL_MILLIS));
        int mark = page.indexOf(DATA_MARK);
        TEMPLATE = new String[] {page.substring(0, mark), page.substring(mark + DATA_MARK.length())};
        String script = between(page, "<script>", "</script>");
        String style = between(page, "<style>", "</style>");
        CSP = "default-src 'none'; script-src '" + sha256(script) + "'; style-src '" + sha256(style)
                + "'; connect-src 'self'; img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
    }

    private final AllowedClients allowed;
    private final StatusHistory history;
    /** Guarded by {@code this}: the engine the history is of (a reloaded application has a new one). */
    private QosEngine historyOf;

    /** A page for these clients, with a default {@link StatusHistory}. */
    public StatusPage(AllowedClients allowed) {
        this(allowed, new StatusHistory());
    }

    public StatusPage(AllowedClients allowed, StatusHistory history) {
        this.allowed = Objects.requireNonNull(allowed, "allowed");
        this.history = Objects.requireNonNull(history, "history");
    }

    /** The clients this page answers. */
    public AllowedClients allowed() {
        return allowed;
    }

    /** The page's history. */
    public StatusHistory history() {
        return history;
    }

    /**
     * A response: status, content type, extra headers, body.
     *
     * @param status      the HTTP status
     * @param contentType the content type
     * @param headers     headers to set besides the content type and length
     * @param body        the body; its length is the {@code Content-Length}, also for HEAD
     * @param head        whether the request was HEAD: send the headers without the body
     */
    public record Answer(int status, String contentType, Map<String, String> headers, byte[] body, boolean head) {
        public Answer {
            headers = Map.copyOf(headers);
        }

        @Override
        public byte[] body() {
            return body.clone();
        }

        /** Whether to send the body (not for HEAD). */
        public boolean sendBody() {
            return !head;
        }

        /** The body's length in bytes. */
        public int length() {
            return body.length;
        }

        /** The body as text. */
        public String text() {
            return new String(body, StandardCharsets.UTF_8);
        }
    }

    /**
     * The answer to one request.
     *
     * @param method        the request's method
     * @param remoteAddress the client's address as the container gives it (after a proxy valve, the forwarded one)
     * @param query         the raw query string, or null
     * @param engine        the engine to show, or null when none runs
     * @param nowMillis     the wall clock now
     */
    public Answer answer(String method, String remoteAddress, String query, QosEngine engine, long nowMillis) {
        boolean head = "HEAD".equals(method);
        if (!head && !"GET".equals(method)) {
            return plain(405, Map.of("Allow", "GET, HEAD"), "servlet-qos status: only GET and HEAD\n", false);
        }
        if (!allowed.allows(remoteAddress)) {
            return plain(403, Map.of(), "servlet-qos status: this page answers clients in " + allowed
                    + " only\n", head);
        }
        if (engine == null) {
            return plain(503, Map.of(), "servlet-qos status: no QoS engine runs in this application\n", head);
        }
        Map<String, String> query1 = query(query);
        long since = parseLong(query1.get("since"));
        String json = json(engine, since, nowMillis);
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Cache-Control", "no-store");
        headers.put("X-Content-Type-Options", "nosniff");
        if ("json".equals(query1.get("format"))) {
            return new Answer(200, JSON, headers, (json + "\n").getBytes(StandardCharsets.UTF_8), head);
        }
        headers.put("Content-Security-Policy", CSP);
        headers.put("Referrer-Policy", "no-referrer");
        String html = TEMPLATE[0] + json + TEMPLATE[1];
        return new Answer(200, HTML, headers, html.getBytes(StandardCharsets.UTF_8), head);
    }

    /**
     * The JSON form: reads one snapshot (and the control status), adds it to the history when a step has passed,
     * and writes both with the history's points after {@code since}.
     */
    public String json(QosEngine engine, long since, long nowMillis) {
        EngineSnapshot s = engine.snapshot();
        ControlStatus control = engine.controlStatus();
        List<StatusHistory.Point> points;
        synchronized (this) {
            if (historyOf != engine) {
                history.clear();
                historyOf = engine;
            }
            history.record(s, control.utilization(), nowMillis);
            points = history.since(since);
        }
        StatusHistory.Point newest = points.isEmpty() ? null : points.get(points.size() - 1);
        Settings settings = s.settings();
        JsonOut j = new JsonOut().beginObject().field("schema", SCHEMA).field("time", nowMillis);
        j.name("engine").beginObject()
                .field("scheduling", s.scheduling().key())
                .field("defaultClass", engine.policy().defaultClass())
                .field("maxExecuting", s.maxExecuting())
                .field("ceiling", settings.ceiling())
                .field("executing", s.executing())
                .field("queued", s.queued())
                .field("settingsSource", settings.source().name())
                .field("sessions", s.sessions().tableSize())
                .field("exempt", s.exempt())
                .field("streams", s.streams())
                .endObject();
        j.name("control").beginObject()
                .field("mode", settings.control().mode().key())
                .field("capacity", settings.control().capacity().key())
                .field("admission", settings.control().admission().key())
                .field("running", control.running())
                .field("overridden", control.overridden())
                .field("periods", control.periods())
                .field("failures", control.failures())
                .field("lastFailure", control.lastFailure())
                .endObject();
        UtilizationStatus u = control.utilization();
        degradation(j, settings.control().degradation(), u);
        j.name("classes").beginArray();
        for (int i = 0; i < s.classes().size(); i++) {
            ClassStats c = s.classes().get(i);
            ClassPolicy p = engine.policy().classes().get(i);
            ClassStatistics stats = ClassStatistics.of(c);
            j.beginObject()
                    .field("name", c.name())
                    .field("priority", i)
                    .field("budget", c.budget())
                    .field("minBudget", c.minBudget())
                    .field("reserve", c.reserve())
                    .field("weight", c.weight())
                    .field("executing", c.executing())
                    .field("borrowed", c.borrowed())
                    .field("queued", c.queued())
                    .field("maxQueue", p.queue().maxQueue())
                    .field("maxWaitMillis", p.queue().maxWait().toMillis())
                    .field("delayTargetMillis", settings.get(i).delayTarget().toNanos() / 1e6)
                    .field("recentWaitMillis", newest == null ? Double.NaN : newest.classes().get(i).waitMillis())
                    .field("meanWaitMillis", stats.getMeanWaitMillis())
                    .field("p95WaitMillis", stats.getP95WaitMillis())
                    .field("entered", c.entered())
                    .field("completed", c.completed())
                    .field("declined", c.declined())
                    .field("rejected", c.rejected())
                    .field("expired", c.expired())
                    .field("cancelled", c.cancelled())
                    .field("sessionsAdmitted", c.sessionsAdmitted());
            // one count per refusal reason, named as in the JMX beans (queueFull, sessionsRefusedRate, ...)
            for (Rejection.Reason reason : Rejection.Reason.values()) {
                if (reason.counted()) {
                    j.field(reason.counter(), c.refused(reason));
                }
            }
            j.field("streams", c.streams())
                    .field("sessionRate", c.sessionRate())
                    .field("sessionBurst", c.sessionBurst());
            ControlStatus.Reading r = reading(control, c.name());
            if (r == null) {
                j.nullValue("control");
            } else {
                j.name("control").beginObject()
                        .field("reference", r.reference())
                        .field("measured", r.measured())
                        .field("output", r.output())
                        .field("applied", r.applied())
                        .field("saturated", r.saturated())
                        .field("saturatedPeriods", r.saturatedPeriods())
                        .endObject();
            }
            content(j, c, settings.get(i));
            UtilizationStatus.ClassLevel l = classLevel(u, c.name());
            if (l == null) {
                j.nullValue("utilization");
            } else {
                j.name("utilization").beginObject()
                        .field("utilization", l.utilization())
                        .field("target", l.target())
                        .precise("gain", l.gain())
                        .field("saturated", l.saturated())
                        .endObject();
            }
            j.endObject();
        }
        j.endArray();
        buckets(j, s, settings, engine.policy());
        hosts(j, s, engine.policy());
        cluster(j, engine.cluster());
        j.name("history").beginObject()
                .field("stepMillis", history.stepMillis())
                .field("capacity", history.capacity());
        j.name("points").beginArray();
        for (StatusHistory.Point pt : points) {
            j.beginObject()
                    .field("t", pt.epochMillis())
                    .field("maxExecuting", pt.maxExecuting())
                    .field("ceiling", pt.ceiling())
                    .field("executing", pt.executing())
                    .field("queued", pt.queued())
                    .field("utilization", pt.utilization())
                    .field("estimated", pt.estimated());
            j.name("classes").beginArray();
            for (StatusHistory.ClassPoint cp : pt.classes()) {
                j.beginObject()
                        .field("queued", cp.queued())
                        .field("executing", cp.executing())
                        .field("budget", cp.budget())
                        .field("delayTargetMillis", cp.delayTargetMillis())
                        .field("waitMillis", cp.waitMillis())
                        .field("admitted", cp.admittedPerSecond())
                        .field("rejected", cp.rejectedPerSecond())
                        .field("expired", cp.expiredPerSecond())
                        .field("completed", cp.completedPerSecond())
                        .field("level", cp.level())
                        .field("levels", cp.levels())
                        .field("degraded", cp.degradedPerSecond())
                        .endObject();
            }
            j.endArray().endObject();
        }
        j.endArray().endObject();
        return j.endObject().toString();
    }

    /**
     * The degradation law: its settings (the policy's {@code control.degradation} and {@code control.utilization.*}
     * or {@code control.threshold.*}, live) and what its last period measured and fitted ({@code u}, null without a
     * law; its numbers NaN, written null, before its first period).
     */
    private static void degradation(JsonOut j, ControlPolicy.Degradation d, UtilizationStatus u) {
        boolean none = d.law() == ControlPolicy.DegradationLaw.NONE;
        boolean pi = d.law() == ControlPolicy.DegradationLaw.PI;
        boolean threshold = d.law() == ControlPolicy.DegradationLaw.THRESHOLD;
        boolean network = threshold && d.networkCapacity() > 0;
        double nan = Double.NaN;
        j.name("degradation").beginObject()
                .field("law", d.law().key())
                .field("sourceSetting", d.source().key())
                .field("source", u == null ? null : u.source())
                .field("target", pi ? d.target() : nan)
                .field("gainMargin", pi ? d.gainMargin() : nan)
                .field("high", threshold ? d.high() : nan)
                .field("low", threshold ? d.low() : nan)
                .field("networkCapacity", network ? d.networkCapacity() : 0)
                .field("networkHigh", network ? d.networkHigh() : nan)
                .field("networkLow", network ? d.networkLow() : nan)
                .field("intervalMillis", threshold ? d.interval().toMillis() : nan)
                .field("measured", none || u == null ? nan : u.measured())
                .field("estimated", none || u == null ? nan : u.estimated())
                .field("smoothed", none || u == null ? nan : u.smoothed())
                .field("network", none || u == null ? nan : u.network())
                .precise("a", none || u == null ? nan : u.a())
                .precise("b", none || u == null ? nan : u.b())
                .precise("c", none || u == null ? nan : u.c())
                .endObject();
    }

    /**
     * A class's content level: the level m in force and its levels M (the settings of the snapshot), the shares of
     * its sessions served lighter content and refused ({@link Settings.ClassSettings#degradedShare()}), and its
     * completed requests by level.
     */
    private static void content(JsonOut j, ClassStats c, Settings.ClassSettings cs) {
        j.name("content").beginObject()
                .field("levels", c.levels())
                .field("level", c.level())
                .field("degradedShare", cs.degradedShare())
                .field("refusedShare", cs.refusedShare())
                .field("sessionsRefusedLevel", c.sessionsRefusedLevel())
                .field("completedDegraded", StatusHistory.belowFull(c));
        j.name("completedByLevel").beginArray();
        for (int level = 0; level <= c.levels(); level++) {
            j.number(c.completedAtLevel(level));
        }
        j.endArray().endObject();
    }

    /** The token-bucket rules: rate in force and its minimum, depth, tokens, hits and refusals; what they match. */
    private static void buckets(JsonOut j, EngineSnapshot s, Settings settings, QosPolicy policy) {
        j.name("bucketLaw").value(s.buckets().isEmpty() ? null : policy.bucketControl().law().key());
        j.name("buckets").beginArray();
        for (EngineSnapshot.BucketStats b : s.buckets()) {
            int k = settings.bucketIndex(b.name());
            BucketPolicy p = bucketPolicy(policy, b.name());
            j.beginObject()
                    .field("name", b.name())
                    .field("paths", p == null || p.paths().isEmpty() ? null : String.join(", ", p.paths()))
                    .field("cookie", p == null ? null : p.cookie())
                    .field("rate", b.rate())
                    .field("minRate", k < 0 ? Double.NaN : settings.buckets().get(k).minRate())
                    .field("depth", b.depth())
                    .field("tokens", b.tokens())
                    .field("hits", b.hits())
                    .field("admitted", b.hits() - b.refused())
                    .field("refused", b.refused())
                    .endObject();
        }
        j.endArray();
    }

    /** The virtual servers: their guarantee (the policy's) and requests within and beyond it. */
    /** The cluster this node knows (docs/cluster.md): null when it is alone. */
    private static void cluster(JsonOut j, dev.servletqos.ClusterLink link) {
        if (link == null) {
            j.nullValue("cluster");
            return;
        }
        dev.servletqos.cluster.ClusterStatus c = link.status();
        j.name("cluster").beginObject()
                .field("store", c.store())
                .field("node", c.nodeId())
                .field("state", c.state())
                .field("nodes", c.nodes())
                .field("exchanges", c.exchanges())
                .field("failures", c.failures())
                .field("settingsVersion", c.settingsVersion())
                .field("revoked", c.revoked());
        j.name("members").beginArray();
        for (dev.servletqos.cluster.NodeReport m : c.members()) {
            j.beginObject().field("node", m.nodeId());
            // the numbers a node reports are numbers here too; its state is a word
            m.status().forEach((k, v) -> {
                try {
                    j.field(k, Long.parseLong(v));
                } catch (NumberFormatException e) {
                    j.field(k, v);
                }
            });
            j.endObject();
        }
        j.endArray().endObject();
    }

    private static void hosts(JsonOut j, EngineSnapshot s, QosPolicy policy) {
        j.name("hosts").beginArray();
        for (EngineSnapshot.HostStats h : s.hosts()) {
            VirtualServerPolicy p = null;
            for (VirtualServerPolicy v : policy.virtualServers()) {
                if (v.name().equals(h.name())) {
                    p = v;
                }
            }
            j.beginObject()
                    .field("name", h.name())
                    .field("hosts", p == null ? null : String.join(", ", p.hosts()))
                    .field("rmax", p == null ? Double.NaN : p.rmax())
                    .field("wmax", p == null ? Double.NaN : p.wmax())
                    .field("requests", h.requests())
                    .field("guaranteed", h.guaranteed())
                    .field("beyond", h.requests() - h.guaranteed())
                    .field("guaranteedBytes", h.guaranteedBytes())
                    .endObject();
        }
        j.endArray();
    }

    private static BucketPolicy bucketPolicy(QosPolicy policy, String name) {
        for (BucketPolicy b : policy.buckets()) {
            if (b.name().equals(name)) {
                return b;
            }
        }
        return null;
    }

    private static UtilizationStatus.ClassLevel classLevel(UtilizationStatus u, String name) {
        if (u == null) {
            return null;
        }
        for (UtilizationStatus.ClassLevel l : u.classes()) {
            if (l.name().equals(name)) {
                return l;
            }
        }
        return null;
    }

    /** The {@code Content-Security-Policy} of the HTML page. */
    public static String contentSecurityPolicy() {
        return CSP;
    }

    private static ControlStatus.Reading reading(ControlStatus control, String name) {
        if (control.periods() == 0) {
            return null;
        }
        for (ControlStatus.Reading r : control.classes()) {
            if (r.name().equals(name)) {
                return r;
            }
        }
        return null;
    }

    private static Answer plain(int status, Map<String, String> extra, String text, boolean head) {
        Map<String, String> headers = new LinkedHashMap<>(extra);
        headers.put("Cache-Control", "no-store");
        headers.put("X-Content-Type-Options", "nosniff");
        return new Answer(status, TEXT, headers, text.getBytes(StandardCharsets.UTF_8), head);
    }

    /** The query's parameters (the first of each name), undecoded: the page's own are plain words and numbers. */
    private static Map<String, String> query(String query) {
        Map<String, String> m = new LinkedHashMap<>();
        if (query == null) {
            return m;
        }
        for (String part : query.split("&")) {
            int eq = part.indexOf('=');
            String name = eq < 0 ? part : part.substring(0, eq);
            m.putIfAbsent(name, eq < 0 ? "" : part.substring(eq + 1));
        }
        return m;
    }

    /** A non-negative decimal number, else 0 (a bad {@code since} shows the whole history). */
    private static long parseLong(String s) {
        if (s == null || s.isEmpty() || s.length() > 18) {
            return 0;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return 0;
            }
        }
        return Long.parseLong(s);
    }

    private static String between(String text, String open, String close) {
        int from = text.indexOf(open);
        int to = text.indexOf(close, from);
        if (from < 0 || to < 0 || text.indexOf(open, from + 1) >= 0) {
            throw new IllegalStateException("status.html must hold exactly one " + open + " element");
        }
        return text.substring(from + open.length(), to);
    }

    private static String sha256(String text) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            return "sha256-" + Base64.getEncoder().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
    }
}

package dev.servletqos.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.ControlStatus;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.control.UtilizationStatus;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The status page ({@code dev.servletqos.status.StatusPage}) as an adapter maps it, over real HTTP: the servlet
 * on embedded Tomcat behind the valve, the Jetty handler in front of the {@code QosHandler}. The numbers it
 * shows, as JSON, as HTML and in a real headless browser ({@link Chromium}), are compared with the engine's
 * snapshot while requests are held executing and parked; its HTML loads nothing from elsewhere; a client
 * outside the allowed ranges (a forwarded address, as a proxy valve or customizer sets it) gets 403.
 *
 * <p>The load: {@link Hold} keeps every request it starts until the test releases it. One premium request
 * executes; basic, whose budget an operator lowers from 3 to 2 before the load, has 2 executing, its queue of 4
 * full, and one more refused (queue full).
 */
public abstract class StatusPageSuite {

    /** Where the page is mapped. */
    protected static final String PATH = "/qos/status";
    /** Where the held requests go. */
    protected static final String HOLD = "/hold";

    /**
     * Three classes: the page's own (ops, by its path), premium (by header) and basic (the rest); both rules give
     * the class (trusted), as only credentials do since the class escalation fix.
     */
    protected static final String POLICY = """
            classes = ops, premium, basic
            default-class = basic
            scheduling = strict-priority
            borrowing = false
            max-executing = 8
            class.ops.budget = 2
            class.premium.budget = 2
            class.premium.max-wait = 20s
            class.basic.budget = 3
            class.basic.max-queue = 4
            class.basic.max-wait = 20s
            class.basic.delay-target = 500ms
            rule.1.type = path
            rule.1.value = /qos/status
            rule.1.class = ops
            rule.1.trusted = true
            rule.2.type = header
            rule.2.header = X-Tier
            rule.2.value = premium
            rule.2.class = premium
            rule.2.trusted = true
            """;

    /**
     * {@link #POLICY} with content levels (premium 2, basic 3), threshold-mode degradation on worker occupancy whose
     * interval (10 minutes) does not end during a test, so the law measures every period but leaves the levels as
     * the operator sets them; a token-bucket rule on {@code /search} (rate and minimum 0.01/s, two deep, its rate
     * raised by the queue law only in a period its hits used it up) and a virtual server for {@code shop.example}.
     */
    protected static final String DEGRADING = POLICY + """
            class.premium.levels = 2
            class.basic.levels = 3
            control.degradation = threshold
            control.utilization.source = occupancy
            control.threshold.interval = 10m
            buckets.law = queue
            bucket.search.path = /search, /search/*
            bucket.search.rate = 0.01
            bucket.search.min-rate = 0.01
            bucket.search.depth = 2
            vhost.shop.hosts = shop.example
            vhost.shop.rmax = 5
            vhost.shop.wmax = 100000
            vhosts.request-cost = 0.01
            vhosts.byte-cost = 0.000001
            """;

    @TempDir
    protected Path dir;

    protected final Hold hold = new Hold();
    private Server server;
    private final List<CompletableFuture<HttpResponse<String>>> held = new ArrayList<>();
    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** A running container with the adapter, the page at {@link #PATH} and {@link #hold} at {@link #HOLD}. */
    protected interface Server extends AutoCloseable {
        int port();

        QosEngine engine();

        /**
         * Whether the page's own request goes through QoS (the servlet behind the valve: it holds an ops permit
         * while it reads the snapshot) or not (the handler in front of the {@code QosHandler}).
         */
        boolean pageBehindQos();

        /** Short name for the screenshot's file, e.g. {@code tomcat-servlet}. */
        String name();

        /** Stops the container; a failure to stop is unchecked (so that closing it cannot be interrupted). */
        @Override
        void close();
    }

    /**
     * Starts the container with {@link #POLICY}, the page mapped at {@link #PATH} (allowing {@code allow}, or
     * loopback when null), {@code hold} at {@link #HOLD}, and forwarded client addresses honoured
     * ({@code X-Forwarded-For} from 127.0.0.1: Tomcat's {@code RemoteIpValve}, Jetty's
     * {@code ForwardedRequestCustomizer}).
     */
    protected abstract Server start(Path dir, String policy, String allow, HttpServlet hold) throws Exception;

    @AfterEach
    void stop() throws Exception {
        hold.release.countDown();
        for (CompletableFuture<HttpResponse<String>> f : held) {
            f.get(30, TimeUnit.SECONDS);
        }
        if (server != null) {
            server.close();
        }
    }

    @Test
    void jsonShowsTheEngineUnderLoad() throws Exception {
        server = start(dir, POLICY, null, hold);
        load();
        HttpResponse<String> r = get(PATH + "?format=json", Map.of());
        EngineSnapshot after = settled();
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("application/json;charset=utf-8", contentType(r));
        assertEquals("no-store", r.headers().firstValue("Cache-Control").orElse(null));
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) JsonTree.parse(r.body());
        assertEquals("servlet-qos-status/1", json.get("schema"));
        Map<String, String> shown = flatten(json);
        assertMatches(expected(after), shown);
        @SuppressWarnings("unchecked")
        List<Object> points = (List<Object>) ((Map<String, Object>) json.get("history")).get("points");
        assertFalse(points.isEmpty(), "the page's own read adds a point to the history");
        @SuppressWarnings("unchecked")
        Map<String, Object> newest = (Map<String, Object>) points.get(points.size() - 1);
        @SuppressWarnings("unchecked")
        Map<String, Object> basic = (Map<String, Object>) ((List<Object>) newest.get("classes")).get(2);
        assertEquals(4.0, basic.get("queued"));
        assertEquals(2.0, basic.get("executing"));
        assertEquals(2.0, basic.get("budget"));
        assertEquals(500.0, basic.get("delayTargetMillis"));
    }

    @Test
    void htmlCarriesTheSameNumbersAndLoadsNothingFromElsewhere() throws Exception {
        server = start(dir, POLICY, null, hold);
        load();
        HttpResponse<String> r = get(PATH, Map.of());
        EngineSnapshot after = settled();
        assertEquals(200, r.statusCode(), r.body());
        assertEquals("text/html;charset=utf-8", contentType(r));
        String html = r.body();
        assertSelfContained(html);
        String csp = r.headers().firstValue("Content-Security-Policy").orElseThrow();
        assertTrue(csp.startsWith("default-src 'none';"), csp);
        // the one script runs only if its hash is the one the policy allows
        Matcher script = Pattern.compile("<script>(.*?)</script>", Pattern.DOTALL).matcher(html);
        assertTrue(script.find());
        assertTrue(csp.contains("script-src '" + sha256(script.group(1)) + "'"), csp);
        Matcher data = Pattern.compile("<script type=\"application/json\" id=\"qos-data\">(.*?)</script>",
                Pattern.DOTALL).matcher(html);
        assertTrue(data.find(), "the page carries its first data");
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) JsonTree.parse(data.group(1));
        assertMatches(expected(after), flatten(json));
    }

    @Test
    void refusesClientsOutsideLoopbackAndOtherMethods() throws Exception {
        server = start(dir, POLICY, null, hold);
        HttpResponse<String> forwarded = get(PATH, Map.of("X-Forwarded-For", "203.0.113.9"));
        assertEquals(403, forwarded.statusCode(), forwarded.body());
        assertEquals("text/plain;charset=utf-8", contentType(forwarded));
        assertFalse(forwarded.body().contains("classes"), forwarded.body());
        assertEquals(403, get(PATH + "?format=json", Map.of("X-Forwarded-For", "203.0.113.9")).statusCode());
        assertEquals(200, get(PATH + "?format=json", Map.of("X-Forwarded-For", "127.0.0.1")).statusCode());
        HttpResponse<String> post = client.send(request(PATH).POST(HttpRequest.BodyPublishers.ofString("x")).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(405, post.statusCode());
        assertEquals("GET, HEAD", post.headers().firstValue("Allow").orElse(null));
        HttpResponse<String> head = client.send(request(PATH).method("HEAD", HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, head.statusCode());
        assertEquals("", head.body());
    }

    @Test
    void allowedRangesAdmitOtherClients() throws Exception {
        server = start(dir, POLICY, "127.0.0.0/8, ::1, 203.0.113.0/24", hold);
        assertEquals(200, get(PATH + "?format=json", Map.of("X-Forwarded-For", "203.0.113.9")).statusCode());
        assertEquals(403, get(PATH + "?format=json", Map.of("X-Forwarded-For", "198.51.100.1")).statusCode());
        assertEquals(200, get(PATH + "?format=json", Map.of()).statusCode());
    }

    /**
     * The page in Chromium: no console message at all (no script error, no blocked or failed load), and the numbers
     * it shows after its script ran and polled match the engine's snapshot; a screenshot goes to
     * {@code target/status-page-NAME.png}.
     */
    @Test
    void browserShowsTheEngineUnderLoad() throws Exception {
        Chromium chromium = Chromium.require();
        server = start(dir, POLICY, null, hold);
        load();
        String url = "http://127.0.0.1:" + server.port() + PATH;
        Chromium.Run dom = chromium.dumpDom(url, 5000);
        EngineSnapshot after = settled();
        assertEquals(List.of(), dom.console(), "console messages of the page");
        Matcher polls = Pattern.compile("data-polls=\"(\\d+)\"").matcher(dom.output());
        assertTrue(polls.find(), dom.output());
        assertTrue(Integer.parseInt(polls.group(1)) >= 1, "the page polled its JSON form: " + polls.group());
        Map<String, String> shown = new HashMap<>();
        // the rendered document, not the script's source, which comes after it
        String rendered = dom.output().substring(0, dom.output().indexOf("<script"));
        Matcher cell = Pattern.compile("data-k=\"([^\"]+)\">([^<]*)<").matcher(rendered);
        while (cell.find()) {
            shown.put(cell.group(1), cell.group(2));
        }
        assertTrue(rendered.contains("<polyline"), "the charts are drawn");
        assertMatches(expected(after), shown);

        Path png = Path.of("target", "status-page-" + server.name() + ".png");
        Chromium.Run shot = chromium.screenshot(url, png, 1440, 1100, 3000);
        assertEquals(List.of(), shot.console(), "console messages of the page");
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 10_000 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G',
                "a PNG of the page: " + png.toAbsolutePath() + ", " + bytes.length + " bytes");
    }

    /**
     * Content levels and the degradation law as the page shows them, in its JSON form and in Chromium: an operator
     * sets basic's level to m = 2.25 of 3 through the settings seam (a quarter of its sessions at full content,
     * three quarters one level below); one premium and two basic requests are held executing while threshold mode
     * measures each period; three requests to {@code /search}, one after another, find a bucket two tokens deep; one
     * request comes for the virtual server's host. The JSON numbers are compared with the engine's snapshot and
     * control status of the same control period; the browser's with the numbers that no longer move. A screenshot
     * goes to {@code target/status-page-degradation-NAME.png}.
     */
    @Test
    void contentLevelsAndTheDegradationLawAsJsonAndInTheBrowser() throws Exception {
        server = start(dir, DEGRADING, null, hold);
        QosEngine engine = server.engine();
        engine.update(x -> x.withClass(2, x.get(2).withLevel(2.25)));
        send(Map.of("X-Tier", "premium"));
        send(Map.of());
        send(Map.of());
        awaitSnapshot("premium 1 and basic 2 executing",
                x -> x.get("premium").executing() == 1 && x.get("basic").executing() == 2);
        // One after another, so none waits for basic's one free permit: behind the valve a request for a path without
        // a servlet (the application has no /search) is refused instead of waiting, which would make the statuses
        // depend on timing (docs/adapters.md, Tomcat valve).
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            statuses.add(get("/search/" + i, Map.of()).statusCode());
        }
        assertEquals(List.of(404, 404, 503), statuses, "two tokens, then refused; the application has no /search");
        assertEquals(404, rawGet("/nothing", "shop.example"), "the virtual server's request reached the application");
        awaitSnapshot("basic's three short requests completed", x -> x.get("basic").completed() == 3);
        AdapterBehaviourSuite.await("a control period measured the occupancy", Duration.ofSeconds(20),
                () -> engine.controlStatus().utilization() != null
                        && engine.controlStatus().utilization().source() != null);

        Map<String, String> shown = null;
        Map<String, String> expected = null;
        for (int attempt = 0; attempt < 10 && (shown == null || !expected.equals(pick(shown, expected))); attempt++) {
            long period = engine.controlStatus().periods();
            HttpResponse<String> r = get(PATH + "?format=json", Map.of());
            assertEquals(200, r.statusCode(), r.body());
            EngineSnapshot after = settled();
            ControlStatus control = engine.controlStatus();
            if (control.periods() != period) {
                continue; // a control period ended while the page read: read again within one
            }
            @SuppressWarnings("unchecked")
            Map<String, Object> json = (Map<String, Object>) JsonTree.parse(r.body());
            shown = flatten(json);
            expected = expectedContent(after, control, true);
        }
        assertTrue(shown != null, "no page read within one control period");
        assertMatches(expected, shown);
        assertEquals("null", shown.get("degradation.target"), "a target is the pi law's");
        assertEquals("null", shown.get("class.basic.utilization.target"));

        Chromium chromium = Chromium.require();
        AdapterBehaviourSuite.await("the bucket refilled to its depth", Duration.ofSeconds(20),
                () -> engine.snapshot().bucket("search").tokens() == 2);
        String url = "http://127.0.0.1:" + server.port() + PATH;
        Chromium.Run dom = chromium.dumpDom(url, 5000);
        assertEquals(List.of(), dom.console(), "console messages of the page");
        String rendered = dom.output().substring(0, dom.output().indexOf("<script"));
        Map<String, String> cells = new HashMap<>();
        Matcher cell = Pattern.compile("data-k=\"([^\"]+)\">([^<]*)<").matcher(rendered);
        while (cell.find()) {
            cells.put(cell.group(1), cell.group(2));
        }
        Map<String, String> stable = expectedContent(settled(), engine.controlStatus(), false);
        stable.put("class.basic.content.degradedShare", "75 %");
        stable.put("class.premium.content.degradedShare", "0 %");
        stable.remove("class.basic.content.refusedShare"); // shown only when some are refused
        stable.put("bucket.search.tokens", "2");
        assertMatches(stable, cells);
        for (String k : List.of("degradation.measured", "degradation.estimated", "class.basic.utilization.utilization")) {
            assertTrue(cells.getOrDefault(k, "").matches("\\d+(\\.\\d+)?"), k + " shows a number: " + cells.get(k));
        }
        assertTrue(rendered.contains("<h2>Degradation<small>"), "the degradation section");
        assertTrue(rendered.contains("Content level m (full at 3)"), "basic's level chart");
        assertTrue(rendered.contains("<h2>Token buckets") && rendered.contains("<h2>Virtual servers"), rendered);

        Path png = Path.of("target", "status-page-degradation-" + server.name() + ".png");
        Chromium.Run shot = chromium.screenshot(url, png, 1440, 2300, 3000);
        assertEquals(List.of(), shot.console(), "console messages of the page");
        byte[] bytes = Files.readAllBytes(png);
        assertTrue(bytes.length > 10_000 && bytes[1] == 'P' && bytes[2] == 'N' && bytes[3] == 'G',
                "a PNG of the page: " + png.toAbsolutePath() + ", " + bytes.length + " bytes");
    }

    /**
     * What the page must show of content levels, the degradation law, the bucket and the virtual server: from the
     * snapshot, the settings in force and (with {@code measured}) the law's last period.
     */
    private static Map<String, String> expectedContent(EngineSnapshot s, ControlStatus control, boolean measured) {
        Map<String, String> m = new HashMap<>();
        m.put("degradation.law", "threshold");
        m.put("degradation.sourceSetting", "occupancy");
        m.put("degradation.source", "occupancy");
        m.put("degradation.high", "0.75");
        m.put("degradation.low", "0.6");
        m.put("class.basic.content.levels", "3");
        m.put("class.basic.content.level", "2.25");
        m.put("class.basic.content.degradedShare", "0.75");
        m.put("class.basic.content.refusedShare", "0");
        m.put("class.premium.content.levels", "2");
        m.put("class.premium.content.level", "2");
        m.put("class.premium.content.degradedShare", "0");
        ClassStats basic = s.get("basic");
        m.put("class.basic.content.completedDegraded",
                Long.toString(basic.completedAtLevel(1) + basic.completedAtLevel(2)));
        for (int level = 1; level <= 3; level++) {
            m.put("class.basic.content.completedByLevel." + level, Long.toString(basic.completedAtLevel(level)));
        }
        EngineSnapshot.BucketStats b = s.bucket("search");
        m.put("bucket.search.hits", "3");
        m.put("bucket.search.refused", "1");
        m.put("bucket.search.admitted", "2");
        m.put("bucket.search.depth", "2");
        m.put("bucket.search.minRate", "0.01");
        m.put("vhost.shop.requests", "1");
        m.put("vhost.shop.guaranteed", "1");
        m.put("vhost.shop.beyond", "0");
        m.put("vhost.shop.rmax", "5");
        m.put("vhost.shop.wmax", "100000");
        if (measured) {
            m.put("bucket.search.rate", text(round(b.rate())));
            m.put("vhost.shop.hosts", "shop.example");
            m.put("bucket.search.paths", "/search, /search/*");
            UtilizationStatus u = control.utilization();
            m.put("degradation.measured", text(round(u.measured())));
            m.put("degradation.estimated", text(round(u.estimated())));
            m.put("degradation.smoothed", text(round(u.smoothed())));
            m.put("degradation.a", text(precise(u.a())));
            m.put("degradation.b", text(precise(u.b())));
            m.put("degradation.c", text(precise(u.c())));
            for (UtilizationStatus.ClassLevel l : u.classes()) {
                m.put("class." + l.name() + ".utilization.utilization", text(round(l.utilization())));
            }
        }
        return m;
    }

    /** The JSON form's three decimals; not a number: null. */
    private static Object round(double v) {
        return Double.isFinite(v) ? (Object) (Math.round(v * 1000) / 1000.0) : null;
    }

    /** The JSON form's full precision; not a number: null. */
    private static Object precise(double v) {
        return Double.isFinite(v) ? (Object) v : null;
    }

    private static Map<String, String> pick(Map<String, String> shown, Map<String, String> keys) {
        Map<String, String> m = new HashMap<>();
        keys.keySet().forEach(k -> m.put(k, shown.get(k)));
        return m;
    }

    /** A GET with this {@code Host} header, which the JDK's client does not let one set: its status. */
    private int rawGet(String path, String host) throws IOException {
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.setSoTimeout(30_000);
            socket.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: " + host
                    + "\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            String status = new java.io.BufferedReader(new java.io.InputStreamReader(socket.getInputStream(),
                    StandardCharsets.US_ASCII)).readLine();
            assertTrue(status != null && status.startsWith("HTTP/1.1 "), String.valueOf(status));
            socket.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
            return Integer.parseInt(status.substring(9, 12));
        }
    }

    /**
     * Puts the load on: the operator lowers basic's budget to 2, then one premium and seven basic requests
     * arrive one by one, each after the page's history has a new point (so that its charts show the queue
     * growing): premium 1 executing; basic 2 executing, 4 queued, 1 refused (its queue full).
     */
    private void load() throws Exception {
        QosEngine engine = server.engine();
        engine.setBudget("basic", 2);
        send(Map.of("X-Tier", "premium"));
        awaitSnapshot("premium executing 1", s -> s.get("premium").executing() == 1);
        for (int i = 1; i <= 6; i++) {
            int n = i;
            send(Map.of());
            awaitSnapshot("basic in flight " + n, s -> s.get("basic").inFlight() == n);
            awaitNewPoint();
        }
        CompletableFuture<HttpResponse<String>> refused = send(Map.of());
        assertEquals(503, refused.get(30, TimeUnit.SECONDS).statusCode(), "basic's queue is full");
        awaitNewPoint();
        EngineSnapshot s = engine.snapshot();
        assertEquals(2, s.get("basic").executing(), String.valueOf(s));
        assertEquals(4, s.get("basic").queued(), String.valueOf(s));
        assertEquals(1, s.get("basic").rejected(), String.valueOf(s));
        AdapterBehaviourSuite.await("the application runs 3 held requests", Duration.ofSeconds(20),
                () -> hold.started.get() == 3);
    }

    /**
     * The engine's snapshot once the page's own requests have left it (the client may have its answer before the
     * adapter releases the permit).
     */
    private EngineSnapshot settled() {
        awaitSnapshot("the page's own requests finished", s -> s.get("ops").executing() == 0);
        return server.engine().snapshot();
    }

    /** Waits until reading the page adds a point to its history (a step, a second, has passed). */
    private void awaitNewPoint() throws Exception {
        int before = points();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (points() <= before) {
            assertTrue(System.nanoTime() < end, "no new history point within 20 s");
            Thread.sleep(100); // the step is wall time on the engine's clock: poll as the page does
        }
    }

    private int points() throws Exception {
        HttpResponse<String> r = get(PATH + "?format=json", Map.of());
        assertEquals(200, r.statusCode(), r.body());
        @SuppressWarnings("unchecked")
        Map<String, Object> json = (Map<String, Object>) JsonTree.parse(r.body());
        @SuppressWarnings("unchecked")
        Map<String, Object> history = (Map<String, Object>) json.get("history");
        return ((List<?>) history.get("points")).size();
    }

    private void awaitSnapshot(String what, java.util.function.Predicate<EngineSnapshot> condition) {
        AdapterBehaviourSuite.await(what, Duration.ofSeconds(20), () -> condition.test(server.engine().snapshot()));
    }

    private CompletableFuture<HttpResponse<String>> send(Map<String, String> headers) {
        HttpRequest.Builder b = request(HOLD);
        headers.forEach(b::header);
        CompletableFuture<HttpResponse<String>> f = client.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString());
        held.add(f);
        return f;
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
                .timeout(Duration.ofSeconds(30));
    }

    private HttpResponse<String> get(String pathAndQuery, Map<String, String> headers) throws Exception {
        HttpRequest.Builder b = request(pathAndQuery);
        headers.forEach(b::header);
        return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String contentType(HttpResponse<?> r) {
        return r.headers().firstValue("Content-Type").orElse("").replace(" ", "").toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * What the page must show, from a snapshot taken just after it answered: every number that does not move
     * while the load is held. The page's own request, when it goes through QoS, held an ops permit while it read.
     */
    private Map<String, String> expected(EngineSnapshot s) {
        int own = server.pageBehindQos() ? 1 : 0;
        Map<String, String> m = new HashMap<>();
        m.put("engine.maxExecuting", Integer.toString(s.maxExecuting()));
        m.put("engine.ceiling", Integer.toString(s.settings().ceiling()));
        m.put("engine.executing", Integer.toString(s.executing() + own));
        m.put("engine.queued", Integer.toString(s.queued()));
        m.put("engine.settingsSource", "OPERATOR");
        m.put("engine.scheduling", "strict-priority");
        m.put("class.ops.executing", Integer.toString(s.get("ops").executing() + own));
        for (String name : List.of("premium", "basic")) {
            ClassStats c = s.get(name);
            String k = "class." + name + ".";
            m.put(k + "queued", Integer.toString(c.queued()));
            m.put(k + "executing", Long.toString(c.executing()));
            m.put(k + "borrowed", Long.toString(c.borrowed()));
            m.put(k + "budget", Long.toString(c.budget()));
            m.put(k + "minBudget", Long.toString(c.minBudget()));
            m.put(k + "rejected", Long.toString(c.rejected()));
            m.put(k + "queueFull", Long.toString(c.queueFull()));
            m.put(k + "expired", Long.toString(c.expired()));
            m.put(k + "sessionsAdmitted", Long.toString(c.sessionsAdmitted()));
            m.put(k + "entered", Long.toString(c.entered()));
            m.put(k + "completed", Long.toString(c.completed()));
        }
        m.put("class.basic.maxQueue", "4");
        m.put("class.basic.delayTargetMillis", "500");
        // the load as described, so that a page and a snapshot that agree on nothing happening cannot pass
        m.put("class.basic.queued", "4");
        m.put("class.basic.executing", "2");
        m.put("class.basic.rejected", "1");
        m.put("class.premium.executing", "1");
        return m;
    }

    private static void assertMatches(Map<String, String> expected, Map<String, String> shown) {
        List<String> wrong = new ArrayList<>();
        expected.forEach((k, v) -> {
            if (!v.equals(shown.get(k))) {
                wrong.add(k + " shown " + shown.get(k) + ", engine " + v);
            }
        });
        assertEquals(List.of(), wrong, "numbers the page shows against the engine's snapshot; shown: " + shown);
    }

    /**
     * The JSON form's values under the keys the HTML page marks its cells with ({@code class.basic.queued},
     * {@code class.basic.content.level}, {@code class.basic.content.completedByLevel.1}, {@code degradation.a},
     * {@code bucket.search.tokens}, {@code vhost.shop.requests}).
     */
    @SuppressWarnings("unchecked")
    private static Map<String, String> flatten(Map<String, Object> json) {
        Map<String, String> m = new HashMap<>();
        put(m, "engine", json.get("engine"));
        put(m, "control", json.get("control"));
        put(m, "degradation", json.get("degradation"));
        for (Object o : (List<Object>) json.get("classes")) {
            put(m, "class." + ((Map<String, Object>) o).get("name"), o);
        }
        for (Object o : (List<Object>) json.get("buckets")) {
            put(m, "bucket." + ((Map<String, Object>) o).get("name"), o);
        }
        for (Object o : (List<Object>) json.get("hosts")) {
            put(m, "vhost." + ((Map<String, Object>) o).get("name"), o);
        }
        return m;
    }

    /** {@code v} under {@code key}; an object's members and an array's elements under {@code key.name}. */
    @SuppressWarnings("unchecked")
    private static void put(Map<String, String> m, String key, Object v) {
        m.put(key, text(v));
        if (v instanceof Map<?, ?> map) {
            ((Map<String, Object>) map).forEach((k, x) -> put(m, key + "." + k, x));
        } else if (v instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                put(m, key + "." + i, list.get(i));
            }
        }
    }

    private static String text(Object v) {
        if (v instanceof Double d && d == Math.rint(d)) {
            return Long.toString(d.longValue());
        }
        return String.valueOf(v);
    }

    /** No URL with a scheme or host, no CSS that loads, no element that fetches: the page works offline. */
    static void assertSelfContained(String html) {
        for (String forbidden : List.of("http:", "https:", "//", "url(", "@import", "<img", "<link", "<iframe",
                "<object", "<embed", "src=")) {
            int at = html.indexOf(forbidden);
            assertTrue(at < 0, "the page must load nothing from elsewhere, but has " + forbidden + " at: "
                    + html.substring(Math.max(0, at - 60), Math.min(html.length(), at + 60)));
        }
        Matcher href = Pattern.compile("href=\"([^\"]*)\"").matcher(html);
        while (href.find()) {
            assertEquals("?format=json", href.group(1), "the page's only link is to its own JSON form");
        }
    }

    private static String sha256(String text) throws Exception {
        byte[] d = MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        return "sha256-" + Base64.getEncoder().encodeToString(d);
    }

    /** Answers {@code held} after the test releases it; counts the requests the application started. */
    public static final class Hold extends HttpServlet {
        private static final long serialVersionUID = 1L;
        final transient CountDownLatch release = new CountDownLatch(1);
        final java.util.concurrent.atomic.AtomicInteger started = new java.util.concurrent.atomic.AtomicInteger();

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            started.incrementAndGet();
            try {
                if (!release.await(60, TimeUnit.SECONDS)) {
                    resp.sendError(500, "not released");
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            resp.setContentType("text/plain");
            resp.getWriter().print("held");
        }
    }
}

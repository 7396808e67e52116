package dev.servletqos.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.servletqos.ClassStats;
import dev.servletqos.QosEngine;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.runtime.QosRuntime;
import io.micrometer.core.instrument.MeterRegistry;
import java.lang.management.ManagementFactory;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import javax.management.Attribute;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The starter on a real embedded server over real HTTP (the JDK client, HTTP/1.1, 127.0.0.1), run on Tomcat and on
 * Jetty by the subclasses: premium overtakes waiting basic requests, which hold no worker thread; a refused new
 * session gets 503 with {@code Retry-After}; Actuator answers under load, health UP with details; the meters in
 * the registry; the JMX beans on the platform MBean server, writable, and the endpoint's writes refused with the
 * JMX beans' messages; Spring Security sees every request that waited.
 *
 * <p>One context per server for all tests (started once, ~2 s): each test waits until the engine is idle again.
 */
@SpringBootTest(classes = ShopApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "servlet-qos.classes = premium, basic",
        "servlet-qos.default-class = basic",
        "servlet-qos.max-executing = 2",
        "servlet-qos.rule.1.type = tier-cookie",
        "servlet-qos.tier-cookie.secret = ${TEST_TIER_SECRET:a test secret of 32 bytes, not1}",
        "servlet-qos.class.basic.max-queue = 100",
        "servlet-qos.class.basic.max-wait = 60s",
        "servlet-qos.admission.higher-queued = 1",
        "servlet-qos.admission.retry-after = 30s",
        "management.endpoints.web.exposure.include = health, qos, metrics",
        "management.endpoint.health.show-details = always",
        "management.endpoint.qos.access = unrestricted"})
abstract class OverHttpSuite {

    @LocalServerPort
    int port;

    @Autowired
    QosRuntime runtime;

    @Autowired
    QosEngine engine;

    @Autowired
    MeterRegistry registry;

    @Autowired
    List<String> startedOrder;

    @Autowired
    ShopApp.CountingFilter countingFilter;

    /** No cookies: every request is a new, stateless one unless it says otherwise. */
    final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** The server's worker threads busy now (running a request or a resume). */
    abstract int busyWorkerThreads();

    @AfterEach
    void engineIsIdleAgain() throws Exception {
        awaitState("nothing executing or waiting", Duration.ofSeconds(30),
                () -> engine.snapshot().executing() == 0 && engine.snapshot().queued() == 0);
        for (ClassStats c : engine.snapshot().classes()) {
            assertThat(c.reconciles()).as("counters of %s reconcile: %s", c.name(), c).isTrue();
        }
    }

    @Test
    void premiumOvertakesWaitingBasicRequestsWhichHoldNoWorkerThread() throws Exception {
        String tier = login("pat");
        int idleBusy = busyWorkerThreads();
        long basicBefore = engine.snapshot().get("basic").entered();
        startedOrder.clear();
        List<CompletableFuture<HttpResponse<String>>> basic = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            basic.add(send(request("/work?ms=80").build()));
        }
        awaitState("30 basic requests entered, 25 waiting", Duration.ofSeconds(20),
                () -> engine.snapshot().get("basic").entered() - basicBefore == 30
                        && engine.snapshot().get("basic").queued() >= 25);
        List<Integer> busy = new ArrayList<>();
        for (int i = 0; i < 20 && engine.snapshot().get("basic").queued() >= 20; i++) {
            busy.add(busyWorkerThreads());
            Thread.sleep(10);
        }
        List<CompletableFuture<HttpResponse<String>>> premium = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            premium.add(send(request("/work?ms=80").header("Cookie", tier).build()));
        }
        long basicStartedBefore = startedOrder.stream().filter("basic"::equals).count();
        for (CompletableFuture<HttpResponse<String>> f : premium) {
            assertThat(f.get().statusCode()).isEqualTo(200);
            assertThat(f.get().body()).isEqualTo("ok premium");
        }
        for (CompletableFuture<HttpResponse<String>> f : basic) {
            assertThat(f.get().statusCode()).isEqualTo(200);
            assertThat(f.get().body()).isEqualTo("ok basic");
        }
        List<String> order = List.copyOf(startedOrder);
        long basicBeforeLastPremium = order.subList(0, order.lastIndexOf("premium")).stream()
                .filter("basic"::equals).count();
        // the permits basic held when premium arrived may finish and be granted once more each, at most
        assertThat(basicBeforeLastPremium).as("basic served before the last premium; order %s", order)
                .isLessThanOrEqualTo(basicStartedBefore + 2).isLessThan(20);
        assertThat(busy).as("samples taken while 20+ requests waited").isNotEmpty();
        int most = busy.stream().mapToInt(Integer::intValue).max().orElseThrow();
        // 2 permits, and a completing request and the resume it triggers for a moment each
        assertThat(most).as("busy worker threads while 20+ requests waited (idle: %s); samples %s", idleBusy, busy)
                .isLessThanOrEqualTo(idleBusy + 2 + 2);
    }

    @Test
    void aRefusedNewSessionGets503WithRetryAfter() throws Exception {
        String tier = login("kim");
        CompletableFuture<HttpResponse<String>> p1 = send(request("/work?ms=1500").header("Cookie", tier).build());
        CompletableFuture<HttpResponse<String>> p2 = send(request("/work?ms=1500").header("Cookie", tier).build());
        awaitState("premium holds both permits", Duration.ofSeconds(10), () -> engine.snapshot().executing() == 2);
        CompletableFuture<HttpResponse<String>> p3 = send(request("/work").header("Cookie", tier).build());
        awaitState("premium waits", Duration.ofSeconds(10), () -> engine.snapshot().get("premium").queued() == 1);

        HttpResponse<String> refused = client.send(request("/work").header("Accept", "text/html").build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(refused.statusCode()).isEqualTo(503);
        // admission.retry-after 30 s, jittered x0.75..1.25 and rounded up (docs/configuration.md)
        assertThat(refused.headers().firstValue("Retry-After").map(Integer::valueOf)).hasValueSatisfying(
                s -> assertThat(s).isBetween(22, 38));
        assertThat(refused.headers().firstValue("Set-Cookie")).as("a refused session is not admitted").isEmpty();
        for (CompletableFuture<HttpResponse<String>> p : List.of(p1, p2, p3)) {
            assertThat(p.get().statusCode()).isEqualTo(200);
        }
    }

    @Test
    void actuatorAnswersUnderLoadBeforeAnyQueueWithHealthUpAndDetails() throws Exception {
        // Actuator's first answers initialise it: not what this test is about
        assertThat(client.send(request("/actuator/health").build(), HttpResponse.BodyHandlers.ofString())
                .statusCode()).isEqualTo(200);
        assertThat(client.send(request("/actuator/qos").build(), HttpResponse.BodyHandlers.ofString())
                .statusCode()).isEqualTo(200);
        // basic may take one of the 2 permits: premium keeps its default reserve of 1
        List<CompletableFuture<HttpResponse<String>>> load = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            load.add(send(request("/work?ms=1000").build()));
        }
        awaitState("1 running, 1 waiting", Duration.ofSeconds(10),
                () -> engine.snapshot().executing() == 1 && engine.snapshot().queued() == 1);
        long exemptBefore = engine.snapshot().exempt();
        long enteredBefore = engine.snapshot().get("basic").entered() + engine.snapshot().get("premium").entered();

        HttpResponse<String> health = client.send(request("/actuator/health").build(),
                HttpResponse.BodyHandlers.ofString());
        HttpResponse<String> qos = client.send(request("/actuator/qos").build(), HttpResponse.BodyHandlers.ofString());
        // answered while basic's permit is still held by the first request and the second waits
        assertThat(load.get(0).isDone()).as("the request holding basic's permit is still running").isFalse();
        assertThat(engine.snapshot().queued()).as("still waiting when Actuator answered").isEqualTo(1);
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"qos\":{")
                .contains("\"regime\":\"queueing\"").contains("\"delayTargetMillis\"").contains("\"contentLevel\"");
        assertThat(qos.statusCode()).isEqualTo(200);
        assertThat(qos.headers().firstValue("Content-Type").orElse("")).startsWith("application/");
        assertThat(qos.body()).startsWith("{\"schema\":\"servlet-qos-status/1\"").contains("\"name\":\"premium\"")
                .contains("\"name\":\"basic\"").contains("\"queued\":1");
        assertThat(engine.snapshot().exempt() - exemptBefore).as("Actuator's requests were exempt").isEqualTo(2);
        assertThat(engine.snapshot().get("basic").entered() + engine.snapshot().get("premium").entered())
                .as("Actuator's requests entered no class").isEqualTo(enteredBefore);
        for (CompletableFuture<HttpResponse<String>> f : load) {
            assertThat(f.get().statusCode()).isEqualTo(200);
        }
    }

    @Test
    void theMetersAreInTheApplicationsRegistry() throws Exception {
        double before = arrivals("basic");
        assertThat(client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        // the meters read the engine's snapshot at most once per QosMetrics.CACHE_MILLIS
        awaitState("qos.arrivals{qos.class=basic} counts the request", Duration.ofSeconds(5),
                () -> arrivals("basic") - before == 1.0);
        assertThat(registry.find("qos.budget").tag("qos.class", "premium").gauge()).isNotNull();
    }

    private double arrivals(String c) {
        var counter = registry.find("qos.arrivals").tag("qos.class", c).functionCounter();
        assertThat(counter).as("qos.arrivals{qos.class=%s} in the registry", c).isNotNull();
        return counter.count();
    }

    @Test
    void theJmxBeansAreOnThePlatformServerWritableAndTheEndpointWritesThroughThem() throws Exception {
        MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
        String id = runtime.mbeans().engineId();
        ObjectName basic = QosMBeans.className(QosMBeans.DOMAIN, id, "basic");
        assertThat(platform.isRegistered(QosMBeans.engineName(QosMBeans.DOMAIN, id))).isTrue();
        int budget = (Integer) platform.getAttribute(basic, "Budget");
        try {
            platform.setAttribute(basic, new Attribute("Budget", 1));
            assertThat(engine.snapshot().get("basic").budget()).isEqualTo(1);
            String jmxRefusal = null;
            try {
                platform.setAttribute(basic, new Attribute("Budget", 99));
            } catch (RuntimeMBeanException e) {
                jmxRefusal = e.getCause().getMessage();
            }
            assertThat(jmxRefusal).as("JMX refuses a budget above max-executing").isNotNull();

            HttpResponse<String> set = post("/actuator/qos/basic", "{\"attribute\":\"Budget\",\"value\":\"2\"}");
            assertThat(set.statusCode()).as(set.body()).isEqualTo(200);
            assertThat(engine.snapshot().get("basic").budget()).isEqualTo(2);
            assertThat(engine.settings().source().name()).as("an operator's change").isEqualTo("OPERATOR");

            HttpResponse<String> refused = post("/actuator/qos/basic", "{\"attribute\":\"Budget\",\"value\":\"99\"}");
            assertThat(refused.statusCode()).isEqualTo(400);
            assertThat(refused.body()).contains(jmxRefusal.replace("\"", "\\\""));
            assertThat(engine.snapshot().get("basic").budget()).as("a refused write changes nothing").isEqualTo(2);

            HttpResponse<String> op = post("/actuator/qos/engine", "{\"operation\":\"resetStatistics\"}");
            assertThat(op.statusCode()).as(op.body()).isEqualTo(200);
        } finally {
            platform.setAttribute(basic, new Attribute("Budget", budget));
        }
    }

    /** Spring Security's chain decides on a request that waited for its permit, as on one that did not. */
    @Test
    void springSecuritySeesEveryRequestThatWaited() throws Exception {
        String ann = "Basic " + Base64.getEncoder().encodeToString("ann:secret".getBytes(StandardCharsets.UTF_8));
        // basic may take one of the 2 permits: premium keeps its default reserve of 1
        List<CompletableFuture<HttpResponse<String>>> load = List.of(send(request("/work?ms=1000").build()));
        awaitState("basic's permit held", Duration.ofSeconds(10), () -> engine.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> anonymous = send(request("/account").build());
        CompletableFuture<HttpResponse<String>> signedIn = send(request("/account").header("Authorization", ann)
                .build());
        awaitState("both wait", Duration.ofSeconds(10), () -> engine.snapshot().queued() == 2);
        assertThat(anonymous.get().statusCode()).as("a request that waited is still checked").isEqualTo(401);
        assertThat(signedIn.get().statusCode()).as(signedIn.get().body()).isEqualTo(200);
        assertThat(signedIn.get().body()).isEqualTo("account of ann (basic)");
        for (CompletableFuture<HttpResponse<String>> f : load) {
            assertThat(f.get().statusCode()).isEqualTo(200);
        }
    }

    /** A request that waited, then went asynchronous in Spring MVC (a Callable), signed in: answered once, 200. */
    @Test
    void aRequestThatWaitedCanGoAsynchronousInSpringMvc() throws Exception {
        String ann = "Basic " + Base64.getEncoder().encodeToString("ann:secret".getBytes(StandardCharsets.UTF_8));
        List<CompletableFuture<HttpResponse<String>>> load = List.of(send(request("/work?ms=800").build()));
        awaitState("basic's permit held", Duration.ofSeconds(10), () -> engine.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> async = send(request("/async-work").header("Authorization", ann)
                .build());
        awaitState("it waits", Duration.ofSeconds(10), () -> engine.snapshot().queued() == 1);
        assertThat(async.get().statusCode()).as(async.get().body()).isEqualTo(200);
        assertThat(async.get().body()).isEqualTo("async basic for ann");
        for (CompletableFuture<HttpResponse<String>> f : load) {
            assertThat(f.get().statusCode()).isEqualTo(200);
        }
    }

    /** Logs in through the application (a POST the engine sees as any request) and returns its tier cookie. */
    String login(String user) throws Exception {
        HttpClient browser = HttpClient.newBuilder().cookieHandler(new CookieManager()).build();
        HttpResponse<String> r = browser.send(request("/login?user=" + user)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        var cookies = ((CookieManager) browser.cookieHandler().orElseThrow()).getCookieStore().getCookies();
        return cookies.stream().filter(c -> c.getName().equals("QOSTIER")).findFirst()
                .map(c -> c.getName() + "=" + c.getValue()).orElseThrow(() -> new AssertionError(
                        "the login set no tier cookie: " + r.headers().map()));
    }

    HttpRequest.Builder request(String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(60));
    }

    CompletableFuture<HttpResponse<String>> send(HttpRequest r) {
        return client.sendAsync(r, HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> post(String path, String json) throws Exception {
        return client.send(request(path).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)).build(), HttpResponse.BodyHandlers.ofString());
    }

    void awaitState(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out waiting for: " + what + "; engine: " + engine.snapshot());
            }
            Thread.sleep(5);
        }
    }
}

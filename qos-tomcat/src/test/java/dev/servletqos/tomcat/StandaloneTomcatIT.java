package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The valve installed the way an admin installs it: Tomcat's binary distribution, {@code
 * qos-tomcat-<version>-all.jar} in {@code $CATALINA_BASE/lib}, a policy file in {@code conf/} and one
 * {@code <Valve>} line in the app's context file; tested over real HTTP.
 *
 * <p>Nothing here depends on timing. The fixture page {@code hold.jsp?id=X} runs until the test creates a
 * release file, so the test decides when a permit is freed; it sees which requests run (their marker
 * files) and which are parked (Tomcat's RequestProcessor MBeans, read through the valve-less {@code probe}
 * app: a parked request has gone async and its thread has left). Every wait polls for a condition, with a
 * deadline.
 */
class StandaloneTomcatIT {

    /**
     * The file says 8 executing; the valve attribute says 2 and must win. {@code max-wait} is far longer
     * than any test keeps a request queued, so nothing expires by accident. Premium keeps no permit of its own
     * (the default reserve of the top class is 1): the tests count on basic taking both permits, and premium
     * overtaking basic requests that wait.
     */
    private static final String POLICY = """
            # servlet-qos policy for StandaloneTomcatIT
            classes = premium, basic
            default-class = basic
            scheduling = strict-priority
            max-executing = 8
            class.basic.max-queue = 3
            class.basic.max-wait = 20s
            class.premium.reserve = 0
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            rule.1.trusted = true
            """;
    private static final String VALVE =
            "<Valve className=\"dev.servletqos.tomcat.QosValve\" policy=\"conf/qos.properties\" maxExecuting=\"2\"/>";

    private static final Duration WAIT = Duration.ofSeconds(30);
    /** Pause between two looks at the server while polling for a condition. */
    private static final long POLL_MILLIS = 20;
    /** RequestProcessor stage of a request whose container thread has left while it is async. */
    private static final int STAGE_ENDED = org.apache.coyote.Constants.STAGE_ENDED;

    private static StandaloneTomcat tomcat;
    private static HttpClient client;

    @BeforeAll
    static void startTomcat() throws IOException {
        client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        tomcat = StandaloneTomcat.builder("qos-valve")
                .maxThreads(20)
                .confFile("qos.properties", POLICY)
                .webapp("app", StandaloneTomcat.fixtureApp("app"), "  " + VALVE)
                .webapp("probe", StandaloneTomcat.fixtureApp("probe"))
                .readyPath("/app/hello.jsp")
                .start();
    }

    @AfterAll
    static void stopTomcat() {
        if (tomcat != null) {
            tomcat.close();
        }
    }

    @Test
    void servesRequestsThroughTheValveAndClassifiesThem() throws Exception {
        HttpResponse<String> plain = send(request("/app/hello.jsp", null));
        assertEquals(200, plain.statusCode(), plain::body);
        assertEquals("hello basic", plain.body().strip());

        HttpResponse<String> premium = send(request("/app/hello.jsp", "premium"));
        assertEquals(200, premium.statusCode(), premium::body);
        assertEquals("hello premium", premium.body().strip());

        HttpResponse<String> slow = send(request("/app/slow.jsp?ms=50", "premium"));
        assertEquals(200, slow.statusCode(), slow::body);
        assertEquals("ok premium", slow.body().strip());
    }

    /**
     * maxExecuting="2" from the context file, basic max-queue 3 from the policy file: of 10 basic requests,
     * 2 run, 3 wait and run later, 5 get the friendly 503 with Retry-After at once.
     */
    @Test
    void attributeOverridesFileAndFullQueueAnswersFriendly503() throws Exception {
        try (Holds holds = new Holds()) {
            // Two first, so that the permits are known to be theirs whatever an earlier test left behind.
            holds.send("q0", null);
            holds.send("q1", null);
            Set<String> running = Set.of("q0", "q1");
            awaitTrue("q0 and q1 running", () -> holds.entered().containsAll(running));
            List<String> ids = new ArrayList<>();
            for (int i = 2; i < 10; i++) {
                ids.add("q" + i);
                holds.send("q" + i, null);
            }
            Set<String> parked = awaitSettled(holds, ids);
            Set<String> answered = holds.answered();
            assertEquals(running, holds.entered(), () -> "running (maxExecuting=2 must override max-executing=8): "
                    + holds.entered() + ", parked " + parked + ", answered " + answered);
            assertEquals(3, parked.size(), () -> "parked (class.basic.max-queue=3): " + parked);
            assertEquals(5, answered.size(), () -> "answered: " + answered);
            for (String id : answered) {
                assertFriendlyRefusal(holds.response(id));
            }

            // The queue drains as permits free up, two at a time: 2 + 1.
            holds.release(running);
            awaitTrue("q0 and q1 answered, two queued requests running",
                    () -> holds.answered().containsAll(running) && holds.entered().size() >= 4);
            assertEquals(4, holds.entered().size(), () -> "ran so far: " + holds.entered());
            holds.release(holds.entered());
            awaitTrue("the last queued request running", () -> holds.entered().size() >= 5);
            holds.release(holds.entered());
            awaitTrue("all answered", () -> holds.answered().size() == 10);

            int ok = 0;
            int refused = 0;
            for (String id : holds.ids()) {
                HttpResponse<String> response = holds.response(id);
                if (response.statusCode() == 200) {
                    assertEquals("ok - " + id, response.body().strip());
                    ok++;
                } else {
                    assertFriendlyRefusal(response);
                    refused++;
                }
            }
            assertEquals(5, ok, "served");
            assertEquals(5, refused, "refused");
            assertEquals(holds.entered(), union(running, parked), "served are the first 2 and the 3 that waited");
        }
    }

    /** Strict priority: a premium request that arrives after three queued basic ones runs before them. */
    @Test
    void premiumOvertakesQueuedBasicRequests() throws Exception {
        try (Holds holds = new Holds()) {
            holds.send("b0", null);
            holds.send("b1", null);
            awaitTrue("b0 and b1 running", () -> holds.entered().equals(Set.of("b0", "b1")));
            for (String id : List.of("b2", "b3", "b4")) {
                holds.send(id, null);
            }
            assertEquals(Set.of("b2", "b3", "b4"), awaitSettled(holds, List.of("b2", "b3", "b4")), "parked");
            holds.send("p", "premium");
            assertEquals(Set.of("p"), awaitSettled(holds, List.of("p")), "parked");

            // One permit frees up: it must go to the premium request, not to the basic ones queued earlier.
            holds.release(Set.of("b0"));
            awaitTrue("b0 answered and one more request running",
                    () -> holds.answered().contains("b0") && holds.entered().size() >= 3);
            assertEquals(Set.of("b0", "b1", "p"), holds.entered(), "the request that got b0's permit");

            holds.release(Set.of("p"));
            awaitTrue("p answered", () -> holds.answered().contains("p"));
            assertEquals("ok premium p", holds.response("p").body().strip());
            holds.release(Set.of("b1", "b2", "b3", "b4"));
            awaitTrue("all answered", () -> holds.answered().size() == 6);

            for (String id : List.of("b0", "b1", "b2", "b3", "b4")) {
                assertEquals(200, holds.response(id).statusCode(), id);
                assertEquals("ok - " + id, holds.response(id).body().strip());
            }
            List<String> order = holds.completionOrder();
            int premium = order.indexOf("p");
            for (String queued : List.of("b2", "b3", "b4")) {
                assertTrue(premium < order.indexOf(queued), () -> "completion order " + order);
            }
        }
    }

    private static void assertFriendlyRefusal(HttpResponse<String> response) {
        assertEquals(503, response.statusCode(), response::body);
        String retryAfter = response.headers().firstValue("Retry-After").orElse(null);
        assertTrue(retryAfter != null && retryAfter.matches("[1-9][0-9]*"), "Retry-After: " + retryAfter);
    }

    /**
     * Waits until each of {@code ids} is running, parked or answered (nothing is released meanwhile, so that
     * state is stable) and returns the parked ones.
     */
    private static Set<String> awaitSettled(Holds holds, List<String> ids) throws IOException, InterruptedException {
        return awaitValue(ids + " running, parked or answered", () -> {
            Set<String> parked = parked(holds, probe());
            Set<String> settled = union(holds.entered(), union(holds.answered(), parked));
            parked.retainAll(ids);
            return settled.containsAll(ids) ? parked : null;
        });
    }

    /** Requests of {@code holds} that are async with no thread and have not run: parked by the valve. */
    private static Set<String> parked(Holds holds, Map<String, Integer> stages) {
        Set<String> parked = new TreeSet<>();
        stages.forEach((id, stage) -> {
            if (stage == STAGE_ENDED && holds.sent(id) && !holds.entered().contains(id)
                    && !holds.answered().contains(id)) {
                parked.add(id);
            }
        });
        return parked;
    }

    /** hold.jsp ids the connector holds right now, with their RequestProcessor stage. */
    private static Map<String, Integer> probe() throws IOException, InterruptedException {
        HttpResponse<String> response = send(request("/probe/requests.jsp", null));
        assertEquals(200, response.statusCode(), response::body);
        Map<String, Integer> stages = new HashMap<>();
        for (String line : response.body().lines().toList()) {
            String[] parts = line.strip().split(" ", 2);
            String prefix = "/app/hold.jsp?id=";
            if (parts.length == 2 && parts[1].startsWith(prefix)) {
                stages.put(parts[1].substring(prefix.length()), Integer.parseInt(parts[0]));
            }
        }
        return stages;
    }

    private static HttpRequest request(String path, String tier) {
        HttpRequest.Builder builder = HttpRequest.newBuilder(tomcat.uri(path)).timeout(Duration.ofSeconds(90));
        if (tier != null) {
            builder.header("X-Tier", tier);
        }
        return builder.build();
    }

    private static HttpResponse<String> send(HttpRequest request) throws IOException, InterruptedException {
        return client.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> union = new TreeSet<>(a);
        union.addAll(b);
        return union;
    }

    private interface Probe<T> {
        T get() throws IOException, InterruptedException;
    }

    private interface Condition {
        boolean holds() throws IOException, InterruptedException;
    }

    private static void awaitTrue(String what, Condition condition) throws IOException, InterruptedException {
        awaitValue(what, () -> condition.holds() ? Boolean.TRUE : null);
    }

    /** Polls until {@code probe} returns non-null, at most {@link #WAIT}. */
    private static <T> T awaitValue(String what, Probe<T> probe) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (true) {
            T value = probe.get();
            if (value != null) {
                return value;
            }
            if (System.nanoTime() - deadline > 0) {
                return fail("waited " + WAIT.toSeconds() + " s for " + what + "; probe " + probe()
                        + "\n" + tomcat.logTail());
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /**
     * Requests to {@code hold.jsp} and their release files. Closing releases every request and waits for all
     * answers, so a failed test leaves no permit held for the next one.
     */
    private static final class Holds implements AutoCloseable {
        private final Path dir = tomcat.base().resolve("temp/hold");
        private final Map<String, CompletableFuture<HttpResponse<String>>> responses = new LinkedHashMap<>();
        private final List<String> completionOrder = Collections.synchronizedList(new ArrayList<>());

        void send(String id, String tier) {
            if (responses.containsKey(id)) {
                throw new IllegalArgumentException("id used twice: " + id);
            }
            CompletableFuture<HttpResponse<String>> response =
                    client.sendAsync(request("/app/hold.jsp?id=" + id, tier), HttpResponse.BodyHandlers.ofString());
            responses.put(id, response.whenComplete((r, e) -> completionOrder.add(id)));
        }

        boolean sent(String id) {
            return responses.containsKey(id);
        }

        Set<String> ids() {
            return responses.keySet();
        }

        /** Ids whose request has reached the page (running now or done). */
        Set<String> entered() {
            Set<String> entered = new TreeSet<>();
            for (String id : responses.keySet()) {
                if (Files.exists(dir.resolve(id + ".entered"))) {
                    entered.add(id);
                }
            }
            return entered;
        }

        /** Ids whose response has arrived. */
        Set<String> answered() {
            Set<String> answered = new TreeSet<>();
            responses.forEach((id, response) -> {
                if (response.isDone()) {
                    answered.add(id);
                }
            });
            return answered;
        }

        List<String> completionOrder() {
            synchronized (completionOrder) {
                return List.copyOf(completionOrder);
            }
        }

        HttpResponse<String> response(String id) throws InterruptedException {
            try {
                return responses.get(id).get(WAIT.toSeconds(), TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new AssertionError("no response for " + id, e);
            }
        }

        void release(Set<String> ids) throws IOException {
            Files.createDirectories(dir);
            for (String id : ids) {
                try {
                    Files.createFile(dir.resolve(id + ".release"));
                } catch (FileAlreadyExistsException alreadyReleased) {
                    // release is idempotent
                }
            }
        }

        @Override
        public void close() throws IOException {
            release(responses.keySet());
            for (CompletableFuture<HttpResponse<String>> response : responses.values()) {
                try {
                    response.get(WAIT.toSeconds(), TimeUnit.SECONDS);
                } catch (ExecutionException | TimeoutException e) {
                    // The test already failed or reports it; the request is released either way.
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}

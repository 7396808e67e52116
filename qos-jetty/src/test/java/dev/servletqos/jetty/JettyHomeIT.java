package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.servletqos.jetty.home.SlowHandler;
import dev.servletqos.jetty.home.StatusHandler;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The handler the way a Jetty admin installs it: the {@code jetty-home} distribution from Maven Central, a
 * fresh {@code jetty.base} made with {@code start.jar --add-modules}, the shaded {@code -all} jar in
 * {@code lib/ext}, the shipped {@code servlet-qos} module and Jetty XML ({@code src/main/jetty-base}), and the
 * server run as a separate process on 127.0.0.1.
 *
 * <p>The application (two core handlers from this module's test classes, packed into a jar in
 * {@code lib/ext}) is deployed by a second Jetty XML file: {@code /app} works a given number of milliseconds;
 * {@code /status} reports the QoS counters and, by the policy, has a class of its own with a reserved permit
 * so that watching never waits behind the load.
 */
class JettyHomeIT {

    private static final Pattern PORT = Pattern.compile("Started .*Connector@\\S*\\{.*\\}\\{127\\.0\\.0\\.1:(\\d+)\\}");
    private static final Duration START_TIMEOUT = Duration.ofSeconds(40);

    private static final String POLICY = """
            # The integration test's policy: two permits, one of them reserved for the status probe.
            classes = ops, premium, basic
            default-class = basic
            max-executing = 2
            class.ops.budget = 1
            class.ops.reserve = 1
            class.premium.budget = 1
            class.basic.budget = 1
            class.basic.max-queue = 2
            class.basic.max-wait = 20s
            class.premium.max-wait = 20s
            admission.retry-after = 9s
            rule.1.type = path
            rule.1.value = /status
            rule.1.class = ops
            # trusted: since issue 11 a path rule only lowers requests; this probe's path gives its class
            rule.1.trusted = true
            rule.2.type = header
            rule.2.header = X-Tier
            rule.2.value = premium
            rule.2.class = premium
            rule.2.trusted = true
            """;

    private static final String APP_MODULE = """
            [description]
            The servlet-qos integration test's application: /app and /status.

            [depend]
            server
            ext

            [xml]
            etc/qos-it-app.xml
            """;

    private static final String APP_XML = """
            <?xml version="1.0"?>
            <!DOCTYPE Configure PUBLIC "-//Jetty//Configure//EN" "https://jetty.org/configure_10_0.dtd">
            <Configure id="Server" class="org.eclipse.jetty.server.Server">
              <Ref refid="Contexts">
                <Call name="addHandler">
                  <Arg>
                    <New class="org.eclipse.jetty.server.handler.ContextHandler">
                      <Set name="contextPath">/app</Set>
                      <Set name="handler"><New class="dev.servletqos.jetty.home.SlowHandler"/></Set>
                    </New>
                  </Arg>
                </Call>
                <Call name="addHandler">
                  <Arg>
                    <New class="org.eclipse.jetty.server.handler.ContextHandler">
                      <Set name="contextPath">/status</Set>
                      <Set name="handler"><New class="dev.servletqos.jetty.home.StatusHandler"/></Set>
                    </New>
                  </Arg>
                </Call>
              </Ref>
            </Configure>
            """;

    @TempDir
    Path base;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();
    private int port;

    @Test
    void queuesAndPrioritiesInAJettyHomeDistribution() throws Exception {
        Path home = requiredPath("qos.it.jetty.home");
        Path allJar = requiredPath("qos.it.all.jar");
        Path shipped = requiredPath("qos.it.jetty.base.files");
        makeBase(shipped, allJar);

        Process addModules = java(home, "--add-modules=http,servlet-qos,qos-it-app").start();
        String addOutput = new String(addModules.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(addModules.waitFor(60, TimeUnit.SECONDS), "start.jar --add-modules did not finish");
        assertEquals(0, addModules.exitValue(), addOutput);
        assertTrue(Files.exists(base.resolve("start.d/servlet-qos.ini")), addOutput);

        Process jetty = java(home, "jetty.http.host=127.0.0.1", "jetty.http.port=0").start();
        StringBuffer log = new StringBuffer();
        try {
            port = awaitStarted(jetty, log);
            exercise(log);
        } finally {
            stop(jetty);
        }
    }

    private void exercise(StringBuffer log) throws Exception {
        assertTrue(log.toString().contains("servlet-qos: 3 classes, strict-priority, max-executing 2"),
                "the handler logged its policy at start:\n" + log);

        // Served, with the class given to the application and the admission cookie to the client.
        HttpResponse<String> first = get("/app/hello", null);
        assertEquals(200, first.statusCode(), first.body());
        assertTrue(first.body().startsWith("ok basic #"), first.body());
        assertTrue(first.headers().firstValue("Set-Cookie").orElse("").startsWith("QOSSESSION="),
                first.headers().map().toString());
        assertTrue(get("/app/hello", "premium").body().startsWith("ok premium #"));

        // One basic request runs; two more fill basic's queue of two; a premium one waits too.
        CompletableFuture<HttpResponse<String>> running = send("/app/slow?ms=2500", null);
        awaitStatus("a basic request running", s -> s.get("basic.executing") == 1);
        List<CompletableFuture<HttpResponse<String>>> basic = new ArrayList<>();
        basic.add(send("/app/next", null));
        basic.add(send("/app/next", null));
        awaitStatus("two basic requests waiting", s -> s.get("basic.queued") == 2);
        CompletableFuture<HttpResponse<String>> premium = send("/app/next", "premium");
        awaitStatus("a premium request waiting", s -> s.get("premium.queued") == 1);

        // The tiny queue overflows: a friendly 503 with Retry-After, at once.
        HttpResponse<String> refused = client.send(request("/app/next", null)
                .setHeader("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(503, refused.statusCode(), refused.body());
        AdapterBehaviourSuite.assertRetryAfter(9, refused);
        assertEquals("no-store", refused.headers().firstValue("Cache-Control").orElse(null));
        assertTrue(refused.body().contains("\"reason\":\"queue-full\""), refused.body());

        // Premium arrived last and starts first, before both waiting basic requests.
        assertEquals(200, running.get(30, TimeUnit.SECONDS).statusCode());
        int premiumStart = startNumber(premium.get(30, TimeUnit.SECONDS), "premium");
        for (CompletableFuture<HttpResponse<String>> b : basic) {
            int basicStart = startNumber(b.get(30, TimeUnit.SECONDS), "basic");
            assertTrue(premiumStart < basicStart, "premium started #" + premiumStart + ", basic #" + basicStart);
        }

        Map<String, Integer> end = awaitStatus("nothing running or waiting",
                s -> s.get("basic.executing") + s.get("basic.queued") + s.get("premium.executing")
                        + s.get("premium.queued") == 0);
        assertEquals(1, end.get("basic.queueFull"));
        assertEquals(0, end.get("basic.expired"));
        assertEquals(4, end.get("basic.completed"));
        assertEquals(2, end.get("premium.completed"));
        assertEquals(1, end.get("basic.reconciles"));
        assertEquals(1, end.get("premium.reconciles"));
    }

    private static int startNumber(HttpResponse<String> r, String cls) {
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().startsWith("ok " + cls + " #"), r.body());
        return Integer.parseInt(r.body().substring(r.body().indexOf('#') + 1).trim());
    }

    private HttpRequest.Builder request(String path, String tier) {
        // a browser's page: without an admission cookie, a new session (not a stateless API call)
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).setHeader("Accept", "text/html");
        if (tier != null) {
            b.header("X-Tier", tier);
        }
        return b;
    }

    private HttpResponse<String> get(String path, String tier) throws Exception {
        return client.send(request(path, tier).build(), HttpResponse.BodyHandlers.ofString());
    }

    private CompletableFuture<HttpResponse<String>> send(String path, String tier) {
        return client.sendAsync(request(path, tier).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code /status} until the counters satisfy the condition; returns them. */
    private Map<String, Integer> awaitStatus(String what, Predicate<Map<String, Integer>> condition)
            throws Exception {
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        Map<String, Integer> last = Map.of();
        while (System.nanoTime() - end < 0) {
            HttpResponse<String> r = get("/status/", null);
            assertEquals(200, r.statusCode(), r.body());
            Map<String, Integer> counters = new HashMap<>();
            for (String line : r.body().split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    String v = line.substring(eq + 1);
                    counters.put(line.substring(0, eq), v.equals("true") ? 1 : v.equals("false") ? 0
                            : Integer.parseInt(v));
                }
            }
            last = counters;
            if (condition.test(counters)) {
                return counters;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("timed out waiting for: " + what + "; counters " + last);
    }

    private void makeBase(Path shipped, Path allJar) throws IOException, URISyntaxException {
        Files.createDirectories(base.resolve("modules"));
        Files.createDirectories(base.resolve("etc"));
        Files.createDirectories(base.resolve("lib/ext"));
        Files.copy(shipped.resolve("modules/servlet-qos.mod"), base.resolve("modules/servlet-qos.mod"));
        Files.copy(shipped.resolve("etc/servlet-qos.xml"), base.resolve("etc/servlet-qos.xml"));
        Files.writeString(base.resolve("etc/qos.properties"), POLICY, StandardCharsets.UTF_8);
        Files.writeString(base.resolve("modules/qos-it-app.mod"), APP_MODULE, StandardCharsets.UTF_8);
        Files.writeString(base.resolve("etc/qos-it-app.xml"), APP_XML, StandardCharsets.UTF_8);
        Files.copy(allJar, base.resolve("lib/ext").resolve(allJar.getFileName()));
        appJar(base.resolve("lib/ext/qos-it-app.jar"));
    }

    /** Packs the application's classes (this module's test classes) into a jar for {@code lib/ext}. */
    private static void appJar(Path jar) throws IOException, URISyntaxException {
        Path classes = Path.of(SlowHandler.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        String pkg = SlowHandler.class.getPackageName().replace('.', '/');
        assertEquals(pkg, StatusHandler.class.getPackageName().replace('.', '/'));
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream jarOut = new JarOutputStream(out);
             Stream<Path> files = Files.list(classes.resolve(pkg))) {
            for (Path f : (Iterable<Path>) files::iterator) {
                jarOut.putNextEntry(new JarEntry(pkg + "/" + f.getFileName()));
                jarOut.write(Files.readAllBytes(f));
                jarOut.closeEntry();
            }
        }
    }

    private ProcessBuilder java(Path home, String... args) {
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar", home.resolve("start.jar").toString(),
                "jetty.home=" + home, "jetty.base=" + base));
        command.addAll(List.of(args));
        return new ProcessBuilder(command).directory(base.toFile()).redirectErrorStream(true);
    }

    /** Reads the server's log until it has started, returning the port its connector bound. */
    private static int awaitStarted(Process jetty, StringBuffer log) throws Exception {
        CompletableFuture<Integer> bound = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(jetty.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    log.append(line).append('\n');
                    Matcher m = PORT.matcher(line);
                    if (m.find()) {
                        bound.complete(Integer.parseInt(m.group(1)));
                    }
                }
            } catch (IOException e) {
                bound.completeExceptionally(e);
            }
            bound.completeExceptionally(new IllegalStateException("jetty exited"));
        }, "jetty-home-log");
        reader.setDaemon(true);
        reader.start();
        try {
            return bound.get(START_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        } catch (Exception e) {
            fail("jetty-home did not start (" + e + "); its output:\n" + log, e);
            throw e;
        }
    }

    private static void stop(Process jetty) throws InterruptedException {
        List<ProcessHandle> children = jetty.descendants().toList();
        jetty.destroy();
        if (!jetty.waitFor(15, TimeUnit.SECONDS)) {
            jetty.destroyForcibly();
            jetty.waitFor(10, TimeUnit.SECONDS);
        }
        children.forEach(ProcessHandle::destroyForcibly);
    }

    private static Path requiredPath(String property) {
        String value = System.getProperty(property);
        assertNotNull(value, "system property " + property + " is not set: run this test with failsafe "
                + "(./mvnw verify -pl qos-jetty -am)");
        Path p = Path.of(value);
        assertTrue(Files.exists(p), property + " = " + value + " does not exist");
        return p;
    }
}

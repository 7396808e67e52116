package dev.servletqos.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.jmx.QosMBeans;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import javax.management.Attribute;
import javax.management.MBeanException;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import javax.management.openmbean.CompositeData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The engine's JMX beans as every adapter must show them, read and written through a real JMX remote connection
 * ({@link JmxRemote}: an RMI connector on 127.0.0.1) while the adapter serves real HTTP: the beans describe the
 * engine, a budget written over JMX changes who is served at once, a bad value is refused with a message naming
 * the attribute and the value and changes nothing, and the beans are gone once the adapter stops.
 *
 * <p>Subclass it in the adapter module's tests like {@link AdapterBehaviourSuite} (its {@link #start} has the same
 * contract), and say where the adapter puts its beans: {@link #mbeanServer()}, {@link #domain()},
 * {@link #engineId()}.
 */
public abstract class JmxAdapterSuite {

    /**
     * Two classes, no borrowing, basic with one permit of the four: a second basic request waits until basic's
     * budget is raised.
     */
    protected static final String POLICY = AdapterBehaviourSuite.CLASSES + """
            max-executing = 4
            borrowing = false
            class.premium.budget = 3
            class.basic.budget = 1
            class.basic.max-queue = 10
            class.basic.max-wait = 30s
            """;

    @TempDir
    protected Path dir;

    protected QosServer server;
    protected JmxRemote jmx;
    protected MBeanServerConnection remote;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    /** Starts the adapter under test, as {@link AdapterBehaviourSuite#start} does. */
    protected abstract QosServer start(Path dir, String policyText, int maxThreads) throws Exception;

    /** The MBean server the adapter registers on; the platform's unless overridden. */
    protected MBeanServer mbeanServer() {
        return ManagementFactory.getPlatformMBeanServer();
    }

    /** The ObjectName domain the adapter uses; {@value QosMBeans#DOMAIN} unless overridden. */
    protected String domain() {
        return QosMBeans.DOMAIN;
    }

    /** The engine id the adapter gives its engine in the test's container. */
    protected abstract String engineId();

    private void start() throws Exception {
        server = start(dir, POLICY, AdapterBehaviourSuite.MAX_THREADS);
        jmx = JmxRemote.start(mbeanServer());
        remote = jmx.connection();
    }

    @AfterEach
    void close() throws Exception {
        try {
            if (server != null) {
                AdapterBehaviourSuite.await("executing and queued back to zero", Duration.ofSeconds(20), () -> {
                    EngineSnapshot s = server.snapshot();
                    return s == null || s.executing() == 0 && s.queued() == 0;
                });
            }
        } finally {
            try {
                if (jmx != null) {
                    jmx.close();
                }
            } finally {
                if (server != null) {
                    server.close();
                }
            }
        }
    }

    protected ObjectName engineName() {
        return QosMBeans.engineName(domain(), engineId());
    }

    protected ObjectName className(String serviceClass) {
        return QosMBeans.className(domain(), engineId(), serviceClass);
    }

    protected ObjectName controllerName() {
        return QosMBeans.controllerName(domain(), engineId());
    }

    @Test
    protected void theBeansDescribeTheEngine() throws Exception {
        start();
        assertEquals(engineId(), remote.getAttribute(engineName(), "EngineId"));
        assertArrayEquals(new String[] {"premium", "basic"}, (String[]) remote.getAttribute(engineName(),
                "ClassNames"));
        assertEquals(4, remote.getAttribute(engineName(), "MaxExecuting"));
        assertEquals("POLICY", remote.getAttribute(engineName(), "SettingsSource"));

        assertEquals(200, client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).statusCode());
        awaitState("the request completed", () -> server.snapshot().get("basic").completed() == 1);
        CompositeData[] classes = (CompositeData[]) remote.getAttribute(engineName(), "Classes");
        assertEquals(2, classes.length);
        assertEquals("basic", classes[1].get("name"));
        assertEquals(1L, classes[1].get("entered"));
        assertEquals(1L, classes[1].get("completed"));
        assertEquals(1L, classes[1].get("sessionsAdmitted"));
        assertEquals(1, classes[1].get("budget"));
        assertTrue(classes[1].getCompositeType().containsKey("p95WaitMillis"), classes[1].toString());

        ObjectName basic = className("basic");
        assertEquals(1, remote.getAttribute(basic, "Budget"));
        assertEquals(1, remote.getAttribute(basic, "Priority"));
        assertEquals(10, remote.getAttribute(basic, "MaxQueue"));
        assertEquals(30_000L, remote.getAttribute(basic, "MaxWaitMillis"));
        assertEquals(3, remote.getAttribute(className("premium"), "Budget"));
        assertEquals(1L, ((CompositeData) remote.getAttribute(basic, "Statistics")).get("completed"));

        assertEquals("off", remote.getAttribute(controllerName(), "Mode"));
        assertEquals(1000L, remote.getAttribute(controllerName(), "PeriodMillis"));
        assertEquals(Boolean.TRUE, remote.getAttribute(controllerName(), "Running"));
    }

    @Test
    protected void aBudgetWrittenOverJmxLetsAWaitingRequestRun() throws Exception {
        start();
        CompletableFuture<HttpResponse<String>> first = send(request("/work?ms=4000").build());
        awaitState("the first basic request runs", () -> intAttribute(engineName(), "Executing") == 1);
        CompletableFuture<HttpResponse<String>> second = send(request("/work").build());
        awaitState("the second waits for basic's only permit", () -> intAttribute(engineName(), "Queued") == 1);

        remote.setAttribute(className("basic"), new Attribute("Budget", 2));

        HttpResponse<String> served = second.get(10, TimeUnit.SECONDS);
        assertEquals(200, served.statusCode());
        assertEquals("ok basic", served.body());
        assertFalse(first.isDone(), "the second request ran beside the first, not after it");
        assertEquals(List.of("basic", "basic"), server.startedOrder());
        assertEquals(2, server.engine().settings().get(1).budget());
        assertEquals(Settings.Source.OPERATOR, server.engine().settings().source());
        assertEquals("OPERATOR", remote.getAttribute(engineName(), "SettingsSource"));
        assertEquals(200, first.get(20, TimeUnit.SECONDS).statusCode());
    }

    @Test
    protected void anInvalidValueIsRefusedWithItsNameAndChangesNothing() throws Exception {
        start();
        QosEngine engine = server.engine();
        Settings before = engine.settings();
        refused(className("basic"), "Budget", -1);
        refused(className("basic"), "Budget", 5);
        refused(className("basic"), "MinBudget", -2);
        refused(className("basic"), "DelayTargetMillis", 0L);
        refused(className("basic"), "SessionRate", Double.NaN);
        refused(className("basic"), "SessionBurst", 0);
        refused(engineName(), "MaxExecuting", 0);
        refused(controllerName(), "Mode", "fast");
        refused(controllerName(), "AbsoluteGain", Double.NaN);
        refused(controllerName(), "RelativeGain", Double.POSITIVE_INFINITY);
        refused(controllerName(), "AbsoluteZero", 1.0);
        refused(controllerName(), "PeriodMillis", 10L);
        assertEquals(before, engine.settings(), "a refused write changes nothing");
        assertEquals(1, engine.snapshot().get("basic").budget());
        assertEquals(Settings.Source.POLICY, engine.settings().source());
    }

    @Test
    protected void theBeansAreGoneWhenTheAdapterStops() throws Exception {
        start();
        List<ObjectName> names = new ArrayList<>(List.of(engineName(), className("premium"), className("basic"),
                controllerName()));
        for (ObjectName n : names) {
            assertTrue(remote.isRegistered(n), n + " is registered");
        }
        // Tomcat's own WebModule bean has the same name key: only the Qos types are ours
        ObjectName all = new ObjectName(domain() + ":type=Qos*,name=" + engineName().getKeyProperty("name") + ",*");
        assertEquals(4, remote.queryNames(all, null).size(), remote.queryNames(all, null).toString());

        // the adapter's engine is gone with it: nothing for the checks after the test to read
        QosServer stopping = server;
        server = null;
        try {
            stopping.stopAdapter();
            assertEquals(List.of(), List.copyOf(remote.queryNames(all, null)),
                    "beans left after the adapter stopped");
        } finally {
            stopping.close();
        }
    }

    /** The policy after the reload: a class silver between the two, basic with two permits of six. */
    protected static final String RELOADED = POLICY
            .replace("classes = premium, basic", "classes = premium, silver, basic")
            .replace("max-executing = 4", "max-executing = 6")
            .replace("class.basic.budget = 1", "class.basic.budget = 2") + """
            class.silver.budget = 1
            rule.2.type = header
            rule.2.header = X-Tier
            rule.2.value = silver
            rule.2.class = silver
            rule.2.trusted = true
            """;

    @Test
    protected void aGoodPolicyReloadedOverJmxIsInForceAtOnceAndABadOneIsRefusedWithItsReason() throws Exception {
        start();
        QosEngine engine = server.engine();
        Path file = policyFile();
        assertEquals(Boolean.TRUE, remote.getAttribute(engineName(), "Reloadable"));

        Files.writeString(file, POLICY.replace("max-executing = 4", "max-executing = many"));
        Settings before = engine.settings();
        Exception bad = assertThrows(Exception.class, () -> remote.invoke(engineName(), "reloadPolicy", null, null));
        String chain = messages(bad);
        assertTrue(chain.contains("java.lang.IllegalArgumentException") && chain.contains("max-executing")
                && chain.contains("many"), "the refusal names the key and the value: " + chain);
        assertEquals(before, engine.settings(), "the old policy keeps running");
        assertArrayEquals(new String[] {"premium", "basic"}, (String[]) remote.getAttribute(engineName(),
                "ClassNames"));
        assertEquals("ok basic", client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).body());

        Files.writeString(file, RELOADED);
        Object done = remote.invoke(engineName(), "reloadPolicy", null, null);
        assertTrue(String.valueOf(done).contains("[premium, silver, basic]"), String.valueOf(done));
        assertArrayEquals(new String[] {"premium", "silver", "basic"}, (String[]) remote.getAttribute(engineName(),
                "ClassNames"));
        assertEquals(6, remote.getAttribute(engineName(), "MaxExecuting"));
        assertEquals("POLICY", remote.getAttribute(engineName(), "SettingsSource"));
        assertEquals(1, remote.getAttribute(className("silver"), "Budget"), "the new class has its bean");
        assertEquals(2, remote.getAttribute(className("basic"), "Budget"));
        assertEquals(2, remote.getAttribute(className("basic"), "Priority"));
        HttpResponse<String> silver = client.send(request("/work").header("X-Tier", "silver").build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals("ok silver", silver.body(), "the new rule classifies");
        // basic's two permits: a second request runs beside the first
        CompletableFuture<HttpResponse<String>> first = send(request("/work?ms=4000").build());
        awaitState("the first basic request runs", () -> intAttribute(engineName(), "Executing") == 1);
        HttpResponse<String> second = send(request("/work").build()).get(10, TimeUnit.SECONDS);
        assertEquals("ok basic", second.body());
        assertFalse(first.isDone(), "the second request ran beside the first, not after it");
        assertEquals(200, first.get(20, TimeUnit.SECONDS).statusCode());

        Files.writeString(file, POLICY);
        remote.invoke(engineName(), "reloadPolicy", null, null);
        assertFalse(remote.isRegistered(className("silver")), "a removed class's bean is gone");
        assertEquals(4, remote.getAttribute(engineName(), "MaxExecuting"));
        for (ClassStats c : engine.snapshot().classes()) {
            assertTrue(c.reconciles(), c.toString());
        }
    }

    /** The file the adapter read the policy from: the one file under the test's directory holding it. */
    private Path policyFile() throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            List<Path> found = files.filter(Files::isRegularFile).filter(f -> {
                try {
                    return Files.readString(f).equals(POLICY);
                } catch (IOException e) {
                    return false;
                }
            }).toList();
            assertEquals(1, found.size(), "one policy file under " + dir + ": " + found);
            return found.get(0);
        }
    }

    /** Writes {@code value} and expects a refusal naming the attribute and the value. */
    private void refused(ObjectName bean, String attribute, Object value) {
        Exception e = assertThrows(Exception.class, () -> remote.setAttribute(bean, new Attribute(attribute, value)),
                attribute + " = " + value + " was accepted");
        String chain = messages(e);
        assertTrue(chain.contains(attribute + " = " + value), "the refusal names " + attribute + " and " + value
                + ": " + chain);
    }

    /** The messages of an exception and of everything it wraps, as a remote client receives them. */
    protected static String messages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; ) {
            b.append(c.getClass().getName()).append(": ").append(c.getMessage()).append(" <- ");
            Throwable next = c instanceof RuntimeMBeanException r ? r.getTargetException()
                    : c instanceof MBeanException m ? m.getTargetException() : c.getCause();
            c = next == c ? null : next;
        }
        return b.toString();
    }

    private int intAttribute(ObjectName bean, String attribute) {
        try {
            return (Integer) remote.getAttribute(bean, attribute);
        } catch (Exception e) {
            throw new AssertionError("cannot read " + attribute + " of " + bean + ": " + e, e);
        }
    }

    protected HttpRequest.Builder request(String pathAndQuery) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + pathAndQuery))
                .timeout(Duration.ofSeconds(60)).setHeader("Accept", "text/html"); // a page: a new session
    }

    protected CompletableFuture<HttpResponse<String>> send(HttpRequest r) {
        return client.sendAsync(r, HttpResponse.BodyHandlers.ofString());
    }

    protected void awaitState(String what, BooleanSupplier condition) {
        try {
            AdapterBehaviourSuite.await(what, Duration.ofSeconds(20), condition);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; engine: " + server.snapshot() + "; started: "
                    + server.startedOrder(), e);
        }
    }
}

package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import javax.management.Attribute;
import javax.management.MBeanException;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import javax.management.openmbean.CompositeData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The JMX beans of the valve on Tomcat's binary distribution, as an admin reaches them: the JDK's remote JMX agent
 * switched on with JVM options (as {@code CATALINA_OPTS} would), a plain JMX client with none of servlet-qos's
 * classes, the beans under Tomcat's {@code Catalina} domain. Reads the beans, writes a budget and sees a waiting
 * request run at once, writes an invalid value and sees the refusal, reloads a bad and a good policy file.
 */
class StandaloneTomcatJmxIT {

    /** basic has one permit of four and no borrowing: a second basic request waits until its budget is raised. */
    private static final String POLICY = """
            classes = premium, basic
            default-class = basic
            max-executing = 4
            borrowing = false
            class.premium.budget = 3
            class.basic.budget = 1
            class.basic.max-queue = 10
            class.basic.max-wait = 30s
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            rule.1.trusted = true
            """;

    private static final String VALVE =
            "<Valve className=\"dev.servletqos.tomcat.QosValve\" policy=\"conf/qos.properties\"/>";
    private static final Duration WAIT = Duration.ofSeconds(30);

    private static StandaloneTomcat tomcat;
    private static JMXConnector connector;
    private static MBeanServerConnection jmx;
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5)).build();

    private static final ObjectName ENGINE = name("Catalina:type=QosEngine,name=//localhost/app");
    private static final ObjectName BASIC = name("Catalina:type=QosServiceClass,name=//localhost/app,class=basic");
    private static final ObjectName SILVER = name("Catalina:type=QosServiceClass,name=//localhost/app,class=silver");
    private static final ObjectName CONTROLLER = name("Catalina:type=QosController,name=//localhost/app");

    @BeforeAll
    static void startTomcat() throws Exception {
        tomcat = StandaloneTomcat.builder("qos-jmx")
                .maxThreads(20)
                .jmxRemote()
                .confFile("qos.properties", POLICY)
                .webapp("app", StandaloneTomcat.fixtureApp("app"), "  " + VALVE)
                .readyPath("/app/hello.jsp")
                .start();
        connector = JMXConnectorFactory.connect(tomcat.jmxUrl());
        jmx = connector.getMBeanServerConnection();
    }

    @AfterAll
    static void stopTomcat() throws Exception {
        try {
            if (connector != null) {
                connector.close();
            }
        } finally {
            if (tomcat != null) {
                tomcat.close();
            }
        }
    }

    private static ObjectName name(String s) {
        try {
            return new ObjectName(s);
        } catch (javax.management.MalformedObjectNameException e) {
            throw new IllegalArgumentException(e);
        }
    }

    @Test
    void anOperatorReadsWritesAndReloadsOverRemoteJmx() throws Exception {
        // read
        assertEquals("//localhost/app", jmx.getAttribute(ENGINE, "EngineId"), tomcat::logTail);
        assertArrayEquals(new String[] {"premium", "basic"}, (String[]) jmx.getAttribute(ENGINE, "ClassNames"));
        assertEquals(4, jmx.getAttribute(ENGINE, "MaxExecuting"));
        assertEquals(1, jmx.getAttribute(BASIC, "Budget"));
        assertEquals("off", jmx.getAttribute(CONTROLLER, "Mode"));
        assertEquals(Boolean.TRUE, jmx.getAttribute(CONTROLLER, "Running"));
        assertEquals(Boolean.TRUE, jmx.getAttribute(ENGINE, "Reloadable"));
        // (the start-up's readiness polls went through the valve too)
        long before = (Long) ((CompositeData[]) jmx.getAttribute(ENGINE, "Classes"))[1].get("completed");
        assertEquals("hello basic", send(get("/app/hello.jsp", null)).body().strip());
        CompositeData[] classes = (CompositeData[]) jmx.getAttribute(ENGINE, "Classes");
        assertEquals("basic", classes[1].get("name"));
        assertEquals(before + 1, classes[1].get("completed"));
        assertEquals(ENGINE.toString(), jmx.getAttribute(
                name("Catalina:type=Valve,host=localhost,context=/app,name=QosValve"), "engineObjectName"));

        // write a budget: a waiting request runs at once
        CompletableFuture<HttpResponse<String>> first = sendAsync(get("/app/slow.jsp?ms=4000", null));
        await("the first basic request runs", () -> intAttribute(ENGINE, "Executing") == 1);
        CompletableFuture<HttpResponse<String>> second = sendAsync(get("/app/slow.jsp?ms=0", null));
        await("the second waits for basic's only permit", () -> intAttribute(ENGINE, "Queued") == 1);
        jmx.setAttribute(BASIC, new Attribute("Budget", 2));
        assertEquals("ok -", second.get(10, TimeUnit.SECONDS).body().strip());
        assertFalse(first.isDone(), "the second request ran beside the first, not after it");
        assertEquals("OPERATOR", jmx.getAttribute(ENGINE, "SettingsSource"));
        assertEquals(200, first.get(20, TimeUnit.SECONDS).statusCode());

        // an invalid value is refused, naming it, and changes nothing
        Exception refused = assertThrows(Exception.class, () -> jmx.setAttribute(BASIC, new Attribute("Budget", -1)));
        assertTrue(messages(refused).contains("Budget = -1"), messages(refused));
        refused = assertThrows(Exception.class, () -> jmx.setAttribute(CONTROLLER, new Attribute("Mode", "fast")));
        assertTrue(messages(refused).contains("Mode = fast"), messages(refused));
        assertEquals(2, jmx.getAttribute(BASIC, "Budget"));
        assertEquals("off", jmx.getAttribute(CONTROLLER, "Mode"));

        // a bad policy file is refused with its reason, and the policy in force stays
        Path file = tomcat.base().resolve("conf/qos.properties");
        Files.writeString(file, POLICY.replace("max-executing = 4", "max-executing = many"));
        Exception bad = assertThrows(Exception.class, () -> jmx.invoke(ENGINE, "reloadPolicy", null, null));
        assertTrue(messages(bad).contains("max-executing = many"), messages(bad));
        assertEquals(2, jmx.getAttribute(BASIC, "Budget"), "the settings in force are unchanged");
        assertArrayEquals(new String[] {"premium", "basic"}, (String[]) jmx.getAttribute(ENGINE, "ClassNames"));

        // a good one is in force at once: a new class with its rule and its bean, basic back at the file's budget
        Files.writeString(file, POLICY.replace("classes = premium, basic", "classes = premium, silver, basic")
                + "class.silver.budget = 1\nrule.2.type = header\nrule.2.header = X-Tier\nrule.2.value = silver\n"
                + "rule.2.class = silver\nrule.2.trusted = true\n");
        Object done = jmx.invoke(ENGINE, "reloadPolicy", null, null);
        assertTrue(String.valueOf(done).contains("[premium, silver, basic]"), String.valueOf(done));
        assertArrayEquals(new String[] {"premium", "silver", "basic"},
                (String[]) jmx.getAttribute(ENGINE, "ClassNames"));
        assertEquals(1, jmx.getAttribute(BASIC, "Budget"));
        assertEquals("POLICY", jmx.getAttribute(ENGINE, "SettingsSource"));
        assertEquals(1, jmx.getAttribute(SILVER, "Budget"));
        assertEquals("hello silver", send(get("/app/hello.jsp", "silver")).body().strip());

        Files.writeString(file, POLICY);
        jmx.invoke(ENGINE, "reloadPolicy", null, null);
        assertFalse(jmx.isRegistered(SILVER), "the removed class's bean is gone");
    }

    private static String messages(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; ) {
            b.append(c.getClass().getName()).append(": ").append(c.getMessage()).append(" <- ");
            Throwable next = c instanceof RuntimeMBeanException r ? r.getTargetException()
                    : c instanceof MBeanException m ? m.getTargetException() : c.getCause();
            c = next == c ? null : next;
        }
        return b.toString();
    }

    private static int intAttribute(ObjectName bean, String attribute) {
        try {
            return (Integer) jmx.getAttribute(bean, attribute);
        } catch (Exception e) {
            throw new AssertionError("cannot read " + attribute + " of " + bean + ": " + e, e);
        }
    }

    private static HttpRequest get(String path, String tier) {
        HttpRequest.Builder b = HttpRequest.newBuilder(tomcat.uri(path)).timeout(Duration.ofSeconds(60));
        if (tier != null) {
            b.header("X-Tier", tier);
        }
        return b.build();
    }

    private static HttpResponse<String> send(HttpRequest r) throws Exception {
        HttpResponse<String> response = CLIENT.send(r, HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response::body);
        return response;
    }

    private static CompletableFuture<HttpResponse<String>> sendAsync(HttpRequest r) {
        return CLIENT.sendAsync(r, HttpResponse.BodyHandlers.ofString());
    }

    /** Polls {@code condition} every 20 ms until it holds, at most 30 s. */
    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out waiting: " + what + "\n" + tomcat.logTail());
            }
            Thread.sleep(20);
        }
    }
}

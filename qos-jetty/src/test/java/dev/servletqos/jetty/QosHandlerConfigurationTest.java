package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import dev.servletqos.runtime.QosRuntime;
import java.lang.management.ManagementFactory;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import javax.management.Attribute;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.eclipse.jetty.jmx.MBeanContainer;
import org.eclipse.jetty.util.resource.ResourceFactory;
import org.eclipse.jetty.xml.XmlConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ways a user configures the handler: Jetty XML, Java, and JMX (the engine's beans) while running. */
class QosHandlerConfigurationTest {

    private static final String POLICY = """
            classes = premium, basic
            max-executing = 8
            rule.1.type = header
            rule.1.header = X-Tier
            rule.1.value = premium
            rule.1.class = premium
            rule.1.trusted = true
            """;

    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private String body(EmbeddedJetty jetty, String path, String tier) throws Exception {
        HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + jetty.port() + path))
                .timeout(Duration.ofSeconds(30));
        if (tier != null) {
            r.header("X-Tier", tier);
        }
        HttpResponse<String> response = client.send(r.build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }

    private XmlConfiguration xml(String content) throws Exception {
        Path file = dir.resolve("qos.xml");
        Files.writeString(file, "<?xml version=\"1.0\"?>\n<!DOCTYPE Configure PUBLIC \"-//Jetty//Configure//EN\" "
                + "\"https://jetty.org/configure_10_0.dtd\">\n" + content, StandardCharsets.UTF_8);
        Path policy = dir.resolve("qos.properties");
        Files.writeString(policy, POLICY, StandardCharsets.UTF_8);
        XmlConfiguration xml = new XmlConfiguration(ResourceFactory.root().newResource(file));
        xml.getProperties().put("test.dir", dir.toString());
        return xml;
    }

    @Test
    void jettyXmlInsertsTheHandlerWithSettersOverridingThePolicyFile() throws Exception {
        XmlConfiguration xml = xml("""
                <Configure id="Server" class="org.eclipse.jetty.server.Server">
                  <Call name="insertHandler">
                    <Arg>
                      <New id="Qos" class="dev.servletqos.jetty.QosHandler">
                        <Set name="policy"><Property name="test.dir"/>/qos.properties</Set>
                        <Set name="maxExecuting">3</Set>
                        <Set name="scheduling">weighted</Set>
                        <Set name="defaultClass">premium</Set>
                      </New>
                    </Arg>
                  </Call>
                </Configure>
                """);
        EmbeddedJetty jetty = new EmbeddedJetty(24);
        try {
            xml.configure(jetty.server);
            jetty.startServer();
            QosHandler qos = jetty.qos();
            assertSame(qos, xml.getIdMap().get("Qos"));
            assertEquals(3, qos.getMaxExecuting());
            assertEquals("weighted", qos.getScheduling());
            assertEquals("premium", qos.getDefaultClass());
            assertEquals("ok premium", body(jetty, "/work", null), "the default class from the XML");
            jetty.awaitIdle();
            assertEquals(1, jetty.snapshot().get("premium").completed());
        } finally {
            jetty.close();
        }
    }

    @Test
    void jettyXmlPutsTheStatusPageInFrontOfTheHandler() throws Exception {
        XmlConfiguration xml = xml("""
                <Configure id="Server" class="org.eclipse.jetty.server.Server">
                  <Call name="insertHandler">
                    <Arg>
                      <New class="dev.servletqos.jetty.QosHandler">
                        <Set name="policy"><Property name="test.dir"/>/qos.properties</Set>
                      </New>
                    </Arg>
                  </Call>
                  <Call name="insertHandler">
                    <Arg>
                      <New id="Status" class="dev.servletqos.jetty.QosStatusHandler">
                        <Set name="path">/ops/qos</Set>
                        <Set name="allow">127.0.0.1, ::1</Set>
                      </New>
                    </Arg>
                  </Call>
                </Configure>
                """);
        EmbeddedJetty jetty = new EmbeddedJetty(24);
        try {
            xml.configure(jetty.server);
            jetty.startServer();
            QosStatusHandler status = (QosStatusHandler) xml.getIdMap().get("Status");
            assertEquals("127.0.0.1, ::1", status.getAllow());
            String json = body(jetty, "/ops/qos?format=json", null);
            assertTrue(json.startsWith("{\"schema\":\"servlet-qos-status/1\""), json);
            assertTrue(json.contains("\"maxExecuting\":8,"), "the engine the QosHandler published: " + json);
            assertEquals("ok basic", body(jetty, "/work", null), "other paths pass through to QoS and the app");
            jetty.awaitIdle();
            assertEquals(1, jetty.snapshot().get("basic").completed(), "the page itself is not seen by QoS");
        } finally {
            jetty.close();
        }
    }

    @Test
    void jettyXmlBuildsTheHandlerWithNamedConstructorArguments() throws Exception {
        XmlConfiguration xml = xml("""
                <Configure id="Server" class="org.eclipse.jetty.server.Server">
                  <Set name="handler">
                    <New class="dev.servletqos.jetty.QosHandler">
                      <Arg name="policy"><Property name="test.dir"/>/qos.properties</Arg>
                      <Arg name="handler"><Ref refid="App"/></Arg>
                    </New>
                  </Set>
                </Configure>
                """);
        EmbeddedJetty jetty = new EmbeddedJetty(24);
        try {
            xml.getIdMap().put("App", jetty.app);
            xml.configure(jetty.server);
            jetty.startServer();
            assertEquals(8, jetty.qos().getMaxExecuting());
            assertEquals("ok premium", body(jetty, "/work", "premium"));
            assertEquals("ok basic", body(jetty, "/work", null));
        } finally {
            jetty.close();
        }
    }

    @Test
    void aPolicyBuiltInJava() throws Exception {
        QosPolicy policy = QosPolicy.builder()
                .addClass(ClassPolicy.named("gold").withBudget(2))
                .addClass(ClassPolicy.named("rest").withBudget(2))
                .maxExecuting(4)
                .addRule(Rule.header("gold", "X-Tier", "gold").asTrusted())
                .build();
        EmbeddedJetty jetty = new EmbeddedJetty(new QosHandler(policy), 24);
        try {
            jetty.startServer();
            assertEquals("ok gold", body(jetty, "/work", "gold"));
            assertEquals("ok rest", body(jetty, "/work", null));
            assertSame(policy, jetty.qos().getEngine().policy());
        } finally {
            jetty.close();
        }
    }

    /**
     * A runtime built in Java is started with the handler and stopped with it; the handler's setter changes the
     * running engine at once and is kept by the runtime for a later reload.
     */
    @Test
    void aRuntimeBuiltInJava() throws Exception {
        QosPolicy policy = QosPolicy.builder()
                .addClass(ClassPolicy.named("gold").withBudget(2))
                .addClass(ClassPolicy.named("rest").withBudget(2))
                .maxExecuting(4)
                .addRule(Rule.header("gold", "X-Tier", "gold").asTrusted())
                .build();
        QosRuntime runtime = QosRuntime.of(policy).noMBeans().build();
        QosHandler qos = new QosHandler(runtime, null);
        EmbeddedJetty jetty = new EmbeddedJetty(qos, 24);
        try {
            jetty.startServer();
            assertTrue(runtime.running());
            assertSame(runtime, qos.getRuntime());
            assertEquals("ok gold", body(jetty, "/work", "gold"));
            assertEquals("ok rest", body(jetty, "/work", null));
            qos.setMaxExecuting(3);
            assertEquals(3, runtime.engine().snapshot().maxExecuting());
            jetty.server.stop();
            assertFalse(runtime.running(), "stopped with the handler");
        } finally {
            jetty.close();
        }
    }

    @Test
    void overJmxTheEnginesBeansRetuneTheHandlerAndJettysOwnBeanCarriesNoQosOperations() throws Exception {
        Files.writeString(dir.resolve("qos.properties"), POLICY, StandardCharsets.UTF_8);
        MBeanServer platform = ManagementFactory.getPlatformMBeanServer();
        MBeanContainer mbeans = new MBeanContainer(platform);
        QosHandler qos = new QosHandler();
        qos.setPolicy(dir.resolve("qos.properties").toString());
        EmbeddedJetty jetty = new EmbeddedJetty(qos, 24);
        jetty.server.addBean(mbeans);
        try {
            jetty.startServer();
            ObjectName engine = qos.getMBeans().names().get(0);
            assertEquals("QosEngine", engine.getKeyProperty("type"));
            assertEquals(8, platform.getAttribute(engine, "MaxExecuting"));
            platform.setAttribute(engine, new Attribute("MaxExecuting", 6));
            assertEquals(6, qos.getMaxExecuting());

            // the handler is in Jetty's tree as any handler, with Jetty's attributes only: the retuning is the
            // engine's beans' (the annotated bean of earlier versions, with setBudget, is gone)
            Set<ObjectName> own = platform.queryNames(new ObjectName("dev.servletqos.jetty:*"), null);
            for (ObjectName name : own) {
                MBeanInfo info = platform.getMBeanInfo(name);
                for (MBeanOperationInfo op : info.getOperations()) {
                    assertFalse(Set.of("setBudget", "getBudget", "setSessionRate").contains(op.getName()),
                            name + " " + op.getName());
                }
                for (MBeanAttributeInfo a : info.getAttributes()) {
                    assertFalse(Set.of("budgets", "classStatistics", "maxExecuting").contains(a.getName()),
                            name + " " + a.getName());
                }
            }
        } finally {
            jetty.close();
            mbeans.destroy();
        }
    }
}

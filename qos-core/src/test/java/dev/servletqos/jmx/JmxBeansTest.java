package dev.servletqos.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.testkit.JmxRemote;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import javax.management.Attribute;
import javax.management.JMX;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The beans of {@link QosMBeans} over a real RMI connection, without a container. */
class JmxBeansTest {

    private static final String POLICY = """
            classes = premium, basic
            default-class = basic
            max-executing = 8
            class.premium.budget = 6
            class.basic.budget = 2
            class.basic.session-rate = 5
            class.basic.session-burst = 3
            class.basic.levels = 2
            """;

    private final MBeanServer mbeans = MBeanServerFactory.newMBeanServer();
    private QosEngine engine;
    private QosMBeans beans;
    private JmxRemote jmx;
    private MBeanServerConnection remote;

    @BeforeEach
    void start() throws Exception {
        engine = engine();
        beans = QosMBeans.register(engine, mbeans, QosMBeans.DOMAIN, "/shop");
        jmx = JmxRemote.start(mbeans);
        remote = jmx.connection();
    }

    @AfterEach
    void stop() throws Exception {
        try {
            jmx.close();
        } finally {
            beans.close();
        }
    }

    private static QosEngine engine() {
        return QosEngine.create(PolicyParser.read(new ByteArrayInputStream(POLICY.getBytes(StandardCharsets.UTF_8)),
                "test policy", Map.of()));
    }

    private static ObjectName basic(String id) {
        return QosMBeans.className(QosMBeans.DOMAIN, id, "basic");
    }

    @Test
    void theNamesAreStableAndDocumented() throws Exception {
        assertEquals("/shop", beans.engineId());
        assertEquals(new ObjectName("dev.servletqos:type=QosEngine,name=/shop"), beans.names().get(0));
        assertTrue(remote.isRegistered(new ObjectName("dev.servletqos:type=QosServiceClass,name=/shop,class=premium")));
        assertTrue(remote.isRegistered(new ObjectName("dev.servletqos:type=QosServiceClass,name=/shop,class=basic")));
        assertTrue(remote.isRegistered(new ObjectName("dev.servletqos:type=QosController,name=/shop")));
        assertEquals(4, beans.names().size());
        MBeanAttributeInfo budget = Arrays.stream(remote.getMBeanInfo(basic("/shop")).getAttributes())
                .filter(a -> a.getName().equals("Budget")).findFirst().orElseThrow();
        assertEquals("Concurrency permits (writable: 0..MaxExecuting)", budget.getDescription());
        assertTrue(budget.isWritable());
    }

    @Test
    void everyWriteGoesThroughTheSettingsSeamAsAnOperator() throws Exception {
        ObjectName basic = basic("/shop");
        ObjectName controller = QosMBeans.controllerName(QosMBeans.DOMAIN, "/shop");
        ObjectName engineBean = QosMBeans.engineName(QosMBeans.DOMAIN, "/shop");
        remote.setAttribute(basic, new Attribute("Budget", 3));
        remote.setAttribute(basic, new Attribute("MinBudget", 1));
        remote.setAttribute(basic, new Attribute("DelayTargetMillis", 750L));
        remote.setAttribute(basic, new Attribute("SessionRate", 2.5));
        remote.setAttribute(basic, new Attribute("SessionBurst", 4));
        remote.setAttribute(basic, new Attribute("ContentLevel", 1.5));
        remote.setAttribute(engineBean, new Attribute("MaxExecuting", 10));
        remote.setAttribute(controller, new Attribute("Mode", "absolute"));
        remote.setAttribute(controller, new Attribute("PeriodMillis", 500L));
        remote.setAttribute(controller, new Attribute("DelayQuantile", 0.95));
        remote.setAttribute(controller, new Attribute("AbsoluteGain", -2.0));
        remote.setAttribute(controller, new Attribute("AbsoluteZero", 0.5));
        remote.setAttribute(controller, new Attribute("RelativeGain", 0.4));
        remote.setAttribute(controller, new Attribute("RelativeZero", 0.1));
        remote.setAttribute(controller, new Attribute("AntiWindup", false));
        remote.setAttribute(controller, new Attribute("Degradation", "threshold"));
        remote.setAttribute(controller, new Attribute("UtilizationTarget", 0.8));

        Settings s = engine.settings();
        assertEquals(Settings.Source.OPERATOR, s.source());
        assertEquals(new Settings.ClassSettings("basic", 3, 1, 2.5, 4, Duration.ofMillis(750), 2, 1.5), s.get(1));
        assertEquals(10, s.maxExecuting());
        ControlPolicy c = s.control();
        assertEquals(ControlPolicy.Mode.ABSOLUTE, c.mode());
        assertEquals(Duration.ofMillis(500), c.period());
        assertEquals(0.95, c.delayQuantile());
        assertEquals(new ControlPolicy.Gains(-2.0, 0.5), c.absolute());
        assertEquals(new ControlPolicy.Gains(0.4, 0.1), c.relative());
        assertFalse(c.antiWindup());
        assertEquals(ControlPolicy.DegradationLaw.THRESHOLD, c.degradation().law());
        assertEquals(0.8, c.degradation().target());
        assertEquals("threshold", remote.getAttribute(controller, "Degradation"));
        assertTrue(Double.isNaN((Double) remote.getAttribute(controller, "Utilization")), "no period run yet");
        assertEquals("absolute", remote.getAttribute(controller, "Mode"));
        assertEquals(3, remote.getAttribute(basic, "Budget"));
        assertEquals(1.5, remote.getAttribute(basic, "ContentLevel"));
        assertEquals(2, remote.getAttribute(basic, "ContentLevels"));
        assertEquals(3, engine.snapshot().get("basic").budget());
    }

    @Test
    void aRefusedWriteNamesTheAttributeAndTheValueAndChangesNothing() {
        Settings before = engine.settings();
        QosControllerMXBean controller = JMX.newMXBeanProxy(remote, QosMBeans.controllerName(QosMBeans.DOMAIN,
                "/shop"), QosControllerMXBean.class);
        QosServiceClassMXBean basic = JMX.newMXBeanProxy(remote, basic("/shop"), QosServiceClassMXBean.class);
        assertEquals("Mode = sideways: must be one of off, absolute, relative",
                assertThrows(IllegalArgumentException.class, () -> controller.setMode("sideways")).getMessage());
        assertEquals("AbsoluteGain = NaN: must be a finite number other than 0",
                assertThrows(IllegalArgumentException.class, () -> controller.setAbsoluteGain(Double.NaN))
                        .getMessage());
        assertEquals("Budget = -1: must be 0..8 (MaxExecuting)",
                assertThrows(IllegalArgumentException.class, () -> basic.setBudget(-1)).getMessage());
        assertEquals("ContentLevel = 2.5: must be 0..2 (ContentLevels)",
                assertThrows(IllegalArgumentException.class, () -> basic.setContentLevel(2.5)).getMessage());
        assertEquals("ContentLevel = NaN: must be 0..2 (ContentLevels)",
                assertThrows(IllegalArgumentException.class, () -> basic.setContentLevel(Double.NaN)).getMessage());
        // without a proxy, as jconsole or a jshell session gets it
        RuntimeMBeanException remoteRefusal = assertThrows(RuntimeMBeanException.class,
                () -> remote.setAttribute(basic("/shop"), new Attribute("Budget", -1)));
        assertEquals("java.lang.IllegalArgumentException: Budget = -1: must be 0..8 (MaxExecuting)",
                remoteRefusal.getMessage());
        assertEquals(IllegalArgumentException.class, remoteRefusal.getTargetException().getClass());
        assertEquals(before, engine.settings());
    }

    @Test
    void aProxyReadsTheStatisticsAsPlainObjects() {
        QosServiceClassMXBean basic = JMX.newMXBeanProxy(remote, basic("/shop"), QosServiceClassMXBean.class);
        ClassStatistics s = basic.getStatistics();
        assertEquals("basic", s.getName());
        assertEquals(2, s.getBudget());
        assertEquals(0, s.getEntered());
        QosEngineMXBean e = JMX.newMXBeanProxy(remote, beans.names().get(0), QosEngineMXBean.class);
        assertEquals(2, e.getClasses().length);
        assertEquals("strict-priority", e.getScheduling());
        QosControllerMXBean c = JMX.newMXBeanProxy(remote, QosMBeans.controllerName(QosMBeans.DOMAIN, "/shop"),
                QosControllerMXBean.class);
        assertFalse(c.isRunning(), "the engine is not started");
    }

    @Test
    void resetStatisticsCountsTheBeansFromNowAndLeavesTheEnginesCountersAlone() throws Exception {
        QosEngineMXBean e = JMX.newMXBeanProxy(remote, beans.names().get(0), QosEngineMXBean.class);
        QosServiceClassMXBean basic = JMX.newMXBeanProxy(remote, basic("/shop"), QosServiceClassMXBean.class);
        engine.setMaxExecuting(1);
        // three basic requests before the reset: one completed, one running, one waiting (its first request, each a
        // new session: the session rate's burst is 3)
        engine.enter(TestRequest.get("/a")).complete();
        Ticket running = engine.enter(TestRequest.get("/b"));
        Ticket waiting = engine.enter(TestRequest.get("/c"));
        assertEquals(Ticket.State.RUNNING, running.state());
        assertEquals(Ticket.State.PARKED, waiting.state());
        String start = e.getStatisticsSince();

        remote.invoke(beans.names().get(0), "resetStatistics", null, null);

        assertTrue(e.getStatisticsSince().compareTo(start) >= 0, e.getStatisticsSince() + " after " + start);
        ClassStatistics b = basic.getStatistics();
        assertEquals(0, b.getCompleted(), "the completion before the reset is not counted");
        assertEquals(0, b.getSessionsAdmitted());
        assertEquals(2, b.getEntered(), "the two in flight count as entered after the reset");
        assertEquals(1, b.getExecuting());
        assertEquals(1, b.getQueued());
        running.complete(); // the waiting one runs
        waiting.complete();
        Ticket refused = engine.enter(TestRequest.get("/d")); // a fourth new session: the bucket of 3 is empty
        assertEquals(Ticket.State.REJECTED, refused.state());
        b = basic.getStatistics();
        assertEquals(3, b.getEntered());
        assertEquals(2, b.getCompleted());
        assertEquals(1, b.getRejected());
        assertEquals(1, b.getSessionsRefusedRate(), "the refusal after the reset");
        assertEquals(Long.valueOf(1), b.getRefusals().get("session-rate"), "the same count, by the reason's tag");
        assertEquals(Long.valueOf(0), b.getRefusals().get("queue-full"));
        javax.management.openmbean.CompositeData raw = (javax.management.openmbean.CompositeData) remote.getAttribute(
                basic("/shop"), "Statistics");
        for (String item : List.of("queueFull", "sessionsRefusedQueued", "sessionsRefusedRate", "sessionLimited",
                "addressLimited", "sessionsRefusedAddress", "refusals")) {
            assertTrue(raw.containsKey(item), "the item " + item + " a client reads");
        }
        assertEquals(1L, raw.get("sessionsRefusedRate"));
        assertEquals(0, b.getSessionsAdmitted(), "the sessions admitted before the reset are not counted");
        assertEquals(b.getEntered(), b.getCompleted() + b.getDeclined() + b.getRejected() + b.getExpired()
                + b.getCancelled() + b.getExecuting() + b.getQueued(), "the counts since the reset add up");
        assertEquals(b.getEntered(), e.getClasses()[1].getEntered(), "the engine's bean and the class's agree");
        assertEquals(4, engine.snapshot().get("basic").entered(), "the engine's counters are not touched");
        assertEquals(3, engine.snapshot().get("basic").completed());
        assertEquals(3, engine.snapshot().get("basic").sessionsAdmitted());
    }

    @Test
    void anEngineBuiltFromAPolicyObjectRefusesReloadPolicyClearlyAndAReloadMovesTheClassBeans() throws Exception {
        assertEquals(Boolean.FALSE, remote.getAttribute(beans.names().get(0), "Reloadable"));
        RuntimeMBeanException e = assertThrows(RuntimeMBeanException.class,
                () -> remote.invoke(beans.names().get(0), "reloadPolicy", null, null));
        assertEquals(IllegalStateException.class, e.getTargetException().getClass());
        assertTrue(e.getTargetException().getMessage().contains("built from a policy object"),
                e.getTargetException().getMessage());

        engine.reload(PolicyParser.read(new ByteArrayInputStream(POLICY.replace("classes = premium, basic",
                "classes = gold, basic").replace("class.premium", "class.gold").getBytes(StandardCharsets.UTF_8)),
                "test policy", Map.of()));
        assertFalse(remote.isRegistered(QosMBeans.className(QosMBeans.DOMAIN, "/shop", "premium")));
        ObjectName gold = QosMBeans.className(QosMBeans.DOMAIN, "/shop", "gold");
        assertEquals(0, remote.getAttribute(gold, "Priority"));
        remote.setAttribute(basic("/shop"), new Attribute("Budget", 3));
        assertEquals(3, engine.settings().get(1).budget(), "basic's bean found basic after the reload");
        assertEquals(List.of(beans.names().get(0), gold, basic("/shop"),
                QosMBeans.controllerName(QosMBeans.DOMAIN, "/shop")), beans.names());
    }

    @Test
    void aSecondEngineOfTheSameIdGetsTheNextFreeOneAndCloseUnregistersOnlyItsOwn() throws Exception {
        QosEngine other = engine();
        QosMBeans second = QosMBeans.register(other, mbeans, QosMBeans.DOMAIN, "/shop");
        try {
            assertEquals("/shop#2", second.engineId());
            remote.setAttribute(basic("/shop#2"), new Attribute("Budget", 5));
            assertEquals(5, other.settings().get(1).budget());
            assertEquals(2, engine.settings().get(1).budget(), "the first engine is not touched");
        } finally {
            second.close();
            second.close(); // idempotent
        }
        for (ObjectName n : second.names()) {
            assertFalse(remote.isRegistered(n), n.toString());
        }
        assertTrue(remote.isRegistered(basic("/shop")));
        assertEquals(4, remote.queryNames(new ObjectName("dev.servletqos:*"), null).size());
    }

    @Test
    void anIdWithCharactersAnObjectNameReservesIsQuoted() throws Exception {
        try (QosMBeans odd = QosMBeans.register(engine(), mbeans, QosMBeans.DOMAIN, "a,b=c:d")) {
            assertEquals("a,b=c:d", remote.getAttribute(odd.names().get(0), "EngineId"));
            assertEquals("\"a,b=c:d\"", odd.names().get(0).getKeyProperty("name"));
        }
    }
}

package dev.servletqos.jmx;

import dev.servletqos.QosEngine;
import dev.servletqos.policy.ClassPolicy;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;

/**
 * The JMX beans of one engine, registered together and unregistered together; the one piece of JMX every adapter
 * shares. ObjectNames ({@code docs/operations.md}):
 * <pre>
 * &lt;domain&gt;:type=QosEngine,name=&lt;engine id&gt;
 * &lt;domain&gt;:type=QosServiceClass,name=&lt;engine id&gt;,class=&lt;class&gt;   (one per class)
 * &lt;domain&gt;:type=QosController,name=&lt;engine id&gt;
 * </pre>
 * The domain is {@value #DOMAIN} but on Tomcat, where the valve uses its container's ({@code Catalina}). The
 * engine id is the adapter's (Tomcat: {@code //host/path}; Jetty: the context path, {@code /} at the root; the
 * filter: the context path and the filter's name); when another engine already holds it in the same MBean server
 * (two contexts of one path in two servers, two filters...), the first free of {@code id#2}, {@code id#3}, ... is
 * taken, so that engines never collide. A value with a character an ObjectName does not allow unquoted is
 * quoted.
 *
 * <p>Thread-safe. {@link #close()} unregisters every bean registered here (an adapter calls it when it stops).
 */
public final class QosMBeans implements AutoCloseable {

    /** The domain of the beans outside Tomcat. */
    public static final String DOMAIN = "dev.servletqos";
    /** The {@code type} key of the engine's bean. */
    public static final String ENGINE_TYPE = "QosEngine";
    /** The {@code type} key of a service class's bean. */
    public static final String CLASS_TYPE = "QosServiceClass";
    /** The {@code type} key of the controller's bean. */
    public static final String CONTROLLER_TYPE = "QosController";

    private static final System.Logger LOG = System.getLogger(QosMBeans.class.getName());
    /** How many ids {@code id#2 .. id#N} are tried before giving up. */
    private static final int MAX_SUFFIX = 1000;

    private final MBeanServer server;
    private final String domain;
    private final String engineId;
    private final QosEngine engine;
    private final StatisticsBaseline baseline;
    /** Guarded by this: the beans registered now, the engine's first, then the classes', then the controller's. */
    private final List<ObjectName> names;
    private boolean closed;
    private AutoCloseable reloads;

    private QosMBeans(MBeanServer server, String domain, String engineId, QosEngine engine,
                      StatisticsBaseline baseline, List<ObjectName> names) {
        this.server = server;
        this.domain = domain;
        this.engineId = engineId;
        this.engine = engine;
        this.baseline = baseline;
        this.names = new ArrayList<>(names);
    }

    /**
     * Registers the engine's, each class's and the controller's beans.
     *
     * @param engine   the engine
     * @param server   where (the platform MBean server, Tomcat's, the one of Jetty's {@code MBeanContainer})
     * @param domain   the ObjectName domain, e.g. {@value #DOMAIN}
     * @param engineId the id wanted; the one taken is {@link #engineId()}
     * @return the registration, to be closed when the adapter stops
     * @throws IllegalStateException if the server refuses a bean (nothing stays registered then)
     */
    public static QosMBeans register(QosEngine engine, MBeanServer server, String domain, String engineId) {
        Objects.requireNonNull(engine, "engine");
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(domain, "domain");
        String base = engineId == null || engineId.isBlank() ? "/" : engineId;
        for (int n = 1; n <= MAX_SUFFIX; n++) {
            String id = n == 1 ? base : base + "#" + n;
            List<ObjectName> done = new ArrayList<>();
            StatisticsBaseline baseline = new StatisticsBaseline(Instant.now());
            try {
                done.add(server.registerMBean(new Described<>(new EngineBean(engine, id, baseline),
                        QosEngineMXBean.class, "servlet-qos engine " + id, EngineBean.DESCRIPTIONS),
                        engineName(domain, id)).getObjectName());
                for (ClassPolicy c : engine.policy().classes()) {
                    done.add(registerClass(server, domain, id, engine, baseline, c.name()));
                }
                done.add(server.registerMBean(new Described<>(new ControllerBean(engine), QosControllerMXBean.class,
                        "servlet-qos controller of " + id, ControllerBean.DESCRIPTIONS), controllerName(domain, id))
                        .getObjectName());
                QosMBeans beans = new QosMBeans(server, domain, id, engine, baseline, done);
                beans.reloads = engine.onReload(p -> beans.classesChanged());
                return beans;
            } catch (InstanceAlreadyExistsException taken) {
                unregister(server, done);
            } catch (JMException | RuntimeException e) {
                unregister(server, done);
                throw new IllegalStateException("servlet-qos: cannot register the JMX beans of " + id + ": " + e, e);
            }
        }
        throw new IllegalStateException("servlet-qos: the JMX ids " + base + " to " + base + "#" + MAX_SUFFIX
                + " are all taken");
    }

    /**
     * {@link #register}, for an adapter: a server that refuses costs the management view, not the protection, so
     * the refusal is handed to {@code warn} (as {@code "no JMX beans: <reason>"}) and null returned.
     */
    public static QosMBeans registerOrWarn(QosEngine engine, MBeanServer server, String domain, String engineId,
                                           Consumer<String> warn) {
        try {
            return register(engine, server, domain, engineId);
        } catch (RuntimeException e) {
            warn.accept("no JMX beans: " + e.getMessage());
            return null;
        }
    }

    private static ObjectName registerClass(MBeanServer server, String domain, String id, QosEngine engine,
                                            StatisticsBaseline baseline, String c) throws JMException {
        return server.registerMBean(new Described<>(new ServiceClassBean(engine, c, baseline),
                QosServiceClassMXBean.class, "servlet-qos service class " + c + " of " + id,
                ServiceClassBean.DESCRIPTIONS), className(domain, id, c)).getObjectName();
    }

    /**
     * After a policy reload: the beans of the classes the policy no longer has are unregistered, the new classes'
     * registered; the others stay (they find their class by name).
     */
    private synchronized void classesChanged() {
        if (closed) {
            return;
        }
        List<String> now = engine.policy().classes().stream().map(ClassPolicy::name).toList();
        List<ObjectName> classes = new ArrayList<>();
        List<ObjectName> gone = new ArrayList<>();
        for (ObjectName n : names.subList(1, names.size() - 1)) {
            if (now.contains(unquoted(n))) {
                classes.add(n);
            } else {
                gone.add(n);
            }
        }
        unregister(server, gone);
        for (String c : now) {
            ObjectName n = className(domain, engineId, c);
            if (!classes.contains(n)) {
                try {
                    registerClass(server, domain, engineId, engine, baseline, c);
                } catch (JMException | RuntimeException e) {
                    LOG.log(System.Logger.Level.WARNING, "servlet-qos: no JMX bean for the reloaded class " + c + ": "
                            + e);
                    continue;
                }
            }
            classes.add(n);
        }
        ObjectName first = names.get(0);
        ObjectName last = names.get(names.size() - 1);
        names.clear();
        names.add(first);
        // in the policy's order
        for (String c : now) {
            ObjectName n = className(domain, engineId, c);
            if (classes.contains(n)) {
                names.add(n);
            }
        }
        names.add(last);
    }

    private static String unquoted(ObjectName n) {
        String v = n.getKeyProperty("class");
        return v.startsWith("\"") ? ObjectName.unquote(v) : v;
    }

    /** Closes a registration, if there is one. */
    public static void close(QosMBeans registration) {
        if (registration != null) {
            registration.close();
        }
    }

    /** The engine's bean: {@code <domain>:type=QosEngine,name=<id>}. */
    public static ObjectName engineName(String domain, String engineId) {
        return name(domain + ":type=" + ENGINE_TYPE + ",name=" + value(engineId));
    }

    /** A class's bean: {@code <domain>:type=QosServiceClass,name=<id>,class=<class>}. */
    public static ObjectName className(String domain, String engineId, String serviceClass) {
        return name(domain + ":type=" + CLASS_TYPE + ",name=" + value(engineId) + ",class=" + value(serviceClass));
    }

    /** The controller's bean: {@code <domain>:type=QosController,name=<id>}. */
    public static ObjectName controllerName(String domain, String engineId) {
        return name(domain + ":type=" + CONTROLLER_TYPE + ",name=" + value(engineId));
    }

    /** The id the beans were registered under (the one asked for, or it with {@code #n}). */
    public String engineId() {
        return engineId;
    }

    /** Every bean registered now, the engine's first, the controller's last (the classes follow a reload). */
    public synchronized List<ObjectName> names() {
        return List.copyOf(names);
    }

    /** Unregisters every bean registered here; a bean already gone is skipped. Idempotent. */
    @Override
    public synchronized void close() {
        if (!closed) {
            closed = true;
            try {
                reloads.close();
            } catch (Exception e) {
                // removing a listener from a list does not fail
            }
            unregister(server, names);
        }
    }

    private static void unregister(MBeanServer server, List<ObjectName> names) {
        for (ObjectName n : names) {
            try {
                server.unregisterMBean(n);
            } catch (InstanceNotFoundException gone) {
                // someone else unregistered it already
            } catch (JMException | RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "servlet-qos: cannot unregister " + n + ": " + e);
            }
        }
    }

    private static String value(String v) {
        for (char c : v.toCharArray()) {
            if (",=:\"*?\\\n".indexOf(c) >= 0) {
                return ObjectName.quote(v);
            }
        }
        return v;
    }

    private static ObjectName name(String s) {
        try {
            return new ObjectName(s);
        } catch (MalformedObjectNameException e) {
            throw new IllegalArgumentException("not an ObjectName: " + s + ": " + e.getMessage(), e);
        }
    }
}

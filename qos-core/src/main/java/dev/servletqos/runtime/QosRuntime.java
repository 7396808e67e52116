package dev.servletqos.runtime;

import dev.servletqos.Clock;
import dev.servletqos.Periodic;
import dev.servletqos.QosEngine;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.function.Consumer;
import java.util.function.Function;
import javax.management.MBeanServer;

/**
 * One engine with everything that runs around it, the same under every adapter (the Tomcat valve, the servlet
 * filter, the Jetty handler) and for an application that embeds the engine itself: where its policy comes from
 * (a file, or a {@link QosPolicy} built in code), the engine's periodic work (the expiry sweep, the control loop,
 * the policy watch), its JMX beans, optional attachments such as Micrometer meters, {@link #reload()}, the fit to
 * the container's threads, {@link #start()} and {@link #stop()}. An adapter gathers what only its container knows
 * (its scheduler, its MBean server, its thread count) into a {@link Builder} and then only enters requests.
 * <pre>{@code
 * QosPolicy policy = QosPolicy.builder().addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic"))
 *         .maxExecuting(16).build();
 * QosRuntime runtime = QosRuntime.of(policy)     // or QosRuntime.ofFile(Path.of("conf/qos.properties"))
 *         .attach(QosMetrics.binder(registry))   // optional meters
 *         .build();
 * runtime.start();                               // periodic work on a daemon thread, beans on the platform server
 * Ticket t = runtime.engine().enter(view);
 * runtime.stop();                                // waiting requests answered, beans withdrawn
 * }</pre>
 *
 * <p>{@link Builder#build()} reads and validates the policy and creates the engine, so {@link #engine()} is there
 * before start (an application may issue tier cookies with it). {@link #start()} and {@link #stop()} may alternate;
 * each start opens a new {@link Waiting}, each stop closes it. Thread-safe.
 */
public final class QosRuntime {

    /** Where a runtime writes what it has to say; adapters pass their container's logger. */
    public interface Log {

        void info(String message);

        void warn(String message);

        /** A log writing to the given consumers (a container's logger). */
        static Log of(Consumer<String> info, Consumer<String> warn) {
            Objects.requireNonNull(info, "info");
            Objects.requireNonNull(warn, "warn");
            return new Log() {
                @Override
                public void info(String message) {
                    info.accept(message);
                }

                @Override
                public void warn(String message) {
                    warn.accept(message);
                }
            };
        }

        /** The JDK's {@link System.Logger} of this class: the default. */
        static Log system() {
            System.Logger l = System.getLogger(QosRuntime.class.getName());
            return of(m -> l.log(System.Logger.Level.INFO, m), m -> l.log(System.Logger.Level.WARNING, m));
        }
    }

    private final QosEngine engine;
    private final Periodic periodic;
    private final MBeanServer mbeanServer;
    private final String domain;
    private final String engineId;
    private final List<Function<QosEngine, ? extends AutoCloseable>> attachments;
    private final Log log;
    private final String origin;
    private final int threads;
    private volatile Integer maxExecuting;
    private volatile String scheduling;
    private volatile String defaultClass;

    /** Guarded by this: the state of the current start. */
    private boolean running;
    private ScheduledExecutorService ownExecutor;
    private volatile Thread ownThread;
    private volatile QosMBeans beans;
    private final List<AutoCloseable> attached = new ArrayList<>();
    private volatile Waiting waiting = closedWaiting();
    /** Opens the cluster's store when {@code cluster.redis} is set (found at build), else null. */
    private final dev.servletqos.cluster.ClusterStateProvider clusterProvider;
    /** Guarded by this: the cluster's store of the current start, or null. */
    private dev.servletqos.cluster.ClusterState clusterState;

    private QosRuntime(Builder b) {
        this.maxExecuting = b.maxExecuting;
        this.scheduling = b.scheduling;
        this.defaultClass = b.defaultClass;
        this.periodic = b.periodic;
        this.mbeanServer = b.noMBeans ? null
                : b.mbeanServer != null ? b.mbeanServer : ManagementFactory.getPlatformMBeanServer();
        this.domain = b.domain;
        this.engineId = b.engineId;
        this.attachments = List.copyOf(b.attachments);
        this.log = b.log;
        this.threads = b.threads;
        Builder.Source source = b.source;
        Consumer<QosPolicy> validate = b.validate;
        QosPolicy first = read(source, validate);
        this.origin = source.origin;
        this.clusterProvider = first.cluster().enabled() ? clusterProvider(first.cluster().redis()) : null;
        this.engine = QosEngine.create(first, b.clock);
        if (source.reloadable) {
            // JMX reloadPolicy (and policy.watch) read it again, with the overrides in force then and the same checks
            engine.reloadFrom(() -> read(source, validate), source.watch);
        }
    }

    private QosPolicy read(Builder.Source source, Consumer<QosPolicy> validate) {
        QosPolicy p = source.read.apply(this);
        if (validate != null) {
            validate.accept(p);
        }
        return p;
    }

    /**
     * The provider of the cluster's store, found with {@link java.util.ServiceLoader}: qos-cluster-redis.
     *
     * @throws PolicyException naming {@code cluster.redis} when no module on the class path provides one
     */
    private static dev.servletqos.cluster.ClusterStateProvider clusterProvider(String redis) {
        return java.util.ServiceLoader.load(dev.servletqos.cluster.ClusterStateProvider.class,
                        QosRuntime.class.getClassLoader()).findFirst()
                .orElseThrow(() -> new PolicyException("cluster.redis", redis, "needs the module "
                        + "dev.servletqos:qos-cluster-redis on the class path (beside qos-core), which shares the "
                        + "limits through Redis; none was found"));
    }

    /** Opens the cluster's store (without waiting for it) and joins the engine to it; under this. */
    private void joinClusterLocked() {
        dev.servletqos.policy.ClusterPolicy c = engine.policy().cluster();
        java.time.Duration period = c.periodOr(engine.policy().control().period());
        String id = c.nodeId() != null ? c.nodeId() : defaultNodeId();
        clusterState = clusterProvider.open(c, period);
        dev.servletqos.ClusterLink.join(engine, clusterState, id, period);
        log.info("servlet-qos: node " + id + " shares its limits through " + clusterState.describe() + " every "
                + period.toMillis() + " ms (docs/cluster.md)");
    }

    /** The default {@code cluster.node-id}: the host name and the process id. */
    private static String defaultNodeId() {
        // the environment's name first: a lookup of the local host may wait for DNS, and startup waits for nothing
        String host = System.getenv("HOSTNAME");
        if (host == null || host.isBlank()) {
            try {
                host = java.net.InetAddress.getLocalHost().getHostName();
            } catch (java.io.IOException | SecurityException e) {
                host = "localhost";
            }
        }
        return host.replaceAll("[^A-Za-z0-9_.:@/-]", "_") + ":" + ProcessHandle.current().pid();
    }

    private static Waiting closedWaiting() {
        Waiting w = new Waiting();
        w.close();
        return w;
    }

    /** A builder for a runtime that reads its policy from {@code file} (UTF-8 properties, docs/configuration.md). */
    public static Builder ofFile(Path file) {
        return new Builder().policyFile(file);
    }

    /** A builder for a runtime on a policy built in code (not reloadable: nothing to read it from again). */
    public static Builder of(QosPolicy policy) {
        return new Builder().policy(policy);
    }

    /** An empty builder: give it a policy ({@link Builder#policyFile}, {@link Builder#policy}). */
    public static Builder builder() {
        return new Builder();
    }

    /** The engine requests enter; created by {@link Builder#build()}, the same across starts. */
    public QosEngine engine() {
        return engine;
    }

    /** Where the policy comes from, as logs say it ("policy conf/qos.properties", "policy from Java"). */
    public String origin() {
        return origin;
    }

    /**
     * Starts the engine's periodic work on the builder's {@link Periodic} (or a daemon thread of its own,
     * {@code servlet-qos-expiry}), fits the engine to the container's threads when known, registers its JMX beans
     * (a refusal costs the management view, not the protection: it is logged), opens the attachments and a new
     * {@link #waiting()}. A no-op when running.
     */
    public synchronized void start() {
        if (running) {
            return;
        }
        if (threads > 0) {
            engine.fitToThreads(threads);
            if (engine.policy().maxExecuting() >= threads) {
                log.warn("servlet-qos: max-executing " + engine.policy().maxExecuting() + " is not below the "
                        + "container's " + threads + " request threads: requests holding a permit may wait for a "
                        + "thread; leave headroom for the container's own tasks");
            }
        }
        Periodic p = periodic;
        if (p == null) {
            ownExecutor = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "servlet-qos-expiry");
                t.setDaemon(true);
                ownThread = t;
                return t;
            });
            p = Periodic.on(ownExecutor);
        }
        try {
            if (clusterProvider != null) {
                joinClusterLocked();
            }
            engine.start(p);
            if (mbeanServer != null) {
                beans = QosMBeans.registerOrWarn(engine, mbeanServer, domain, engineId, m -> log.warn("servlet-qos: "
                        + m));
            }
            for (Function<QosEngine, ? extends AutoCloseable> a : attachments) {
                attached.add(a.apply(engine));
            }
        } catch (RuntimeException | Error e) {
            running = true;
            stop();
            throw e;
        }
        waiting = new Waiting();
        running = true;
        QosPolicy policy = engine.policy();
        log.info("servlet-qos: " + policy.classes().size() + " classes, " + policy.scheduling().key()
                + ", max-executing " + policy.maxExecuting() + " (" + origin + ")");
    }

    /**
     * Answers every waiting request (503 with {@code Retry-After}, see {@link Waiting#close()}), closes the
     * attachments, withdraws the JMX beans, stops the periodic work and the runtime's own thread (waiting up to
     * 1 s for it to end, so that no thread of the engine outlives the application). The engine keeps its state;
     * requests that hold a permit release it as they finish. Idempotent.
     */
    public synchronized void stop() {
        if (!running) {
            return;
        }
        running = false;
        try {
            waiting.close();
        } finally {
            for (AutoCloseable a : attached) {
                try {
                    a.close();
                } catch (Exception e) {
                    log.warn("servlet-qos: closing " + a + " failed: " + e);
                }
            }
            attached.clear();
            QosMBeans.close(beans);
            beans = null;
            engine.stop();
            if (clusterState != null) {
                clusterState.close();
                clusterState = null;
            }
            stopOwnThread();
        }
    }

    private void stopOwnThread() {
        if (ownExecutor == null) {
            return;
        }
        ownExecutor.shutdownNow();
        Thread t = ownThread;
        try {
            // so that the container does not find the thread alive when it checks the application for leaks
            if (t != null) {
                t.join(1_000);
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        ownExecutor = null;
        ownThread = null;
    }

    /** Whether started and not stopped since. */
    public synchronized boolean running() {
        return running;
    }

    /**
     * The requests parked now under this start: an adapter adds each request it parks. Closed (so that an adapter
     * answers a request it parks at once) before the first start and after a stop.
     */
    public Waiting waiting() {
        return waiting;
    }

    /** The engine's JMX beans while running, or null (stopped, no MBean server, or refused by it). */
    public QosMBeans mbeans() {
        return beans;
    }

    /**
     * Reads the policy again from where it came from, with the overrides in force, and puts it in force
     * ({@link QosEngine#reloadPolicy()}).
     *
     * @return the policy now in force
     * @throws PolicyException       for a bad policy; the old one stays
     * @throws IllegalStateException for a policy built in code: there is nothing to read again
     */
    public QosPolicy reload() {
        return engine.reloadPolicy();
    }

    /**
     * Requests executing at once over all classes. Overrides the policy's {@code max-executing} at every reload,
     * and changes the running engine at once (budgets above it are lowered; see {@link QosEngine#setMaxExecuting}).
     *
     * @throws IllegalArgumentException if below 1 or below the sum of the reserves the policy gives
     */
    public void setMaxExecuting(int maxExecuting) {
        engine.setMaxExecuting(maxExecuting);
        this.maxExecuting = maxExecuting;
    }

    /** The engine's max-executing in force now. */
    public int getMaxExecuting() {
        return engine.snapshot().maxExecuting();
    }

    /** Overrides the policy's {@code scheduling} from the next reload (a restart, for an adapter). */
    public void setScheduling(String scheduling) {
        this.scheduling = scheduling;
    }

    /** Overrides the policy's {@code default-class} from the next reload (a restart, for an adapter). */
    public void setDefaultClass(String defaultClass) {
        this.defaultClass = defaultClass;
    }

    /** The overrides in force, as policy keys and values. */
    private Map<String, String> overrides() {
        return PolicyParser.adapterOverrides(maxExecuting, scheduling, defaultClass);
    }

    /** Applies the overrides to a policy built in code. */
    private QosPolicy withOverrides(QosPolicy p) {
        Integer m = maxExecuting;
        String s = scheduling;
        String d = defaultClass;
        if (m == null && s == null && d == null) {
            return p;
        }
        QosPolicy.Builder b = p.toBuilder();
        if (m != null) {
            b.maxExecuting(m);
        }
        if (s != null) {
            QosPolicy.Scheduling sc = QosPolicy.Scheduling.fromKey(s.trim());
            if (sc == null) {
                throw new PolicyException("scheduling", s, "must be one of "
                        + Arrays.stream(QosPolicy.Scheduling.values()).map(QosPolicy.Scheduling::key).toList());
            }
            b.scheduling(sc);
        }
        if (d != null) {
            b.defaultClass(d.trim());
        }
        return b.build();
    }

    /**
     * Builds a {@link QosRuntime}. Every setting but the policy has a default; a builder may build several runtimes.
     * Not thread-safe.
     */
    public static final class Builder {

        /** Where the policy comes from. */
        private record Source(Function<QosRuntime, QosPolicy> read, Path watch, boolean reloadable, String origin) {
        }

        private Source source;
        private Integer maxExecuting;
        private String scheduling;
        private String defaultClass;
        private Consumer<QosPolicy> validate;
        private Clock clock = Clock.system();
        private Periodic periodic;
        private int threads;
        private MBeanServer mbeanServer;
        private boolean noMBeans;
        private String domain = QosMBeans.DOMAIN;
        private String engineId = "/";
        private final List<Function<QosEngine, ? extends AutoCloseable>> attachments = new ArrayList<>();
        private Log log = Log.system();

        private Builder() {
        }

        /**
         * The policy file, read by {@link #build()} and again by each reload; with {@code policy.watch} set, watched
         * while running. Replaces any policy given before.
         */
        public Builder policyFile(Path file) {
            Objects.requireNonNull(file, "file");
            source = new Source(r -> PolicyParser.load(file, r.overrides()), file, true, "policy " + file);
            return this;
        }

        /** A policy built in code; not reloadable. Replaces any policy given before. */
        public Builder policy(QosPolicy policy) {
            Objects.requireNonNull(policy, "policy");
            source = new Source(r -> r.withOverrides(policy), null, false, "policy from Java");
            return this;
        }

        /**
         * A policy read by {@code reader}, given the overrides as policy keys and values (for
         * {@link PolicyParser#read}); called by {@link #build()} and again by each reload. For policies from
         * elsewhere than a file (a class-path resource).
         *
         * @param watch  the file to watch with {@code policy.watch}, or null
         * @param origin what logs call it, e.g. {@code "policy classpath:qos.properties"}
         */
        public Builder policyReader(Function<Map<String, String>, QosPolicy> reader, Path watch, String origin) {
            Objects.requireNonNull(reader, "reader");
            source = new Source(r -> reader.apply(r.overrides()), watch, true, origin);
            return this;
        }

        /** Overrides the policy's {@code max-executing} (null: the policy's); see {@link #setMaxExecuting}. */
        public Builder maxExecuting(Integer maxExecuting) {
            this.maxExecuting = maxExecuting;
            return this;
        }

        /** Overrides the policy's {@code scheduling} (null: the policy's). */
        public Builder scheduling(String scheduling) {
            this.scheduling = scheduling;
            return this;
        }

        /** Overrides the policy's {@code default-class} (null: the policy's). */
        public Builder defaultClass(String defaultClass) {
            this.defaultClass = defaultClass;
            return this;
        }

        /**
         * A check of every policy read, at build and at each reload, beside the policy's own validation (the Jetty
         * handler checks each max-wait against its connectors' idle timeouts); it throws {@link PolicyException}.
         */
        public Builder validate(Consumer<QosPolicy> check) {
            this.validate = check;
            return this;
        }

        /** The engine's clock; default the system clock (tests pass a fake one). */
        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /**
         * Where the engine runs its periodic work: the container's scheduler. Default (null): a daemon thread of the
         * runtime's own, started by {@link #start()} and ended by {@link #stop()}. Whatever it does with a task that
         * throws, the engine's tasks survive any throwable ({@link Periodic#surviving}).
         */
        public Builder periodic(Periodic periodic) {
            this.periodic = periodic;
            return this;
        }

        /**
         * The container's request threads, 0 (the default) if unknown: at start the engine fits to them
         * ({@link QosEngine#fitToThreads}) and a policy's max-executing not below them is warned about.
         */
        public Builder threads(int threads) {
            if (threads < 0) {
                throw new IllegalArgumentException("threads = " + threads + ": must be 0 (unknown) or more");
            }
            this.threads = threads;
            return this;
        }

        /** The MBean server of the engine's beans; default (null) the platform one. */
        public Builder mbeanServer(MBeanServer server) {
            this.mbeanServer = server;
            this.noMBeans = false;
            return this;
        }

        /** No JMX beans at all. */
        public Builder noMBeans() {
            this.noMBeans = true;
            return this;
        }

        /** The ObjectName domain of the beans; default {@value QosMBeans#DOMAIN}. */
        public Builder jmxDomain(String domain) {
            this.domain = Objects.requireNonNull(domain, "domain");
            return this;
        }

        /** The engine id in the beans' names (the adapter's context path); default {@code /}. */
        public Builder engineId(String engineId) {
            this.engineId = engineId == null || engineId.isBlank() ? "/" : engineId;
            return this;
        }

        /**
         * Something opened with the engine at each start and closed at each stop, such as Micrometer meters:
         * {@code attach(QosMetrics.binder(registry))}. An attachment that fails to open fails the start.
         */
        public Builder attach(Function<QosEngine, ? extends AutoCloseable> attachment) {
            attachments.add(Objects.requireNonNull(attachment, "attachment"));
            return this;
        }

        /** Where the runtime logs; default {@link Log#system()}. */
        public Builder log(Log log) {
            this.log = Objects.requireNonNull(log, "log");
            return this;
        }

        /**
         * Reads and validates the policy and creates the engine (not started).
         *
         * @throws PolicyException       naming the key and the value of a bad policy
         * @throws IllegalStateException if no policy was given
         */
        public QosRuntime build() {
            if (source == null) {
                throw new IllegalStateException("a QosRuntime needs a policy: policyFile(..) or policy(..)");
            }
            return new QosRuntime(this);
        }
    }
}

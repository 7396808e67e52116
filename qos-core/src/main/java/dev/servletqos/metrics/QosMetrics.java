package dev.servletqos.metrics;

import dev.servletqos.ClassStats;
import dev.servletqos.ControlStatus;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.Rejection;
import dev.servletqos.TierCookies;
import dev.servletqos.control.UtilizationStatus;
import dev.servletqos.control.WaitHistogram;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Binds an engine's counters to a Micrometer registry, from outside the engine (nothing is recorded on the
 * request path: every meter reads the engine's snapshot). Names are {@code qos.*}; the class is the tag
 * {@code qos.class}, from the policy's bounded set; outcomes and reasons are tags too (every meter, with its
 * type, tags and unit, is in {@code docs/metrics.md}, which {@code MetricsDocTest} keeps complete):
 * <ul>
 *   <li>{@code qos.arrivals} (counter: requests that entered)</li>
 *   <li>{@code qos.requests} (counter; {@code outcome} = completed, declined, rejected, expired, cancelled)</li>
 *   <li>{@code qos.rejections} (counter, unit rejections; {@code reason} = the tag of each refusal reason counted
 *       per class, {@link Rejection.Reason#counted()}: session-queued, session-rate, session-level, session-address,
 *       queue-full, session-limit, address-limit, streams-full)</li>
 *   <li>{@code qos.sessions} (counter, unit sessions; {@code outcome} = admitted, refused)</li>
 *   <li>{@code qos.stateless} (counter, unit requests: stateless requests admitted, a session-less caller's)</li>
 *   <li>{@code qos.wait} (timer: permits granted and the time requests waited for them)</li>
 *   <li>{@code qos.wait.buckets} (counter; {@code le} = upper bound in seconds, or +Inf: granted requests
 *       that waited up to that long, not cumulative across buckets; the buckets of {@link WaitHistogram})</li>
 *   <li>{@code qos.service} (timer: timed completions, all while requests wait and one in eight otherwise,
 *       and their time from grant to completion)</li>
 *   <li>{@code qos.response.bytes} (counter: response bytes of completed requests, where known)</li>
 *   <li>{@code qos.bucket.requests} (counter per token-bucket rule, tag {@code bucket}; {@code outcome} =
 *       admitted, refused) and {@code qos.bucket.rate} (gauge: its rate now)</li>
 *   <li>{@code qos.vhost.requests} (counter per virtual server, tag {@code vhost}; {@code guarantee} = within,
 *       beyond) and {@code qos.vhost.guaranteed.bytes} (counter: its guaranteed responses' bytes)</li>
 *   <li>{@code qos.control.reference}, {@code qos.control.measured}, {@code qos.control.error},
 *       {@code qos.control.output} (gauges per class: the control loop's last period) and
 *       {@code qos.control.saturated} (counter per class: periods that were saturated);
 *       {@code qos.control.periods} and {@code qos.control.failures} (counters, no class)</li>
 *   <li>{@code qos.periodic.failures} (counter, no class): runs of the periodic work that threw</li>
 *   <li>in a cluster only: {@code qos.cluster.local-only} and {@code qos.cluster.nodes} (gauges),
 *       {@code qos.cluster.exchanges} (counter, {@code outcome=ok|failed}); docs/cluster.md</li>
 *   <li>{@code qos.control.utilization} (the measured utilization, cpu or occupancy), {@code .estimated} (by
 *       the fitted model {@code a R + b W + c D}), {@code .a}, {@code .b}, {@code .c} (the costs, seconds
 *       per request, per byte, per refusal), {@code .smoothed} and {@code .network} (threshold mode's averages),
 *       gauges without class; {@code qos.control.utilization.class} and {@code .target} (gauges per class: its
 *       utilization by the model and its target); all NaN while {@code control.degradation = none}</li>
 *   <li>{@code qos.executing}, {@code qos.queued}, {@code qos.lined}, {@code qos.budget}, {@code qos.borrowed}
 *       (gauges)</li>
 *   <li>{@code qos.session.rate} (gauge per class: new sessions a second the class admits, 0 = no limit)</li>
 *   <li>{@code qos.content.level} (gauge per class: the live fractional content level m, 0..M),
 *       {@code qos.content.levels} (gauge per class: M) and {@code qos.content.served} (counter; {@code level} =
 *       1..M: completed requests served at that content level)</li>
 *   <li>{@code qos.max.executing}, {@code qos.max.executing.ceiling}, {@code qos.session.table.size} (gauges, no
 *       class)</li>
 *   <li>{@code qos.exempt} (counter, no class: requests an exempt rule let bypass QoS) and {@code qos.streams.open}
 *       (gauge, no class: streams running without a permit now)</li>
 *   <li>{@code qos.cookies} (counter; {@code cookie} = tier, session; {@code result} = valid, missing,
 *       malformed, forged, expired, oversized)</li>
 * </ul>
 * A scrape reads the engine's snapshot and the control loop's status once each and shares them between the
 * meters for {@value #CACHE_MILLIS} ms,
 * so the numbers of one scrape are consistent with each other. Thread-safe. {@link #close()} removes the
 * meters it registered.
 */
public final class QosMetrics implements MeterBinder, AutoCloseable {

    static final long CACHE_MILLIS = 50;

    private final QosEngine engine;
    private final Tags extraTags;
    private final List<Meter> meters = new ArrayList<>();
    private MeterRegistry registry;
    /** The engine's reload listener while bound. */
    private AutoCloseable reloads;
    private final Cached<EngineSnapshot> snapshot;
    /** The control loop's status, read at most once per cache time like the snapshot. */
    private final Cached<ControlStatus> status;

    /** Meters for this engine, without extra tags. */
    public QosMetrics(QosEngine engine) {
        this(engine, Tags.empty());
    }

    /** Meters for this engine, with extra tags (e.g. the application's name when several are bound). */
    public QosMetrics(QosEngine engine, Iterable<io.micrometer.core.instrument.Tag> tags) {
        this(engine, tags, CACHE_MILLIS);
    }

    /**
     * Meters for this engine, with extra tags, reading the engine's snapshot at most once every
     * {@code cacheMillis} ms (0: at every read; tests on a fake clock use it).
     */
    public QosMetrics(QosEngine engine, Iterable<io.micrometer.core.instrument.Tag> tags, long cacheMillis) {
        this.engine = engine;
        this.extraTags = Tags.of(tags);
        long cacheNanos = TimeUnit.MILLISECONDS.toNanos(cacheMillis);
        this.snapshot = new Cached<>(engine::snapshot, cacheNanos);
        this.status = new Cached<>(engine::controlStatus, cacheNanos);
    }

    /**
     * The engine's meters bound to {@code registry} at each start of a runtime and removed at each stop:
     * {@code QosRuntime.builder()...attach(QosMetrics.binder(registry))}.
     */
    public static java.util.function.Function<QosEngine, AutoCloseable> binder(MeterRegistry registry) {
        java.util.Objects.requireNonNull(registry, "registry");
        return engine -> {
            QosMetrics m = new QosMetrics(engine);
            m.bindTo(registry);
            return m;
        };
    }

    private EngineSnapshot snapshot() {
        return snapshot.get();
    }

    private ControlStatus status() {
        return status.get();
    }

    /**
     * A value read from the engine at most once every {@code nanos}: one scrape reads it once for all its meters.
     * Two scrapes at once may both read it; either result is current.
     */
    private static final class Cached<T> {
        private final Supplier<T> source;
        private final long nanos;
        private volatile T value;
        private volatile long at;

        Cached(Supplier<T> source, long nanos) {
            this.source = source;
            this.nanos = nanos;
        }

        T get() {
            long now = System.nanoTime();
            T v = value;
            if (v == null || now - at >= nanos) {
                v = source.get();
                value = v;
                at = now;
            }
            return v;
        }
    }

    /**
     * Registers the meters. After a policy reload the per-class meters follow the new classes (a removed class's
     * are removed, a new class's registered); a kept class's counters go on where they were.
     */
    @Override
    public synchronized void bindTo(MeterRegistry registry) {
        this.registry = registry;
        register();
        if (reloads == null) {
            reloads = engine.onReload(p -> rebind());
        }
    }

    private synchronized void rebind() {
        if (registry != null) {
            meters.forEach(registry::remove);
            meters.clear();
            register();
        }
    }

    private void register() {
        for (ClassStats c : engine.snapshot().classes()) {
            String name = c.name();
            Tags tags = extraTags.and("qos.class", name);
            counter("qos.arrivals", "Requests that entered", tags, name, ClassStats::entered);
            counter("qos.requests", "Requests that ended, by outcome", tags.and("outcome", "completed"), name,
                    ClassStats::completed);
            counter("qos.requests", "Requests that ended, by outcome", tags.and("outcome", "declined"), name,
                    ClassStats::declined);
            counter("qos.requests", "Requests that ended, by outcome", tags.and("outcome", "rejected"), name,
                    ClassStats::rejected);
            counter("qos.requests", "Requests that ended, by outcome", tags.and("outcome", "expired"), name,
                    ClassStats::expired);
            counter("qos.requests", "Requests that ended, by outcome", tags.and("outcome", "cancelled"), name,
                    ClassStats::cancelled);
            for (Rejection.Reason r : Rejection.Reason.values()) {
                if (r.counted()) {
                    counter("qos.rejections", "Requests refused at entry, by reason", tags.and("reason", r.tag()),
                            name, "rejections", c2 -> c2.refused(r));
                }
            }
            counter("qos.sessions", "New sessions, admitted or refused", tags.and("outcome", "admitted"), name,
                    "sessions", ClassStats::sessionsAdmitted);
            counter("qos.sessions", "New sessions, admitted or refused", tags.and("outcome", "refused"), name,
                    "sessions", ClassStats::sessionsRefused);
            counter("qos.stateless", "Stateless requests admitted: a caller's without a session, made none", tags,
                    name, "requests", ClassStats::statelessAdmitted);
            meters.add(FunctionTimer.builder("qos.wait", this,
                            m -> (long) stat(m, name, ClassStats::grants), m -> stat(m, name, ClassStats::waitNanos),
                            TimeUnit.NANOSECONDS)
                    .description("Permits granted and the time requests waited in their queue for them")
                    .tags(tags).register(registry));
            for (int b = 0; b < WaitHistogram.BUCKETS; b++) {
                int bucket = b;
                counter("qos.wait.buckets", "Granted requests by how long they waited (this bucket only, not"
                        + " cumulative)", tags.and("le", le(b)), name, c2 -> c2.waitBucket(bucket));
            }
            meters.add(FunctionTimer.builder("qos.service", this,
                            m -> (long) stat(m, name, ClassStats::serviceTimed),
                            m -> stat(m, name, ClassStats::serviceNanos), TimeUnit.NANOSECONDS)
                    .description("Timed completions (all while requests wait, one in eight otherwise) and their"
                            + " time from permit grant to completion")
                    .tags(tags).register(registry));
            meters.add(FunctionCounter.builder("qos.response.bytes", this, m -> stat(m, name, ClassStats::bytes))
                    .description("Response bytes of completed requests, where the adapter knows them")
                    .baseUnit("bytes").tags(tags).register(registry));
            control("qos.control.reference", "What the control loop aims for (delay target, or delay ratio)", tags,
                    name, ControlStatus.Reading::reference);
            control("qos.control.measured", "What the control loop measured last period", tags, name,
                    ControlStatus.Reading::measured);
            control("qos.control.error", "Reference minus measurement, last period", tags, name,
                    ControlStatus.Reading::error);
            control("qos.control.output", "The budget the control loop asked for, last period", tags, name,
                    ControlStatus.Reading::output);
            meters.add(FunctionCounter.builder("qos.control.saturated", engine,
                            e -> reading(name, ControlStatus.Reading::saturatedPeriods))
                    .description("Control periods whose output was clamped (saturated)").baseUnit("periods")
                    .tags(tags).register(registry));
            gauge("qos.executing", "Requests holding a permit", tags, name, ClassStats::executing);
            gauge("qos.queued", "Requests waiting for a permit", tags, name, ClassStats::queued);
            gauge("qos.lined", "Requests waiting in their sessions' lines (admission.max-per-session)", tags, name,
                    ClassStats::lined);
            gauge("qos.budget", "Concurrency permits of the class", tags, name, ClassStats::budget);
            gauge("qos.borrowed", "Permits held beyond the budget", tags, name, ClassStats::borrowed);
            meters.add(Gauge.builder("qos.session.rate", this, m -> stat(m, name, ClassStats::sessionRate))
                    .description("New sessions admitted per second at most (0: no limit); the admission law's "
                            + "output with control.admission = auto").baseUnit("sessions").tags(tags)
                    .register(registry));
            meters.add(Gauge.builder("qos.content.level", this, m -> stat(m, name, ClassStats::level))
                    .description("The class's content level m, 0..M: a fraction m - floor(m) of the sessions is "
                            + "served at floor(m) + 1, the rest at floor(m); 0 refuses new sessions").tags(tags)
                    .register(registry));
            meters.add(Gauge.builder("qos.content.levels", this, m -> stat(m, name, ClassStats::levels))
                    .description("The class's content levels M: the level of full content").tags(tags)
                    .register(registry));
            for (int level = 1; level <= c.levels(); level++) {
                int l = level;
                counter("qos.content.served", "Completed requests by the content level they were served at",
                        tags.and("level", Integer.toString(level)), name, c2 -> c2.completedAtLevel(l));
            }
            level("qos.control.utilization.class", "The class's utilization by the fitted model, a R + b W + c D",
                    tags, name, UtilizationStatus.ClassLevel::utilization);
            level("qos.control.utilization.target", "The class's target utilization (the PI degradation law: the "
                    + "target less the classes above)", tags, name, UtilizationStatus.ClassLevel::target);
        }
        utilization("qos.control.utilization", "The utilization the degradation law measured last period (cpu or "
                + "occupancy)", UtilizationStatus::measured);
        utilization("qos.control.utilization.estimated", "The utilization by the fitted model a R + b W + c D, last "
                + "period", UtilizationStatus::estimated);
        utilization("qos.control.utilization.a", "Fitted cost of a completed request (seconds)", UtilizationStatus::a);
        utilization("qos.control.utilization.b", "Fitted cost of a response byte (seconds)", UtilizationStatus::b);
        utilization("qos.control.utilization.c", "Cost of a refused request (seconds; "
                + "control.utilization.rejection-cost)", UtilizationStatus::c);
        utilization("qos.control.utilization.smoothed", "Threshold mode's exponential average of the utilization",
                UtilizationStatus::smoothed);
        utilization("qos.control.utilization.network", "Threshold mode's exponential average of the network "
                + "utilization", UtilizationStatus::network);
        meters.add(Gauge.builder("qos.max.executing", this, m -> m.snapshot().maxExecuting())
                .description("Requests executing at once over all classes, at most").tags(extraTags)
                .baseUnit("requests").register(registry));
        meters.add(Gauge.builder("qos.max.executing.ceiling", this, m -> m.snapshot().settings().ceiling())
                .description("The most max-executing may be: the capacity law's ceiling").tags(extraTags)
                .baseUnit("requests").register(registry));
        meters.add(Gauge.builder("qos.session.table.size", this, m -> m.snapshot().sessions().tableSize())
                .description("Admitted sessions this node remembers").tags(extraTags).baseUnit("sessions")
                .register(registry));
        meters.add(FunctionCounter.builder("qos.exempt", this, m -> m.snapshot().exempt())
                .description("Requests an exempt rule let bypass QoS (exempt.<n>.*)").tags(extraTags)
                .baseUnit("requests").register(registry));
        meters.add(Gauge.builder("qos.streams.open", this, m -> m.snapshot().streams())
                .description("Streams open now, running without a permit (streams.*)").tags(extraTags)
                .baseUnit("streams").register(registry));
        meters.add(FunctionCounter.builder("qos.control.periods", engine, e -> status().periods())
                .description("Control periods run").baseUnit("periods").tags(extraTags).register(registry));
        meters.add(FunctionCounter.builder("qos.control.failures", engine, e -> status().failures())
                .description("Control periods whose sample or law failed; the last good settings stayed")
                .baseUnit("periods").tags(extraTags).register(registry));
        meters.add(FunctionCounter.builder("qos.periodic.failures", engine, QosEngine::periodicFailures)
                .description("Runs of the periodic work (expiry sweep, control loop, policy watch) that threw; each "
                        + "runs again at its next period").baseUnit("runs").tags(extraTags).register(registry));
        if (engine.cluster() != null) {
            meters.add(Gauge.builder("qos.cluster.local-only", engine, e -> e.cluster().status().localOnly() ? 1 : 0)
                    .description("1 while this node runs on local limits (the cluster's store did not answer for two "
                            + "periods, docs/cluster.md), else 0").tags(extraTags).register(registry));
            meters.add(Gauge.builder("qos.cluster.nodes", engine, e -> e.cluster().status().nodes())
                    .description("Live nodes of the cluster at the last exchange (the last known count while "
                            + "local-only)").baseUnit("nodes").tags(extraTags).register(registry));
            meters.add(FunctionCounter.builder("qos.cluster.exchanges", engine, e -> e.cluster().status().exchanges())
                    .description("Exchanges with the cluster's store, by outcome").baseUnit("exchanges")
                    .tags(extraTags.and("outcome", "ok")).register(registry));
            meters.add(FunctionCounter.builder("qos.cluster.exchanges", engine, e -> e.cluster().status().failures())
                    .description("Exchanges with the cluster's store, by outcome").baseUnit("exchanges")
                    .tags(extraTags.and("outcome", "failed")).register(registry));
        }
        for (EngineSnapshot.BucketStats b : engine.snapshot().buckets()) {
            String bucket = b.name();
            Tags tags = extraTags.and("bucket", bucket);
            meters.add(FunctionCounter.builder("qos.bucket.requests", this,
                            m -> bucketStat(m, bucket, x -> x.hits() - x.refused()))
                    .description("Requests a token-bucket rule covered, by outcome (refused: 503, reason bucket)")
                    .tags(tags.and("outcome", "admitted")).register(registry));
            meters.add(FunctionCounter.builder("qos.bucket.requests", this,
                            m -> bucketStat(m, bucket, EngineSnapshot.BucketStats::refused))
                    .description("Requests a token-bucket rule covered, by outcome (refused: 503, reason bucket)")
                    .tags(tags.and("outcome", "refused")).register(registry));
            meters.add(Gauge.builder("qos.bucket.rate", this, m -> bucketStat(m, bucket, EngineSnapshot.BucketStats::rate))
                    .description("The token-bucket rule's rate now: the bucket law's output").baseUnit("requests")
                    .tags(tags).register(registry));
        }
        for (EngineSnapshot.HostStats h : engine.snapshot().hosts()) {
            String host = h.name();
            Tags tags = extraTags.and("vhost", host);
            meters.add(FunctionCounter.builder("qos.vhost.requests", this,
                            m -> hostStat(m, host, EngineSnapshot.HostStats::guaranteed))
                    .description("Requests of a virtual server, within its guarantee or beyond it")
                    .tags(tags.and("guarantee", "within")).register(registry));
            meters.add(FunctionCounter.builder("qos.vhost.requests", this,
                            m -> hostStat(m, host, x -> x.requests() - x.guaranteed()))
                    .description("Requests of a virtual server, within its guarantee or beyond it")
                    .tags(tags.and("guarantee", "beyond")).register(registry));
            meters.add(FunctionCounter.builder("qos.vhost.guaranteed.bytes", this,
                            m -> hostStat(m, host, EngineSnapshot.HostStats::guaranteedBytes))
                    .description("Response bytes of a virtual server's guaranteed requests, where known")
                    .baseUnit("bytes").tags(tags).register(registry));
        }
        for (TierCookies.Verified.Status st : TierCookies.Verified.Status.values()) {
            String result = st.name().toLowerCase(Locale.ROOT);
            meters.add(FunctionCounter.builder("qos.cookies", this, m -> m.snapshot().sessions().tierCookies(st))
                    .description("Signed cookies checked, by result").tags(extraTags.and("cookie", "tier", "result",
                            result)).register(registry));
            meters.add(FunctionCounter.builder("qos.cookies", this, m -> m.snapshot().sessions().sessionCookies(st))
                    .description("Signed cookies checked, by result").tags(extraTags.and("cookie", "session",
                            "result", result)).register(registry));
        }
    }

    private double bucketStat(QosMetrics m, String bucket, ToDoubleFunction<EngineSnapshot.BucketStats> f) {
        EngineSnapshot.BucketStats b = m.snapshot().bucket(bucket);
        return b == null ? Double.NaN : f.applyAsDouble(b);
    }

    private double hostStat(QosMetrics m, String host, ToDoubleFunction<EngineSnapshot.HostStats> f) {
        EngineSnapshot.HostStats h = m.snapshot().host(host);
        return h == null ? Double.NaN : f.applyAsDouble(h);
    }

    private double stat(QosMetrics m, String className, ToDoubleFunction<ClassStats> f) {
        ClassStats c = m.snapshot().get(className);
        return c == null ? Double.NaN : f.applyAsDouble(c);
    }

    /** The {@code le} tag of wait bucket {@code b}: its upper bound in seconds, {@code +Inf} for the last. */
    static String le(int b) {
        double le = WaitHistogram.upperSeconds(b);
        return Double.isInfinite(le) ? "+Inf" : Double.toString(le);
    }

    private void counter(String meter, String description, Tags tags, String className,
                         ToDoubleFunction<ClassStats> f) {
        counter(meter, description, tags, className, "requests", f);
    }

    private void counter(String meter, String description, Tags tags, String className, String unit,
                         ToDoubleFunction<ClassStats> f) {
        meters.add(FunctionCounter.builder(meter, this, m -> stat(m, className, f)).description(description)
                .baseUnit(unit).tags(tags).register(registry));
    }

    private void control(String meter, String description, Tags tags, String className,
                         ToDoubleFunction<ControlStatus.Reading> f) {
        meters.add(Gauge.builder(meter, engine, e -> reading(className, f)).description(description).tags(tags)
                .register(registry));
    }

    /** A class's last control reading, by name (NaN for a class the loop does not have). */
    private double reading(String className, ToDoubleFunction<ControlStatus.Reading> f) {
        for (ControlStatus.Reading r : status().classes()) {
            if (r.name().equals(className)) {
                return f.applyAsDouble(r);
            }
        }
        return Double.NaN;
    }

    /** A gauge of the degradation law's status; NaN while no degradation law runs. */
    private void utilization(String meter, String description, ToDoubleFunction<UtilizationStatus> f) {
        meters.add(Gauge.builder(meter, engine, e -> {
            UtilizationStatus u = status().utilization();
            return u == null ? Double.NaN : f.applyAsDouble(u);
        }).description(description).tags(extraTags).register(registry));
    }

    /**
     * A per-class gauge of the degradation law's status, read by class name (the law's classes follow a reload);
     * NaN while none runs, before its first period, or for a class it does not have.
     */
    private void level(String meter, String description, Tags tags, String className,
                       ToDoubleFunction<UtilizationStatus.ClassLevel> f) {
        meters.add(Gauge.builder(meter, engine, e -> {
            UtilizationStatus u = status().utilization();
            if (u != null) {
                for (UtilizationStatus.ClassLevel c : u.classes()) {
                    if (c.name().equals(className)) {
                        return f.applyAsDouble(c);
                    }
                }
            }
            return Double.NaN;
        }).description(description).tags(tags).register(registry));
    }

    private void gauge(String meter, String description, Tags tags, String className,
                       ToDoubleFunction<ClassStats> f) {
        meters.add(Gauge.builder(meter, this, m -> stat(m, className, f)).description(description)
                .baseUnit("requests").tags(tags).register(registry));
    }

    /** Removes every meter this binder registered. */
    @Override
    public synchronized void close() {
        if (reloads != null) {
            try {
                reloads.close();
            } catch (Exception e) {
                // removing a listener from a list does not fail
            }
            reloads = null;
        }
        if (registry != null) {
            meters.forEach(registry::remove);
            meters.clear();
        }
    }
}

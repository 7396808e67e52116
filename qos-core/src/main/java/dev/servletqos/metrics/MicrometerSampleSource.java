package dev.servletqos.metrics;

import dev.servletqos.ClassStats;
import dev.servletqos.Clock;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.Rejection;
import dev.servletqos.control.Sample;
import dev.servletqos.control.SampleSource;
import dev.servletqos.control.WaitHistogram;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Builds the control loop's samples from an application's Micrometer registry instead of the engine's own
 * counters: the engine's {@code qos.*} meters (bound by {@link QosMetrics}) and the JVM's
 * {@code process.cpu.usage} (bound by Micrometer's {@code ProcessorMetrics}; NaN when absent). The same
 * traffic gives the same sample as the default source, because the meters carry the same counters (see
 * {@code MicrometerSampleSourceTest}). Use it with {@code engine.useSampleSource(..)} where the registry is
 * what operators watch, so that the controller acts on exactly what they see.
 *
 * <p>Not thread-safe: one control loop calls it.
 */
public final class MicrometerSampleSource implements SampleSource {

    private final MeterRegistry registry;
    /** Whose classes the meters are read for: the policy in force, also after a reload. */
    private final QosEngine engine;
    private final Tags tags;
    private final Clock clock;
    private EngineSnapshot last;

    /** Samples from the meters {@code new QosMetrics(engine).bindTo(registry)} registered. */
    public MicrometerSampleSource(MeterRegistry registry, QosEngine engine) {
        this(registry, engine, Tags.empty());
    }

    /** Samples from the meters of {@code engine} bound with these extra tags. */
    public MicrometerSampleSource(MeterRegistry registry, QosEngine engine, Iterable<io.micrometer.core.instrument.Tag> extraTags) {
        this.registry = registry;
        this.engine = engine;
        this.tags = Tags.of(extraTags);
        this.clock = engine.clock();
    }

    @Override
    public Sample sample() {
        EngineSnapshot now = read();
        EngineSnapshot before = last != null ? last : now;
        last = now;
        Gauge cpu = registry.find("process.cpu.usage").gauge();
        return Sample.between(before, now, cpu == null ? Double.NaN : cpu.value());
    }

    /** The counters the meters show now, in the shape of an engine snapshot. */
    private EngineSnapshot read() {
        long nanos = clock.nanoTime();
        List<String> classes = engine.policy().classes().stream().map(c -> c.name()).toList();
        List<ClassStats> stats = new ArrayList<>(classes.size());
        int executing = 0;
        int queued = 0;
        for (String name : classes) {
            Tags t = tags.and("qos.class", name);
            FunctionTimer wait = registry.get("qos.wait").tags(t).functionTimer();
            FunctionTimer service = registry.get("qos.service").tags(t).functionTimer();
            long[] buckets = new long[WaitHistogram.BUCKETS];
            for (int b = 0; b < buckets.length; b++) {
                buckets[b] = (long) registry.get("qos.wait.buckets").tags(t.and("le", QosMetrics.le(b)))
                        .functionCounter().count();
            }
            int levels = (int) gauge("qos.content.levels", t);
            long[] byLevel = new long[levels + 1];
            for (int l = 1; l <= levels; l++) {
                byLevel[l] = count("qos.content.served", t.and("level", Integer.toString(l)));
            }
            int ex = (int) gauge("qos.executing", t);
            int q = (int) gauge("qos.queued", t);
            executing += ex;
            queued += q;
            long[] refusals = new long[Rejection.Reason.values().length];
            for (Rejection.Reason r : Rejection.Reason.values()) {
                if (r.counted()) {
                    refusals[r.ordinal()] = count("qos.rejections", t.and("reason", r.tag()));
                }
            }
            stats.add(new ClassStats(name, (int) gauge("qos.budget", t), 0, 0, 1, ex, 0, q,
                    count("qos.arrivals", t), outcome("completed", t), outcome("declined", t), outcome("rejected", t),
                    outcome("expired", t), outcome("cancelled", t), refusals,
                    count("qos.sessions", t.and("outcome", "admitted")), count("qos.stateless", t), 0, (long) wait.count(),
                    Math.round(wait.totalTime(TimeUnit.NANOSECONDS)), buckets,
                    Math.round(service.totalTime(TimeUnit.NANOSECONDS)), (long) service.count(),
                    count("qos.response.bytes", t), 0, 1, levels, gauge("qos.content.level", t), byLevel, 0,
                    (int) gauge("qos.lined", t)));
        }
        int max = (int) registry.get("qos.max.executing").tags(tags).gauge().value();
        // meters do not carry service times by route
        return new EngineSnapshot(null, max, executing, queued, stats, null, null, nanos, EngineSnapshot.Routes.NONE);
    }

    private double gauge(String name, Tags t) {
        return registry.get(name).tags(t).gauge().value();
    }

    private long count(String name, Tags t) {
        FunctionCounter c = registry.get(name).tags(t).functionCounter();
        return Math.round(c.count());
    }

    private long outcome(String outcome, Tags t) {
        return count("qos.requests", t.and("outcome", outcome));
    }
}

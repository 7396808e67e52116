package dev.servletqos.sample;

import dev.servletqos.QosEngine;
import dev.servletqos.metrics.QosMetrics;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.logging.Logger;

/**
 * The shop's Prometheus registry: the engine's {@code qos.*} meters ({@link QosMetrics}, bound once the
 * engine is published, since an adapter may start after the application) and the shop's own
 * {@code shop.pages} timer (tags {@code page}, {@code content} = full or degraded, {@code status}).
 * Thread-safe.
 */
final class ShopMetrics {

    private static final Logger LOG = Logger.getLogger(ShopMetrics.class.getName());

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final ConcurrentMap<String, Timer> pages = new ConcurrentHashMap<>();
    private final LongAdder served = new LongAdder();
    private volatile QosEngine bound;

    /** Records one page served by the application. */
    void page(String page, int level, int status, long micros) {
        served.increment();
        String content = ContentLevel.name(level);
        String key = page + ' ' + content + ' ' + status;
        // the key set is bounded: a fixed set of pages, two levels and the few statuses the pages answer
        pages.computeIfAbsent(key, k -> Timer.builder("shop.pages")
                        .description("Pages the application served, and the time it spent on them")
                        .tags("page", page, "content", content, "status", Integer.toString(status))
                        .register(registry))
                .record(micros, TimeUnit.MICROSECONDS);
    }

    /** Pages served since start, all statuses. */
    long served() {
        return served.sum();
    }

    /** The Prometheus text exposition, with the engine's meters when an engine is published. */
    String scrape(QosEngine engine) {
        bind(engine);
        return registry.scrape();
    }

    private synchronized void bind(QosEngine engine) {
        if (engine != null && bound == null) {
            bound = engine;
            try {
                new QosMetrics(engine).bindTo(registry);
            } catch (LinkageError e) {
                // The engine came from a class loader without Micrometer (the valve's jar in Tomcat's lib, the
                // shop's loader delegating to it): serve the shop's own meters rather than fail every scrape.
                LOG.warning("servlet-qos sample: the engine's meters are not available (" + e
                        + "); put micrometer-core next to the servlet-qos jar to get them. /metrics shows the"
                        + " shop's meters only.");
            }
        }
    }
}

package dev.servletqos.boot;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.Settings;
import dev.servletqos.runtime.QosRuntime;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * The {@code qos} health contributor: always UP, with details. Overload is what servlet-qos handles, not a fault:
 * a node that refuses new sessions to keep its admitted ones fast must stay in its load balancer, so this never
 * reports DOWN because of load.
 *
 * <p>Details: {@code regime} ({@code normal}: nothing waits and nothing was refused since the previous check;
 * {@code queueing}: requests wait for a permit; {@code refusing}: requests were refused since the previous check),
 * {@code running}, and per class its delay against its target (the mean wait of the requests granted since the
 * previous check, milliseconds), its content level, whether it refused requests since the previous check, and its
 * queue. Thread-safe: each check compares against the snapshot the previous one took.
 */
public class QosHealthIndicator extends AbstractHealthIndicator {

    private final QosRuntime runtime;
    private EngineSnapshot previous;

    public QosHealthIndicator(QosRuntime runtime) {
        super("servlet-qos health check failed");
        this.runtime = runtime;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        EngineSnapshot now = runtime.engine().snapshot();
        EngineSnapshot before;
        synchronized (this) {
            before = previous;
            previous = now;
        }
        Settings settings = now.settings();
        Map<String, Object> classes = new LinkedHashMap<>();
        boolean refusing = false;
        for (int i = 0; i < now.classes().size(); i++) {
            ClassStats c = now.classes().get(i);
            ClassStats b = before == null ? null : before.get(c.name());
            long grants = c.grants() - (b == null ? 0 : b.grants());
            long waitNanos = c.waitNanos() - (b == null ? 0 : b.waitNanos());
            long refused = c.rejected() + c.expired() - (b == null ? 0 : b.rejected() + b.expired());
            refusing |= refused > 0;
            Map<String, Object> d = new LinkedHashMap<>();
            d.put("delayMillis", grants > 0 ? Math.round(waitNanos / 1e4 / grants) / 100.0 : 0.0);
            d.put("delayTargetMillis", settings.get(i).delayTarget().toMillis());
            d.put("contentLevel", c.level());
            d.put("contentLevels", c.levels());
            d.put("refusing", refused > 0);
            d.put("queued", c.queued());
            d.put("executing", c.executing());
            d.put("budget", c.budget());
            classes.put(c.name(), d);
        }
        String regime = refusing ? "refusing" : now.queued() > 0 ? "queueing" : "normal";
        builder.up().withDetail("regime", regime).withDetail("running", runtime.running())
                .withDetail("maxExecuting", now.maxExecuting()).withDetail("classes", classes);
    }
}

package dev.servletqos.jmx;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import java.time.Instant;
import java.util.Map;

/** {@link QosEngineMXBean} over one engine. */
final class EngineBean implements QosEngineMXBean {

    /** The most {@code max-executing} may be (the engine's clamp). */
    static final int MAX_EXECUTING_LIMIT = 100_000;

    static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry("EngineId", "The engine's id, the name key of all its beans"),
            Map.entry("Scheduling", "The scheduling policy"),
            Map.entry("DefaultClass", "The class of sessions no rule matches"),
            Map.entry("ClassNames", "The service classes, highest priority first"),
            Map.entry("MaxExecuting", "Requests executing at once over all classes (writable: 1..100000, at least "
                    + "the sum of the reserves the policy gives)"),
            Map.entry("Ceiling", "The most MaxExecuting the capacity law may set"),
            Map.entry("Executing", "Requests holding a permit now, all classes"),
            Map.entry("Queued", "Requests waiting for a permit now, all classes"),
            Map.entry("SettingsSource", "Who set the settings in force last: POLICY, OPERATOR or CONTROLLER"),
            Map.entry("Sessions", "Sessions this node knows now (approximate)"),
            Map.entry("Classes", "Each class's counters since StatisticsSince, highest priority first, from one "
                    + "snapshot"),
            Map.entry("StatisticsSince", "Since when the counts of Classes and of each class's Statistics count: "
                    + "the engine's start or the last resetStatistics (ISO-8601)"),
            Map.entry("Reloadable", "Whether reloadPolicy has a file to read (false for an engine built from a "
                    + "policy object)"),
            Map.entry("reloadPolicy", "Reads the policy file again and puts it in force whole; a file that does not "
                    + "parse or validate is refused with the reason, and the old policy keeps running"),
            Map.entry("resetStatistics", "Counts the beans' statistics from now on (a baseline the beans subtract; "
                    + "the engine's counters, the meters and the control loop are not touched)"));

    private final QosEngine engine;
    private final String id;
    private final StatisticsBaseline baseline;

    EngineBean(QosEngine engine, String id, StatisticsBaseline baseline) {
        this.engine = engine;
        this.id = id;
        this.baseline = baseline;
    }

    @Override
    public String getEngineId() {
        return id;
    }

    @Override
    public String getScheduling() {
        return engine.policy().scheduling().key();
    }

    @Override
    public String getDefaultClass() {
        return engine.policy().defaultClass();
    }

    @Override
    public String[] getClassNames() {
        return engine.policy().classes().stream().map(ClassPolicy::name).toArray(String[]::new);
    }

    @Override
    public int getMaxExecuting() {
        return engine.settings().maxExecuting();
    }

    @Override
    public void setMaxExecuting(int maxExecuting) {
        if (maxExecuting > MAX_EXECUTING_LIMIT) {
            throw Refusals.refuse("MaxExecuting", maxExecuting, "must be at most " + MAX_EXECUTING_LIMIT);
        }
        try {
            engine.setMaxExecuting(maxExecuting); // checks the lower bound: 1 and the reserves the policy gives
        } catch (IllegalArgumentException e) {
            throw Refusals.refuse("MaxExecuting", maxExecuting, e.getMessage());
        }
    }

    @Override
    public int getCeiling() {
        return engine.settings().ceiling();
    }

    @Override
    public int getExecuting() {
        return engine.snapshot().executing();
    }

    @Override
    public int getQueued() {
        return engine.snapshot().queued();
    }

    @Override
    public String getSettingsSource() {
        return engine.settings().source().name();
    }

    @Override
    public long getSessions() {
        return engine.snapshot().sessions().tableSize();
    }

    @Override
    public long getExempt() {
        return engine.snapshot().exempt();
    }

    @Override
    public int getStreams() {
        return engine.snapshot().streams();
    }

    @Override
    public ClassStatistics[] getClasses() {
        EngineSnapshot s = engine.snapshot();
        return s.classes().stream().map(baseline::of).toArray(ClassStatistics[]::new);
    }

    @Override
    public String getStatisticsSince() {
        return baseline.since().toString();
    }

    @Override
    public boolean isReloadable() {
        return engine.reloadable();
    }

    @Override
    public String reloadPolicy() {
        QosPolicy p;
        try {
            p = engine.reloadPolicy();
        } catch (PolicyException e) {
            // a plain JDK exception with the same message, for a client without servlet-qos's classes
            throw new IllegalArgumentException("reloadPolicy refused, the policy in force is unchanged: "
                    + e.getMessage());
        } catch (IllegalStateException e) {
            throw new IllegalStateException("reloadPolicy: " + e.getMessage());
        }
        return "reloaded: classes " + p.classes().stream().map(ClassPolicy::name).toList() + ", scheduling "
                + p.scheduling().key() + ", max-executing " + engine.settings().maxExecuting();
    }

    @Override
    public void resetStatistics() {
        baseline.reset(engine.snapshot(), Instant.now());
    }
}

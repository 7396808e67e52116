package dev.servletqos.jmx;

import dev.servletqos.ClassStats;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import java.time.Duration;
import java.util.Map;
import java.util.function.UnaryOperator;

/** {@link QosServiceClassMXBean} over one class of one engine. */
final class ServiceClassBean implements QosServiceClassMXBean {

    /** The longest delay target (as the policy's {@code delay-target}). */
    static final long MAX_DELAY_TARGET_MILLIS = Duration.ofHours(1).toMillis();
    static final double MAX_SESSION_RATE = 1e9;
    static final int MAX_SESSION_BURST = 1_000_000;

    static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry("Name", "The class"),
            Map.entry("Priority", "Its place in the policy, 0 = highest priority"),
            Map.entry("Budget", "Concurrency permits (writable: 0..MaxExecuting)"),
            Map.entry("MinBudget", "The lowest budget the controller may set (writable: 0..MaxExecuting)"),
            Map.entry("DelayTargetMillis", "The delay target in ms, the controller's reference (writable: 1..3600000)"),
            Map.entry("SessionRate", "New sessions admitted per second, 0 = no limit (writable: 0..1e9)"),
            Map.entry("SessionBurst", "The session token bucket's depth (writable: 1..1000000)"),
            Map.entry("ContentLevel", "The content level m, full at ContentLevels, 0 refuses new sessions "
                    + "(writable: 0..ContentLevels)"),
            Map.entry("ContentLevels", "The content levels M, the level of full content (the policy's)"),
            Map.entry("Reserve", "Permits never lent to other classes, in force (the policy's; the highest class's "
                    + "default reserve is 0 while MaxExecuting is below the other reserves plus 2)"),
            Map.entry("Weight", "Share under the weighted policy (the policy's)"),
            Map.entry("MaxQueue", "The most requests that may wait (the policy's)"),
            Map.entry("MaxWaitMillis", "The longest a request may wait, in ms (the policy's)"),
            Map.entry("Executing", "Requests holding a permit now"),
            Map.entry("Queued", "Requests waiting now"),
            Map.entry("Statistics", "The class's counters since the engine's StatisticsSince, from one snapshot"));

    private final QosEngine engine;
    /** The class, found by name at every call: a reloaded policy may have moved it (or removed it). */
    private final String name;
    private final StatisticsBaseline baseline;

    ServiceClassBean(QosEngine engine, String name, StatisticsBaseline baseline) {
        this.engine = engine;
        this.name = name;
        this.baseline = baseline;
    }

    /** The class's place in {@code s}. */
    private int indexIn(Settings s) {
        for (int i = 0; i < s.classes().size(); i++) {
            if (s.get(i).name().equals(name)) {
                return i;
            }
        }
        throw gone();
    }

    private IllegalStateException gone() {
        return new IllegalStateException("the class " + name + " is no longer in the engine's policy (reloaded)");
    }

    private ClassPolicy policy() {
        QosPolicy p = engine.policy();
        int i = p.classIndex(name);
        if (i < 0) {
            throw gone();
        }
        return p.classes().get(i);
    }

    private Settings.ClassSettings settings() {
        Settings s = engine.settings();
        return s.get(indexIn(s));
    }

    private ClassStats stats() {
        ClassStats c = engine.snapshot().get(name);
        if (c == null) {
            throw gone();
        }
        return c;
    }

    /** Changes this class's settings through the engine's seam, as an operator. */
    private void update(UnaryOperator<Settings.ClassSettings> change) {
        engine.update(s -> {
            int i = indexIn(s);
            return s.withClass(i, change.apply(s.get(i)));
        });
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public int getPriority() {
        return indexIn(engine.settings());
    }

    @Override
    public int getBudget() {
        return settings().budget();
    }

    @Override
    public void setBudget(int budget) {
        engine.update(s -> {
            if (budget < 0 || budget > s.maxExecuting()) {
                throw Refusals.refuse("Budget", budget, "must be 0.." + s.maxExecuting() + " (MaxExecuting)");
            }
            return s.withClass(indexIn(s), s.get(indexIn(s)).withBudget(budget));
        });
    }

    @Override
    public int getMinBudget() {
        return settings().minBudget();
    }

    @Override
    public void setMinBudget(int minBudget) {
        engine.update(s -> {
            if (minBudget < 0 || minBudget > s.maxExecuting()) {
                throw Refusals.refuse("MinBudget", minBudget, "must be 0.." + s.maxExecuting() + " (MaxExecuting)");
            }
            return s.withClass(indexIn(s), s.get(indexIn(s)).withMinBudget(minBudget));
        });
    }

    @Override
    public long getDelayTargetMillis() {
        return settings().delayTarget().toMillis();
    }

    @Override
    public void setDelayTargetMillis(long millis) {
        if (millis < 1 || millis > MAX_DELAY_TARGET_MILLIS) {
            throw Refusals.refuse("DelayTargetMillis", millis, "must be 1.." + MAX_DELAY_TARGET_MILLIS
                    + " (1 ms..1 h)");
        }
        update(c -> c.withDelayTarget(Duration.ofMillis(millis)));
    }

    @Override
    public double getSessionRate() {
        return settings().sessionRate();
    }

    @Override
    public void setSessionRate(double perSecond) {
        if (!(perSecond >= 0 && perSecond <= MAX_SESSION_RATE)) {
            throw Refusals.refuse("SessionRate", perSecond, "must be 0 (no limit) or a positive number up to 1e9");
        }
        update(c -> c.withSessionRate(perSecond, c.sessionBurst()));
    }

    @Override
    public int getSessionBurst() {
        return settings().sessionBurst();
    }

    @Override
    public void setSessionBurst(int burst) {
        if (burst < 1 || burst > MAX_SESSION_BURST) {
            throw Refusals.refuse("SessionBurst", burst, "must be 1.." + MAX_SESSION_BURST);
        }
        update(c -> c.withSessionRate(c.sessionRate(), burst));
    }

    @Override
    public double getContentLevel() {
        return settings().level();
    }

    @Override
    public void setContentLevel(double level) {
        int levels = policy().content().levels();
        if (!(level >= 0 && level <= levels)) {
            throw Refusals.refuse("ContentLevel", level, "must be 0.." + levels + " (ContentLevels)");
        }
        update(c -> c.withLevel(level));
    }

    @Override
    public int getContentLevels() {
        return policy().content().levels();
    }

    @Override
    public int getReserve() {
        return stats().reserve();
    }

    @Override
    public int getWeight() {
        return policy().capacity().weight();
    }

    @Override
    public int getMaxQueue() {
        return policy().queue().maxQueue();
    }

    @Override
    public long getMaxWaitMillis() {
        return policy().queue().maxWait().toMillis();
    }

    @Override
    public int getExecuting() {
        return stats().executing();
    }

    @Override
    public int getQueued() {
        return stats().queued();
    }

    @Override
    public ClassStatistics getStatistics() {
        return baseline.of(stats());
    }
}

package dev.servletqos.cluster;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

/**
 * A {@link ClusterState} in memory: one instance is the store that several engines of one JVM share (tests, the
 * simulator). It keeps what Redis keeps, with the same times to live, on the clock it is given; {@link #down} makes
 * every call fail, as an unreachable store does. Thread-safe (one lock, held for map updates).
 */
public final class InMemoryClusterState implements ClusterState {

    private final LongSupplier nanoTime;
    /** Node id to its report and when it expires (nanos). */
    private final Map<String, Object[]> reports = new LinkedHashMap<>();
    private final Map<String, Long> revoked = new HashMap<>();
    private long settingsVersion;
    private String settings;
    private volatile boolean down;

    /** A store on the system's {@link System#nanoTime()}. */
    public InMemoryClusterState() {
        this(System::nanoTime);
    }

    /** A store whose times to live run on {@code nanoTime} (a test's fake clock). */
    public InMemoryClusterState(LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
    }

    /** Makes the store unreachable (every call fails at once) or reachable again; {@code lose}: and empty. */
    public synchronized void down(boolean down, boolean lose) {
        this.down = down;
        if (lose) {
            reports.clear();
            revoked.clear();
            settings = null;
            settingsVersion = 0;
        }
    }

    @Override
    public CompletionStage<Exchange> exchange(String nodeId, String report, Duration ttl) {
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("the in-memory store is down"));
        }
        synchronized (this) {
            long now = nanoTime.getAsLong();
            reports.values().removeIf(r -> (long) r[1] - now <= 0);
            revoked.values().removeIf(until -> until - now <= 0);
            reports.put(nodeId, new Object[] {report, now + ttl.toNanos()});
            List<String> live = new ArrayList<>();
            for (Object[] r : reports.values()) {
                live.add((String) r[0]);
            }
            return CompletableFuture.completedFuture(new Exchange(live, settingsVersion, settings,
                    new ArrayList<>(revoked.keySet())));
        }
    }

    @Override
    public CompletionStage<Long> publishSettings(String settings) {
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("the in-memory store is down"));
        }
        synchronized (this) {
            this.settings = settings;
            return CompletableFuture.completedFuture(++settingsVersion);
        }
    }

    @Override
    public CompletionStage<Void> revoke(String subject, Duration ttl) {
        if (down) {
            return CompletableFuture.failedFuture(new IllegalStateException("the in-memory store is down"));
        }
        synchronized (this) {
            revoked.put(subject, nanoTime.getAsLong() + ttl.toNanos());
            return CompletableFuture.completedFuture(null);
        }
    }

    @Override
    public synchronized void leave(String nodeId) {
        if (!down) {
            reports.remove(nodeId);
        }
    }

    @Override
    public String describe() {
        return "in-memory";
    }

    @Override
    public void close() {
        // shared by its nodes: nothing to close
    }
}

package dev.servletqos.cluster.redis;

import dev.servletqos.cluster.ClusterState;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.event.connection.ConnectionActivatedEvent;
import io.lettuce.core.event.connection.ConnectionDeactivatedEvent;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The cluster's store on Redis, through Lettuce (docs/cluster.md). One exchange is one {@code EVAL} of an atomic Lua
 * script ({@code exchange.lua}): the node's heartbeat and report in, every live node's report, the revoked subjects
 * and the published settings out. The script's text is sent each time (no {@code EVALSHA}), so a restarted Redis
 * that lost its script cache needs nothing done.
 *
 * <p>Nothing here waits for Redis but {@link #leave}, once, when the node stops: the connection is opened
 * asynchronously, and again after it is lost (Lettuce reconnects every fifth of a period); while it is down, a call
 * fails at once (commands are refused, not buffered); a call on a frozen server fails at its timeout, a quarter of
 * the period (at least 20 ms, at most 1 s).
 * Thread-safe.
 */
final class RedisClusterState implements ClusterState {

    private static final String EXCHANGE = script("exchange.lua");
    private static final String PUBLISH = "local v = redis.call('HINCRBY', ARGV[1] .. 'settings', 'version', 1) "
            + "redis.call('HSET', ARGV[1] .. 'settings', 'text', ARGV[2]) return v";
    private static final String REVOKE = "local t = redis.call('TIME') "
            + "local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "
            + "redis.call('ZADD', ARGV[1] .. 'revoked', now + tonumber(ARGV[3]), ARGV[2]) return 1";
    private static final String LEAVE = "redis.call('ZREM', ARGV[1] .. 'nodes', ARGV[2]) "
            + "redis.call('DEL', ARGV[1] .. 'node:' .. ARGV[2]) return 1";
    private static final String[] NO_KEYS = new String[0];

    private final String prefix;
    private final RedisURI uri;
    private final ClientResources resources;
    private final RedisClient client;
    private final String describe;
    private final Duration timeout;
    /** Guarded by this: the connection once open, and the attempt to open it under way. */
    private StatefulRedisConnection<String, String> connection;
    private CompletableFuture<StatefulRedisConnection<String, String>> connecting;
    private boolean closed;
    /** Complete when the connection is (again) up, or down; each replaced when it changes (tests wait on them). */
    private volatile CompletableFuture<Void> up = new CompletableFuture<>();
    private volatile CompletableFuture<Void> down = new CompletableFuture<>();

    RedisClusterState(String redis, String prefix, Duration period) {
        this.prefix = prefix;
        this.timeout = timeout(period);
        this.uri = RedisURI.create(redis.trim());
        uri.setTimeout(timeout);
        this.describe = (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ":" + uri.getPort();
        Duration reconnect = period.dividedBy(5);
        this.resources = ClientResources.builder().ioThreadPoolSize(1).computationThreadPoolSize(1)
                .reconnectDelay(Delay.constant(reconnect)).build();
        resources.eventBus().get().subscribe(e -> {
            if (e instanceof ConnectionActivatedEvent) {
                if (down.isDone()) {
                    down = new CompletableFuture<>();
                }
                up.complete(null);
            } else if (e instanceof ConnectionDeactivatedEvent) {
                if (up.isDone()) {
                    up = new CompletableFuture<>();
                }
                down.complete(null);
            }
        });
        this.client = RedisClient.create(resources, uri);
        client.setOptions(ClientOptions.builder()
                .autoReconnect(true)
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                .timeoutOptions(TimeoutOptions.enabled(timeout))
                .socketOptions(SocketOptions.builder().connectTimeout(timeout).build())
                .build());
        connect();
    }

    /** A call's timeout: a quarter of the period, at least 20 ms, at most 1 s. */
    static Duration timeout(Duration period) {
        long ms = Math.max(20, Math.min(1000, period.toMillis() / 4));
        return Duration.ofMillis(ms);
    }

    /**
     * The connection: open, or being opened (one attempt at a time, bounded by the timeout); fails at once when
     * closed.
     */
    private synchronized CompletableFuture<StatefulRedisConnection<String, String>> connect() {
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException(describe + ": closed"));
        }
        if (connection != null) {
            return CompletableFuture.completedFuture(connection);
        }
        if (connecting == null) {
            CompletableFuture<StatefulRedisConnection<String, String>> c = client.connectAsync(StringCodec.UTF8, uri)
                    .toCompletableFuture();
            connecting = c;
            c.whenComplete((conn, e) -> opened(c, conn));
        }
        return connecting;
    }

    private synchronized void opened(CompletableFuture<?> attempt, StatefulRedisConnection<String, String> conn) {
        if (connecting == attempt) {
            connecting = null;
        }
        if (conn != null) {
            if (closed || connection != null) {
                conn.closeAsync();
            } else {
                connection = conn;
            }
        }
    }

    private <T> CompletionStage<T> eval(String script, ScriptOutputType type, String... args) {
        return connect().thenCompose(c -> c.async().<T>eval(script, type, NO_KEYS, args));
    }

    @Override
    public CompletionStage<Exchange> exchange(String nodeId, String report, Duration ttl) {
        return this.<List<Object>>eval(EXCHANGE, ScriptOutputType.MULTI, prefix, nodeId, report,
                Long.toString(ttl.toMillis())).thenApply(RedisClusterState::exchangeOf);
    }

    @SuppressWarnings("unchecked")
    private static Exchange exchangeOf(List<Object> r) {
        List<String> reports = new ArrayList<>();
        for (Object o : (List<Object>) r.get(0)) {
            reports.add(text(o));
        }
        List<String> revoked = new ArrayList<>();
        for (Object o : (List<Object>) r.get(1)) {
            revoked.add(text(o));
        }
        long version = Long.parseLong(text(r.get(2)));
        String settings = text(r.get(3));
        return new Exchange(reports, version, settings.isEmpty() ? null : settings, revoked);
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(o);
    }

    @Override
    public CompletionStage<Long> publishSettings(String settings) {
        return eval(PUBLISH, ScriptOutputType.INTEGER, prefix, settings);
    }

    @Override
    public CompletionStage<Void> revoke(String subject, Duration ttl) {
        return this.<Long>eval(REVOKE, ScriptOutputType.INTEGER, prefix, subject, Long.toString(ttl.toMillis()))
                .thenApply(x -> null);
    }

    /**
     * Waits for the script, at most twice the call's timeout: the other nodes' next exchange, on their own
     * connections, must not reach Redis first, and the close that follows a stop must not drop it.
     */
    @Override
    public void leave(String nodeId) {
        try {
            eval(LEAVE, ScriptOutputType.INTEGER, prefix, nodeId).toCompletableFuture()
                    .get(2 * timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // best effort: the node's report expires with its heartbeat's time to live
        }
    }

    /** Completes once the connection to Redis is up (now, or when it comes back); for tests. */
    CompletableFuture<Void> whenConnected() {
        return up;
    }

    /** Completes once the connection to Redis is lost (now, or when it goes); for tests. */
    CompletableFuture<Void> whenDisconnected() {
        return down;
    }

    @Override
    public String describe() {
        return describe;
    }

    @Override
    public void close() {
        StatefulRedisConnection<String, String> c;
        synchronized (this) {
            closed = true;
            c = connection;
            connection = null;
        }
        if (c != null) {
            c.closeAsync();
        }
        // the client's and the resources' threads end in the background: a stop does not wait for Redis
        client.shutdownAsync(0, 2, TimeUnit.SECONDS).whenComplete((x, e) -> resources.shutdown(0, 2,
                TimeUnit.SECONDS));
    }

    private static String script(String name) {
        try (InputStream in = RedisClusterState.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from qos-cluster-redis");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}

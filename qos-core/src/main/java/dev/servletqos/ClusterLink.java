package dev.servletqos;

import dev.servletqos.cluster.ClusterSettings;
import dev.servletqos.cluster.ClusterState;
import dev.servletqos.cluster.ClusterStatus;
import dev.servletqos.cluster.NodeReport;
import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.ClassPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * This node's link to its cluster (docs/cluster.md): once a period, on the engine's {@link Periodic} seam, one
 * exchange with the shared {@link ClusterState}. It reports the node's demand on each capped class and bucket, the
 * addresses asking it most new sessions and its status; from every live node's report it takes the node count, this
 * node's leases (its share of each cluster rate, following its demand), what the other nodes saw of each address,
 * the live settings published and the revoked tier-cookie subjects, and puts them into local fields. The request path
 * reads only those fields: it never waits for the store.
 *
 * <p>A lease holds for {@value #LEASE_PERIODS} periods. When no exchange succeeded for that long (the store is down,
 * frozen or slow), the node runs {@code local-only}: each cap falls to the cluster rate divided by the last known node
 * count (never closed, never unlimited), and the addresses count on this node alone. The log says it once per outage,
 * and once when the cluster is back. An exchange still pending at the next period is not sent again: a frozen store
 * costs no thread and no pile of calls.
 *
 * <p>Thread-safe: the periodic thread and the store's threads (which complete the exchanges) meet under this
 * object's lock; the engine's state changes under its own locks.
 */
public final class ClusterLink {

    private static final System.Logger LOG = System.getLogger(ClusterLink.class.getName());

    /** Periods a lease holds without a new exchange; a node's report lives one period more in the store. */
    static final int LEASE_PERIODS = 2;
    /** Part of a cluster rate shared evenly among the nodes, the rest following demand: a quiet node may start. */
    static final double EVEN_PART = 0.05;
    /** How long a revocation lasts in the store: as long as a tier cookie may live. */
    static final Duration REVOCATION_TTL = Duration.ofDays(400);

    private final QosEngine engine;
    private final ClusterState state;
    private final String nodeId;
    private final long periodNanos;
    private final Duration ttl;

    // guarded by this
    private CompletableFuture<Void> inFlight;
    private long lastOk;
    private boolean everOk;
    private int lastNodes = 1;
    private boolean localOnly = true;
    private boolean outageLogged;
    private long exchanges;
    private long failures;
    private long reportedAt;
    private boolean reportedOnce;
    private final Map<String, Long> asked = new HashMap<>();
    private long settingsVersion;
    /** The live settings this node applied last from the cluster or published, to publish again if the store lost them. */
    private Map<String, String> settings;
    private List<NodeReport> members = List.of();
    private Periodic.Cancellable task;
    private volatile ClusterStatus status;

    ClusterLink(QosEngine engine, ClusterState state, String nodeId, Duration period) {
        this.engine = engine;
        this.state = state;
        this.nodeId = nodeId;
        this.periodNanos = period.toNanos();
        this.ttl = period.multipliedBy(LEASE_PERIODS + 1);
        this.status = statusLocked();
    }

    /**
     * Makes {@code engine} a node of a cluster sharing {@code state} (docs/cluster.md), before it starts: from start on
     * it exchanges with the store every {@code period}. The runtime calls it when {@code cluster.redis} is set; a
     * stopped engine may join again (the new link replaces the old).
     *
     * @return the link: its status, and what an operator publishes to every node
     * @throws IllegalStateException if the engine is started
     */
    public static ClusterLink join(QosEngine engine, ClusterState state, String nodeId, Duration period) {
        ClusterLink link = new ClusterLink(engine, state, nodeId, period);
        engine.joined(link);
        return link;
    }

    /** Runs the exchange every period on {@code periodic}, after putting the local-only caps in force. */
    synchronized void start(Periodic periodic) {
        localCapsLocked(engine.clock().nanoTime());
        task = periodic.schedule(this::exchangeNow, Duration.ofNanos(periodNanos));
    }

    /** Stops the exchange and leaves the cluster (the other nodes count one fewer at their next exchange). */
    synchronized void stop() {
        if (task != null) {
            task.cancel();
            task = null;
        }
        if (everOk) {
            try {
                state.leave(nodeId);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.DEBUG, "servlet-qos: leaving the cluster failed", e);
            }
        }
    }

    /** This node's id in the cluster ({@code cluster.node-id}). */
    public String nodeId() {
        return nodeId;
    }

    /** What this node knows of the cluster now; never null. */
    public ClusterStatus status() {
        return status;
    }

    /**
     * One exchange now (the periodic task; tests call it to drive the cluster by hand). Returns at once; the stage
     * completes when what came back is in force, or the exchange failed (never exceptionally). An exchange still
     * pending is not sent again: its stage is returned.
     */
    public CompletableFuture<Void> exchangeNow() {
        NodeReport report;
        CompletableFuture<Void> f = new CompletableFuture<>();
        synchronized (this) {
            long now = engine.clock().nanoTime();
            lapseLocked(now);
            if (inFlight != null && !inFlight.isDone()) {
                return inFlight;
            }
            report = reportLocked(now);
            inFlight = f;
        }
        // outside this lock: a store that answers at once runs the completion here, and applying published settings
        // takes the control loop's lock, which is held while the loop starts or stops this link
        try {
            state.exchange(nodeId, report.encode(), ttl).whenComplete((x, e) -> {
                try {
                    if (e != null) {
                        failed(e);
                    } else {
                        received(x, report);
                    }
                } finally {
                    f.complete(null);
                }
            });
        } catch (RuntimeException e) {
            failed(e);
            f.complete(null);
        }
        return f;
    }

    /**
     * Publishes live settings for every node ({@link ClusterSettings#KEYS}): they are checked and put in force here
     * at once through the settings seam, and every other node applies them at its next exchange.
     *
     * @throws IllegalArgumentException naming the key and value of a setting this node cannot apply
     */
    public CompletableFuture<Long> publishSettings(Map<String, String> settings) {
        applySettings(settings, true);
        synchronized (this) {
            this.settings = Map.copyOf(settings);
        }
        return state.publishSettings(ClusterSettings.encode(settings)).toCompletableFuture();
    }

    /** Revokes a tier-cookie subject on every node, from this node's next exchange on (here at once). */
    public CompletableFuture<Void> revoke(String subject) {
        if (subject == null || subject.isEmpty() || subject.indexOf('\n') >= 0) {
            throw new IllegalArgumentException("subject = " + subject + ": must be one line, not empty");
        }
        engine.tierCookies().revokedAlso(java.util.List.of(subject));
        return state.revoke(subject, REVOCATION_TTL).toCompletableFuture();
    }

    private synchronized void failed(Throwable e) {
        failures++;
        if (!outageLogged) {
            outageLogged = true;
            Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                    ? e.getCause() : e;
            LOG.log(System.Logger.Level.WARNING, "servlet-qos: the cluster store " + state.describe() + " did not "
                    + "answer (" + cause + "); this node keeps its leases for " + LEASE_PERIODS + " periods, then "
                    + "runs local-only: each cluster rate divided by the last known node count (" + lastNodes
                    + "). Said once per outage");
        }
        status = statusLocked();
    }

    private void received(ClusterState.Exchange x, NodeReport mine) {
        Map<String, String> publish = null;
        Map<String, String> republish = null;
        List<String> lost = List.of();
        synchronized (this) {
            long now = engine.clock().nanoTime();
            List<NodeReport> nodes = new ArrayList<>();
            for (String r : x.reports()) {
                NodeReport n = NodeReport.decode(r);
                if (n != null) {
                    nodes.add(n);
                }
            }
            exchanges++;
            lastOk = now;
            everOk = true;
            lastNodes = Math.max(1, nodes.size());
            members = nodes;
            if (localOnly) {
                localOnly = false;
                LOG.log(System.Logger.Level.INFO, "servlet-qos: node " + nodeId + " shares its limits through "
                        + state.describe() + (exchanges > 1 ? " again" : "") + ": " + lastNodes + " nodes");
            }
            outageLogged = false;
            leasesLocked(mine, nodes, now);
            if (x.settingsVersion() < settingsVersion) {
                // the store lost its keys (a restart): the settings in force here go back, for the nodes to come
                settingsVersion = x.settingsVersion();
                if (settings != null) {
                    republish = settings;
                }
            } else if (x.settingsVersion() > settingsVersion && x.settings() != null) {
                settingsVersion = x.settingsVersion();
                publish = ClusterSettings.decode(x.settings());
                settings = publish;
            }
            // revocations are never undone: the ones known here stay, and go back to a store that lost them
            engine.tierCookies().revokedAlso(x.revoked());
            if (x.revoked().size() < engine.tierCookies().revokedCount()) {
                lost = new ArrayList<>(engine.tierCookies().revoked());
                lost.removeAll(x.revoked());
            }
            status = statusLocked();
        }
        if (republish != null) {
            state.publishSettings(ClusterSettings.encode(republish));
        }
        for (String subject : lost) {
            state.revoke(subject, REVOCATION_TTL);
        }
        if (publish != null) {
            try {
                applySettings(publish, false);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "servlet-qos: the cluster's live settings version "
                        + x.settingsVersion() + " were not applied: " + e.getMessage());
            }
        }
    }

    /** Leases lapsed: local-only from now, the caps at the last known share. */
    private void lapseLocked(long now) {
        if (!localOnly && now - lastOk > LEASE_PERIODS * periodNanos) {
            localOnly = true;
            LOG.log(System.Logger.Level.WARNING, "servlet-qos: node " + nodeId + " runs local-only: no answer from "
                    + state.describe() + " for " + LEASE_PERIODS + " periods; each cluster rate divided by "
                    + lastNodes + " nodes until it answers");
            outageLogged = true;
            localCapsLocked(now);
            status = statusLocked();
        }
    }

    /** The caps while local-only: each cluster rate divided by the last known node count; no address seen elsewhere. */
    private void localCapsLocked(long now) {
        List<ClassPolicy> classes = engine.policy().classes();
        double[] caps = new double[classes.size()];
        for (int i = 0; i < caps.length; i++) {
            caps[i] = classes.get(i).admission().clusterSessionRate() / lastNodes;
        }
        RequestBuckets buckets = engine.regime().buckets;
        double[] bucketCaps = new double[buckets.size()];
        for (int i = 0; i < bucketCaps.length; i++) {
            bucketCaps[i] = buckets.policy(i).clusterRate() / lastNodes;
        }
        putLocked(caps, bucketCaps, Map.of(), now);
    }

    /** The leases of this exchange: each cluster rate shared by demand ({@link #share}), and the addresses elsewhere. */
    private void leasesLocked(NodeReport mine, List<NodeReport> nodes, long now) {
        int n = lastNodes;
        List<ClassPolicy> classes = engine.policy().classes();
        double[] caps = new double[classes.size()];
        for (int i = 0; i < caps.length; i++) {
            double rate = classes.get(i).admission().clusterSessionRate();
            if (rate > 0) {
                String name = classes.get(i).name();
                double total = 0;
                for (NodeReport r : nodes) {
                    total += r.classes().getOrDefault(name, 0.0);
                }
                caps[i] = share(rate, mine.classes().getOrDefault(name, 0.0), total, n);
            }
        }
        RequestBuckets buckets = engine.regime().buckets;
        double[] bucketCaps = new double[buckets.size()];
        for (int i = 0; i < bucketCaps.length; i++) {
            BucketPolicy b = buckets.policy(i);
            if (b.clusterRate() > 0) {
                double total = 0;
                for (NodeReport r : nodes) {
                    total += r.buckets().getOrDefault(b.name(), 0.0);
                }
                bucketCaps[i] = share(b.clusterRate(), mine.buckets().getOrDefault(b.name(), 0.0), total, n);
            }
        }
        Map<String, AddressSessions.Elsewhere> seen = new HashMap<>();
        for (NodeReport r : nodes) {
            if (r.nodeId().equals(nodeId)) {
                continue;
            }
            for (NodeReport.Address a : r.addresses()) {
                AddressSessions.Elsewhere e = seen.get(a.address());
                seen.put(a.address(), e == null ? new AddressSessions.Elsewhere(a.demand(), a.admitted(), a.held())
                        : new AddressSessions.Elsewhere(e.demand() + a.demand(), e.admitted() + a.admitted(),
                        e.held() || a.held()));
            }
        }
        putLocked(caps, bucketCaps, seen, now);
    }

    /**
     * This node's lease of a cluster {@code rate}: {@value #EVEN_PART} of it shared evenly among the {@code nodes},
     * the rest by demand ({@code mine} of {@code total}, per second). The leases of all nodes add up to the rate.
     */
    static double share(double rate, double mine, double total, int nodes) {
        double even = rate * EVEN_PART;
        return rate * (mine + even / nodes) / (total + even);
    }

    private void putLocked(double[] caps, double[] bucketCaps, Map<String, AddressSessions.Elsewhere> seen,
                           long now) {
        Scheduler scheduler = engine.scheduler();
        scheduler.locked(a -> {
            Lane[] lanes = scheduler.lanes();
            List<ClassPolicy> classes = engine.policy().classes();
            for (Lane l : lanes) {
                for (int i = 0; i < classes.size() && i < caps.length; i++) {
                    if (classes.get(i).name().equals(l.name)) {
                        l.clusterCap(caps[i], now);
                    }
                }
            }
            a.elsewhereLocked(seen);
            return null;
        });
        RequestBuckets buckets = engine.regime().buckets;
        for (int i = 0; i < bucketCaps.length && i < buckets.size(); i++) {
            buckets.clusterCap(i, bucketCaps[i], now);
        }
    }

    /** This period's report: demand since the last one, the hot addresses, the status. */
    private NodeReport reportLocked(long now) {
        EngineSnapshot s = engine.snapshot();
        double seconds = reportedOnce ? Math.max(1e-3, (now - reportedAt) / 1e9) : 0;
        Map<String, Double> classes = new HashMap<>();
        long entered = 0;
        long rejected = 0;
        for (ClassStats c : s.classes()) {
            entered += c.entered();
            rejected += c.rejected();
            ClassPolicy p = policyOf(c.name());
            if (p == null || !(p.admission().clusterSessionRate() > 0)) {
                continue;
            }
            long n = c.sessionsAdmitted();
            for (Rejection.Reason r : Rejection.Reason.all()) {
                n += r.newSession() ? c.refused(r) : 0;
            }
            classes.put(c.name(), rate(n, "class " + c.name(), seconds));
        }
        Map<String, Double> buckets = new HashMap<>();
        RequestBuckets rb = engine.regime().buckets;
        for (EngineSnapshot.BucketStats b : s.buckets()) {
            for (int i = 0; i < rb.size(); i++) {
                if (rb.name(i).equals(b.name()) && rb.policy(i).clusterRate() > 0) {
                    buckets.put(b.name(), rate(b.hits(), "bucket " + b.name(), seconds));
                }
            }
        }
        List<NodeReport.Address> addresses = new ArrayList<>();
        for (AddressSessions.Hot h : engine.scheduler().locked(a -> a.hotLocked(NodeReport.MAX_ADDRESSES, now))) {
            addresses.add(new NodeReport.Address(h.address(), h.demand(), h.admitted(),
                    h.held() >= AddressSessions.UNMET));
        }
        Map<String, String> st = new java.util.LinkedHashMap<>();
        st.put("state", localOnly ? "local-only" : "cluster");
        st.put("max-executing", Integer.toString(s.maxExecuting()));
        st.put("executing", Integer.toString(s.executing()));
        st.put("queued", Integer.toString(s.queued()));
        st.put("entered", Long.toString(entered));
        st.put("rejected", Long.toString(rejected));
        reportedAt = now;
        reportedOnce = true;
        return new NodeReport(nodeId, classes, buckets, addresses, st);
    }

    /** The rate of a counter since the last report, per second (0 at the first). */
    private double rate(long count, String key, double seconds) {
        Long before = asked.put(key, count);
        return seconds > 0 && before != null ? Math.max(0, count - before) / seconds : 0;
    }

    private ClassPolicy policyOf(String name) {
        for (ClassPolicy c : engine.policy().classes()) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /**
     * Puts published settings in force through the settings seam ({@link QosEngine#update}); keys of classes or
     * buckets this node does not have are skipped when they come from the cluster, refused when {@code strict}.
     */
    private void applySettings(Map<String, String> settings, boolean strict) {
        engine.update(s -> {
            Settings out = s;
            for (Map.Entry<String, String> e : settings.entrySet()) {
                String k = e.getKey();
                String v = e.getValue();
                try {
                    out = LiveKeys.apply(out, k, v);
                } catch (NumberFormatException ex) {
                    throw new IllegalArgumentException(k + " = " + v + ": not a number");
                } catch (IllegalArgumentException ex) {
                    if (strict || !ex.getMessage().startsWith(LiveKeys.UNKNOWN)) {
                        throw ex;
                    }
                }
            }
            return out;
        });
    }

    private ClusterStatus statusLocked() {
        return new ClusterStatus(state.describe(), nodeId, localOnly, lastNodes, localOnly ? List.of() : members,
                exchanges, failures, settingsVersion, engine.tierCookies().revokedCount());
    }
}

package dev.servletqos;

import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.ValueMatcher;
import dev.servletqos.policy.VirtualServerPolicy;
import java.util.ArrayList;
import java.util.List;

/**
 * The virtual servers of the policy (paper 000 section 5.1): per set of Host names a guarantee of {@code rmax}
 * requests per second and, within it, {@code wmax} response bytes per second. A request of a virtual server is
 * <em>guaranteed</em> while its request bucket (rate {@code rmax}, depth one second of it) has a token and its
 * byte credit (refilled at {@code wmax}, at most one second of it, spent by the guaranteed responses' bytes)
 * is not used up. The scheduler never refuses a guaranteed request (neither admission nor the token-bucket
 * rules nor a full queue) and starts it before any request that is not guaranteed; the excess of a virtual
 * server is served like any other request. Thread-safe: one lock per virtual server.
 *
 * <p>A reloaded policy gets new virtual servers ({@link #VirtualServers(QosPolicy, VirtualServers)}): one whose
 * name and settings stay is carried over whole (its tokens, byte credit and counters), one whose settings changed
 * starts full with its counters carried on, a new one starts full. A request keeps the virtual server it entered
 * under ({@link Host}), so its response's bytes are counted there.
 */
final class VirtualServers {

    /** One virtual server; a request holds the one it entered under. */
    static final class Host {
        final VirtualServerPolicy policy;
        final String name;
        final ValueMatcher hosts;
        final TokenBucket requests;
        final double bytesPerNano;
        final double byteDepth;
        double byteCredit;
        long bytesNanos;
        boolean bytesStarted;
        long seen;
        long guaranteed;
        long guaranteedBytes;

        Host(VirtualServerPolicy p) {
            this.policy = p;
            this.name = p.name();
            this.hosts = p.hostMatcher();
            this.requests = new TokenBucket(p.rmax(), (int) Math.max(1, Math.min(1_000_000, Math.ceil(p.rmax()))));
            this.bytesPerNano = p.wmax() / 1e9;
            this.byteDepth = p.wmax();
            this.byteCredit = p.wmax();
        }

        void refillBytes(long now) {
            if (!bytesStarted) {
                bytesStarted = true;
                bytesNanos = now;
                return;
            }
            long elapsed = now - bytesNanos;
            if (elapsed > 0) {
                byteCredit = Math.min(byteDepth, byteCredit + elapsed * bytesPerNano);
                bytesNanos = now;
            }
        }
    }

    private final Host[] hosts;

    VirtualServers(QosPolicy policy) {
        this(policy, null);
    }

    /** The virtual servers of a reloaded policy, carried over by name from {@code previous} (null: none). */
    VirtualServers(QosPolicy policy, VirtualServers previous) {
        List<VirtualServerPolicy> list = policy.virtualServers();
        this.hosts = new Host[list.size()];
        for (int i = 0; i < hosts.length; i++) {
            VirtualServerPolicy p = list.get(i);
            Host was = previous == null ? null : previous.named(p.name());
            if (was != null && was.policy.equals(p)) {
                hosts[i] = was;
                continue;
            }
            Host h = new Host(p);
            if (was != null) {
                synchronized (was) {
                    h.seen = was.seen;
                    h.guaranteed = was.guaranteed;
                    h.guaranteedBytes = was.guaranteedBytes;
                }
            }
            hosts[i] = h;
        }
    }

    private Host named(String name) {
        for (Host h : hosts) {
            if (h.name.equals(name)) {
                return h;
            }
        }
        return null;
    }

    boolean isEmpty() {
        return hosts.length == 0;
    }

    /** The virtual server serving {@code host} (the first whose names match), or null. */
    Host of(String host) {
        for (Host h : hosts) {
            if (h.hosts.matches(host)) {
                return h;
            }
        }
        return null;
    }

    /** Counts a request of virtual server {@code h}; whether it is within the guarantee (it takes a token). */
    static boolean take(Host h, long now) {
        synchronized (h) {
            h.seen++;
            h.refillBytes(now);
            if (h.byteCredit > 0 && h.requests.available(now)) {
                h.requests.take();
                h.guaranteed++;
                return true;
            }
            return false;
        }
    }

    /** A guaranteed request of virtual server {@code h} sent {@code bytes} (negative: unknown). */
    static void delivered(Host h, long bytes, long now) {
        if (bytes <= 0) {
            return;
        }
        synchronized (h) {
            h.refillBytes(now);
            h.byteCredit -= bytes;
            h.guaranteedBytes += bytes;
        }
    }

    /** Each virtual server's counters now. */
    List<EngineSnapshot.HostStats> stats() {
        List<EngineSnapshot.HostStats> s = new ArrayList<>(hosts.length);
        for (Host h : hosts) {
            synchronized (h) {
                s.add(new EngineSnapshot.HostStats(h.name, h.seen, h.guaranteed, h.guaranteedBytes));
            }
        }
        return s;
    }
}

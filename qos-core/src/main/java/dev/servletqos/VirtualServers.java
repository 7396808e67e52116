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
 */
final class VirtualServers {

    private static final class Host {
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
        List<VirtualServerPolicy> list = policy.virtualServers();
        this.hosts = new Host[list.size()];
        for (int i = 0; i < hosts.length; i++) {
            hosts[i] = new Host(list.get(i));
        }
    }

    boolean isEmpty() {
        return hosts.length == 0;
    }

    /** The virtual server serving {@code host} (the first whose names match), or -1. */
    int of(String host) {
        for (int i = 0; i < hosts.length; i++) {
            if (hosts[i].hosts.matches(host)) {
                return i;
            }
        }
        return -1;
    }

    /** Counts a request of virtual server {@code i}; whether it is within the guarantee (it takes a token). */
    boolean take(int i, long now) {
        Host h = hosts[i];
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

    /** A guaranteed request of virtual server {@code i} sent {@code bytes} (negative: unknown). */
    void delivered(int i, long bytes, long now) {
        if (bytes <= 0) {
            return;
        }
        Host h = hosts[i];
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

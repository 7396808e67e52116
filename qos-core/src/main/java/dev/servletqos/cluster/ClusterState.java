package dev.servletqos.cluster;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The store the nodes of a cluster share (docs/cluster.md): each node, once a period, writes its report and reads the
 * reports of every live node in one atomic step. The engine never calls it on the request path: only its periodic
 * exchange does, and what it gets back goes into local fields the request path reads. The store knows nothing of the
 * reports' contents ({@link NodeReport} encodes them); it keeps each for a time to live, so that a node that stops
 * drops out by itself.
 *
 * <p>Every method returns at once: the work is done asynchronously and the returned stage completes, exceptionally
 * if need be, within the store's timeout (well under a period). An implementation must be thread-safe.
 * {@code qos-cluster-redis} implements it on Redis; {@link InMemoryClusterState} in memory, for tests.
 */
public interface ClusterState extends AutoCloseable {

    /**
     * One exchange: stores {@code report} as node {@code nodeId}'s, alive for {@code ttl}, and returns every live
     * node's report (this one's included), the live settings last published and the subjects revoked now.
     */
    CompletionStage<Exchange> exchange(String nodeId, String report, Duration ttl);

    /**
     * Publishes live settings for every node to apply ({@link dev.servletqos.cluster.ClusterSettings} encodes them);
     * completes with their version (each publication gets a higher one).
     */
    CompletionStage<Long> publishSettings(String settings);

    /** Revokes a tier-cookie subject on every node for {@code ttl} (the longest a tier cookie lives). */
    CompletionStage<Void> revoke(String subject, Duration ttl);

    /**
     * Removes node {@code nodeId}'s report now (a node that stops). Best effort, but it returns only once the store
     * has it, or after a short bound (a store that does not answer): an exchange made after it, by any node, no
     * longer counts this node.
     */
    void leave(String nodeId);

    /** What logs and the status page call the store: {@code redis://host:port}, without credentials. */
    String describe();

    /** Closes the store's connections; the stages pending complete exceptionally. */
    @Override
    void close();

    /**
     * What one exchange returns.
     *
     * @param reports         the reports of the live nodes, this one's included, as {@link NodeReport#encode()} wrote them
     * @param settingsVersion the version of the live settings last published, 0: none
     * @param settings        those settings ({@link ClusterSettings#encode}), or null
     * @param revoked         the tier-cookie subjects revoked now
     */
    record Exchange(List<String> reports, long settingsVersion, String settings, List<String> revoked) {

        public Exchange {
            reports = List.copyOf(reports);
            revoked = List.copyOf(revoked);
        }
    }
}

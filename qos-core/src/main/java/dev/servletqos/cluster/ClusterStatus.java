package dev.servletqos.cluster;

import java.util.List;

/**
 * What one node knows of its cluster, for the status page, its JSON and the JMX beans. Immutable.
 *
 * @param store      the store ({@link ClusterState#describe()})
 * @param nodeId     this node
 * @param localOnly  whether the node runs on local limits now: the store did not answer for two periods, or
 *                   has not answered yet
 * @param nodes      the live nodes at the last exchange, or the last known count while local-only
 * @param members    each live node's last report, this node's included (empty while never exchanged)
 * @param exchanges  exchanges that succeeded since start
 * @param failures   exchanges that failed or timed out since start
 * @param settingsVersion the version of the published live settings this node applied last, 0: none
 * @param revoked    tier-cookie subjects revoked on the cluster now
 */
public record ClusterStatus(String store, String nodeId, boolean localOnly, int nodes, List<NodeReport> members,
                            long exchanges, long failures, long settingsVersion, int revoked) {

    public ClusterStatus {
        members = List.copyOf(members);
    }

    /** {@code cluster} or {@code local-only}, as the status page and the meters say it. */
    public String state() {
        return localOnly ? "local-only" : "cluster";
    }
}

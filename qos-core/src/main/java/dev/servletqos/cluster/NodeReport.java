package dev.servletqos.cluster;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one node tells the cluster each period: its demand on each capped class and bucket, the client addresses
 * asking it most new sessions, and its status. Encoded as short text lines ({@link #encode()}), which the store
 * keeps and hands back as they are. Immutable.
 *
 * @param nodeId    the node ({@code cluster.node-id})
 * @param classes   new sessions asked per second, by class (those with a {@code cluster-session-rate})
 * @param buckets   requests asked per second, by bucket (those with a {@code cluster-rate})
 * @param addresses the addresses asking most anonymous new sessions, at most {@value #MAX_ADDRESSES}
 * @param status    the node's status: a few numbers by name ({@code executing}, {@code queued}, ...)
 */
public record NodeReport(String nodeId, Map<String, Double> classes, Map<String, Double> buckets,
                         List<Address> addresses, Map<String, String> status) {

    /** The most addresses one report carries. */
    public static final int MAX_ADDRESSES = 64;

    private static final String VERSION = "qos-report 1";

    public NodeReport {
        classes = Map.copyOf(classes);
        buckets = Map.copyOf(buckets);
        addresses = List.copyOf(addresses);
        status = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(status));
    }

    /**
     * One client address as a node sees it.
     *
     * @param address  the address as the container gave it
     * @param demand   anonymous new sessions it asked per second
     * @param admitted those admitted per second
     * @param held     whether the node holds it by its share now
     */
    public record Address(String address, double demand, double admitted, boolean held) {
    }

    /** The report as text: one line per item; names and addresses carry no spaces (the policy checks names). */
    public String encode() {
        StringBuilder b = new StringBuilder(256).append(VERSION).append('\n');
        b.append("node ").append(nodeId).append('\n');
        classes.forEach((k, v) -> b.append("class ").append(k).append(' ').append(v).append('\n'));
        buckets.forEach((k, v) -> b.append("bucket ").append(k).append(' ').append(v).append('\n'));
        for (Address a : addresses) {
            b.append("addr ").append(a.demand).append(' ').append(a.admitted).append(' ').append(a.held ? 1 : 0)
                    .append(' ').append(a.address).append('\n');
        }
        status.forEach((k, v) -> b.append("status ").append(k).append(' ').append(v.replace('\n', ' '))
                .append('\n'));
        return b.toString();
    }

    /**
     * A report {@link #encode()} wrote; null for text it did not write (another version, or damaged): such a
     * report is left out rather than trusted.
     */
    public static NodeReport decode(String text) {
        if (text == null || !text.startsWith(VERSION + "\n")) {
            return null;
        }
        String node = null;
        Map<String, Double> classes = new LinkedHashMap<>();
        Map<String, Double> buckets = new LinkedHashMap<>();
        List<Address> addresses = new ArrayList<>();
        Map<String, String> status = new LinkedHashMap<>();
        try {
            for (String line : text.split("\n")) {
                String[] f = line.split(" ", 5);
                switch (f[0]) {
                    case "node" -> node = f[1];
                    case "class" -> classes.put(f[1], finite(f[2]));
                    case "bucket" -> buckets.put(f[1], finite(f[2]));
                    case "addr" -> addresses.add(new Address(f[4], finite(f[1]), finite(f[2]), "1".equals(f[3])));
                    case "status" -> status.put(f[1], line.substring(8 + f[1].length()).trim());
                    default -> {
                        // the version line, or a line of a later minor version: skipped
                    }
                }
            }
        } catch (RuntimeException e) {
            return null;
        }
        return node == null ? null : new NodeReport(node, classes, buckets, addresses, status);
    }

    private static double finite(String s) {
        double d = Double.parseDouble(s);
        if (!Double.isFinite(d) || d < 0) {
            throw new IllegalArgumentException(s);
        }
        return d;
    }
}

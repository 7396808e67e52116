package dev.servletqos.status;

import dev.servletqos.policy.ValueMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * The client addresses a status page answers: IP ranges in the policy language's syntax (an {@code ip} rule's,
 * {@link ValueMatcher#ipRanges}), loopback only by default. Immutable and thread-safe.
 */
public final class AllowedClients {

    /** The default: this machine only, IPv4 and IPv6 loopback. */
    public static final String LOOPBACK = "127.0.0.0/8, ::1";

    private static final AllowedClients LOOPBACK_ONLY = parse("allow", LOOPBACK);

    private final ValueMatcher ranges;
    private final List<String> list;

    private AllowedClients(ValueMatcher ranges, List<String> list) {
        this.ranges = ranges;
        this.list = list;
    }

    /** Loopback clients only ({@value #LOOPBACK}). */
    public static AllowedClients loopback() {
        return LOOPBACK_ONLY;
    }

    /**
     * The ranges of a setting: IPv4 or IPv6 literals with an optional CIDR prefix length ({@code 10.0.0.0/8},
     * {@code 192.168.1.7}, {@code 2001:db8::/32}, {@code ::1}), separated by commas or white space. The list
     * replaces the default: write {@code 127.0.0.0/8, ::1, 10.1.0.0/16} to keep loopback.
     *
     * @param name  the setting's name, for the message (an init parameter's, a setter's)
     * @param value the list
     * @return the allowed clients
     * @throws IllegalArgumentException naming the setting and the value if the list is empty or a range is bad
     */
    public static AllowedClients parse(String name, String value) {
        List<String> list = new ArrayList<>();
        if (value != null) {
            for (String s : value.split("[,\\s]+")) {
                if (!s.isEmpty()) {
                    list.add(s);
                }
            }
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException(name + " = \"" + value + "\": give at least one IP range (the default"
                    + " is " + LOOPBACK + ")");
        }
        try {
            return new AllowedClients(ValueMatcher.ipRanges(list), List.copyOf(list));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(name + " = \"" + value + "\": " + e.getMessage(), e);
        }
    }

    /** Whether a client with this address (as the container gives it, e.g. {@code 127.0.0.1}, {@code [::1]}) may read the page. */
    public boolean allows(String remoteAddress) {
        return ranges.matches(remoteAddress);
    }

    /** The ranges, as given. */
    public List<String> ranges() {
        return list;
    }

    @Override
    public String toString() {
        return String.join(", ", list);
    }
}

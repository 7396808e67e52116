package dev.servletqos.policy;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * {@link ValueMatcher#ipRanges}: an address is in one of a set of CIDR ranges. See there for the accepted
 * syntax and how IPv4 and IPv4-mapped IPv6 addresses relate.
 *
 * <p>Ranges are kept as pairs of longs, network and mask, so that an address costs one parse (which
 * allocates nothing, see {@link IpLiteral}) and a masked compare per range. Immutable and thread-safe.
 */
final class IpRanges implements ValueMatcher {

    /** The high 96 bits of an IPv4-mapped address {@code ::ffff:a.b.c.d}, which sit in the low long. */
    private static final long MAPPED_PREFIX = 0xFFFF_0000_0000L;
    private static final long IPV4_BITS = 0xFFFF_FFFFL;

    /** Per IPv4 range: network, mask (32 bits each, in the low half). */
    private final long[] ipv4;
    /** Per IPv6 range: network high, network low, mask high, mask low. */
    private final long[] ipv6;
    private final String description;
    private final IpLiteral.Sink tester = new IpLiteral.Sink() {
        @Override
        public boolean ipv4(long address) {
            return inIpv4(address) || inIpv6(0, MAPPED_PREFIX | address);
        }

        @Override
        public boolean ipv6(long high, long low) {
            return (isMapped(high, low) && inIpv4(low & IPV4_BITS)) || inIpv6(high, low);
        }
    };

    private IpRanges(long[] ipv4, long[] ipv6, String description) {
        this.ipv4 = ipv4;
        this.ipv6 = ipv6;
        this.description = description;
    }

    static IpRanges of(List<String> ranges) {
        Objects.requireNonNull(ranges, "ranges");
        long[] ipv4 = new long[2 * ranges.size()];
        long[] ipv6 = new long[4 * ranges.size()];
        int v4 = 0;
        int v6 = 0;
        for (String range : ranges) {
            if (range == null) {
                throw new IllegalArgumentException("IP range must not be null");
            }
            int slash = range.indexOf('/');
            int end = slash < 0 ? range.length() : slash;
            Literal address = new Literal();
            if (!IpLiteral.parse(range, 0, end, address)) {
                throw new IllegalArgumentException(quote(range) + ": not an IPv4 or IPv6 address"
                        + " (expected a literal such as 10.0.0.0/8 or 2001:db8::/32; host names are not resolved)");
            }
            int bits = address.ipv6 ? 128 : 32;
            int prefix = slash < 0 ? bits : prefixLength(range, slash + 1, bits);
            if (address.ipv6) {
                if (isMapped(address.high, address.low) && prefix < 96) {
                    // Masking would silently turn "::ffff:10.0.0.0/8" into "::/8", which is not what was meant.
                    throw new IllegalArgumentException(quote(range) + ": an IPv4-mapped range needs a prefix"
                            + " length of 96..128 (write the IPv4 range instead, such as 10.0.0.0/8)");
                }
                long maskHigh = prefix >= 64 ? -1L : prefix == 0 ? 0 : -1L << (64 - prefix);
                long maskLow = prefix <= 64 ? 0 : prefix == 128 ? -1L : -1L << (128 - prefix);
                ipv6[v6++] = address.high & maskHigh;
                ipv6[v6++] = address.low & maskLow;
                ipv6[v6++] = maskHigh;
                ipv6[v6++] = maskLow;
            } else {
                long mask = prefix == 0 ? 0 : (IPV4_BITS << (32 - prefix)) & IPV4_BITS;
                ipv4[v4++] = address.low & mask;
                ipv4[v4++] = mask;
            }
        }
        return new IpRanges(Arrays.copyOf(ipv4, v4), Arrays.copyOf(ipv6, v6), "ipRanges" + ranges);
    }

    @Override
    public boolean matches(String address) {
        return address != null && IpLiteral.parse(address, 0, address.length(), tester);
    }

    private boolean inIpv4(long address) {
        long[] ranges = ipv4;
        for (int i = 0; i < ranges.length; i += 2) {
            if ((address & ranges[i + 1]) == ranges[i]) {
                return true;
            }
        }
        return false;
    }

    private boolean inIpv6(long high, long low) {
        long[] ranges = ipv6;
        for (int i = 0; i < ranges.length; i += 4) {
            if ((high & ranges[i + 2]) == ranges[i] && (low & ranges[i + 3]) == ranges[i + 1]) {
                return true;
            }
        }
        return false;
    }

    private static boolean isMapped(long high, long low) {
        return high == 0 && (low & ~IPV4_BITS) == MAPPED_PREFIX;
    }

    private static int prefixLength(String range, int from, int bits) {
        int length = from == range.length() ? -1 : 0;
        // More than three digits is out of range anyway; stopping there keeps the int from overflowing.
        for (int i = from; i < range.length() && length >= 0; i++) {
            char c = range.charAt(i);
            length = c >= '0' && c <= '9' && i - from < 3 ? length * 10 + (c - '0') : -1;
        }
        if (length < 0 || length > bits) {
            throw new IllegalArgumentException(quote(range) + ": prefix length must be 0.." + bits);
        }
        return length;
    }

    private static String quote(String value) {
        return '"' + value + '"';
    }

    @Override
    public String toString() {
        return description;
    }

    /** Collects one parsed configuration literal; an IPv4 address goes in {@code low}. */
    private static final class Literal implements IpLiteral.Sink {
        boolean ipv6;
        long high;
        long low;

        @Override
        public boolean ipv4(long address) {
            low = address;
            return true;
        }

        @Override
        public boolean ipv6(long high, long low) {
            this.ipv6 = true;
            this.high = high;
            this.low = low;
            return true;
        }
    }
}

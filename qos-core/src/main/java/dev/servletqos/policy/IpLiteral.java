package dev.servletqos.policy;

/**
 * A hand-written parser for IP address literals: IPv4 dotted quads and IPv6 text (RFC 4291 section 2.2,
 * with {@code ::} compression and a dotted IPv4 tail), optionally in brackets ({@code [::1]}), with an IPv6
 * zone id ({@code %eth0}) that is accepted and ignored.
 *
 * <p>It exists because {@link java.net.InetAddress#getByName(String)} resolves anything that is not a
 * literal through DNS, which a request path must never do, and because it allocates. This parser never
 * allocates: it hands the address to a {@link Sink} as primitive values and returns the sink's answer.
 * IPv4 octets must be decimal, 1 to 3 digits, without leading zeros (tools that read them as octal make
 * {@code 010.0.0.1} ambiguous). Only ASCII digits count. Stateless and thread-safe.
 */
final class IpLiteral {

    /** Receives one parsed address. Implementations used on the request path must not allocate. */
    interface Sink {

        /**
         * An IPv4 address.
         *
         * @param address the address in the low 32 bits, 0 .. 2^32-1
         * @return the value {@link #parse} returns
         */
        boolean ipv4(long address);

        /**
         * An IPv6 address. IPv4-mapped addresses ({@code ::ffff:a.b.c.d}) arrive here as they are written.
         *
         * @param high the first 64 bits
         * @param low the last 64 bits
         * @return the value {@link #parse} returns
         */
        boolean ipv6(long high, long low);
    }

    /** What {@link #parseIpv4} returns for text that is not a dotted quad; no address has this value. */
    static final long NOT_IPV4 = -1L;

    private IpLiteral() {
    }

    /**
     * Parses {@code s[from, to)} and passes the address to the sink.
     *
     * @return false if the text is not an IP literal, else what the sink returned
     */
    static boolean parse(String s, int from, int to, Sink sink) {
        if (from >= to) {
            return false;
        }
        boolean ipv6Only = false;
        if (s.charAt(from) == '[') {
            if (to - from < 3 || s.charAt(to - 1) != ']') {
                return false;
            }
            from++;
            to--;
            ipv6Only = true;
        }
        int zone = indexOf(s, '%', from, to);
        if (zone >= 0) {
            if (zone == to - 1) {
                return false;
            }
            to = zone;
            ipv6Only = true;
        }
        if (indexOf(s, ':', from, to) < 0) {
            if (ipv6Only) {
                return false;
            }
            long address = parseIpv4(s, from, to);
            return address != NOT_IPV4 && sink.ipv4(address);
        }
        return parseIpv6(s, from, to, sink);
    }

    /**
     * Parses a dotted quad.
     *
     * @return the address in the low 32 bits, or {@link #NOT_IPV4}
     */
    static long parseIpv4(String s, int from, int to) {
        long address = 0;
        int octets = 0;
        int i = from;
        while (true) {
            int start = i;
            int octet = 0;
            while (i < to && i - start < 4) {
                char c = s.charAt(i);
                if (c < '0' || c > '9') {
                    break;
                }
                octet = octet * 10 + (c - '0');
                i++;
            }
            int digits = i - start;
            if (digits == 0 || digits > 3 || octet > 255 || (digits > 1 && s.charAt(start) == '0')) {
                return NOT_IPV4;
            }
            address = (address << 8) | octet;
            octets++;
            if (i == to) {
                return octets == 4 ? address : NOT_IPV4;
            }
            if (octets == 4 || s.charAt(i) != '.') {
                return NOT_IPV4;
            }
            i++;
        }
    }

    private static boolean parseIpv6(String s, int from, int to, Sink sink) {
        // Groups after a "::" are shifted in from the right, so their final place is only known at the end;
        // the groups before it are moved to the top as soon as the "::" is seen.
        long headHigh = 0;
        long headLow = 0;
        long high = 0;
        long low = 0;
        int groups = 0;
        boolean compressed = false;
        int i = from;
        if (s.charAt(i) == ':') {
            if (to - i < 2 || s.charAt(i + 1) != ':') {
                return false;
            }
            compressed = true;
            i += 2;
            if (i == to) {
                return sink.ipv6(0, 0);
            }
        }
        while (true) {
            int end = i;
            boolean dotted = false;
            while (end < to && s.charAt(end) != ':') {
                dotted |= s.charAt(end) == '.';
                end++;
            }
            if (end == i) {
                return false;
            }
            if (dotted) {
                // A dotted IPv4 tail is the last 32 bits, so it must end the literal.
                if (end != to || groups > 6) {
                    return false;
                }
                long ipv4 = parseIpv4(s, i, end);
                if (ipv4 == NOT_IPV4) {
                    return false;
                }
                high = (high << 32) | (low >>> 32);
                low = (low << 32) | ipv4;
                groups += 2;
                break;
            }
            if (end - i > 4 || groups == 8) {
                return false;
            }
            int group = 0;
            for (int k = i; k < end; k++) {
                int digit = hexDigit(s.charAt(k));
                if (digit < 0) {
                    return false;
                }
                group = (group << 4) | digit;
            }
            high = (high << 16) | (low >>> 48);
            low = (low << 16) | group;
            groups++;
            if (end == to) {
                break;
            }
            i = end + 1;
            if (i < to && s.charAt(i) == ':') {
                // "::" stands for at least one zero group, so 8 groups before it are already too many.
                if (compressed || groups == 8) {
                    return false;
                }
                compressed = true;
                int shift = 16 * (8 - groups);
                if (shift >= 64) {
                    headHigh = low << (shift - 64);
                    headLow = 0;
                } else {
                    headHigh = (high << shift) | (low >>> (64 - shift));
                    headLow = low << shift;
                }
                high = 0;
                low = 0;
                i++;
                if (i == to) {
                    break;
                }
            } else if (i == to) {
                return false;
            }
        }
        if (compressed ? groups > 7 : groups != 8) {
            return false;
        }
        return sink.ipv6(headHigh | high, headLow | low);
    }

    private static int hexDigit(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static int indexOf(String s, char c, int from, int to) {
        for (int i = from; i < to; i++) {
            if (s.charAt(i) == c) {
                return i;
            }
        }
        return -1;
    }
}

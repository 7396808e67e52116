package dev.servletqos;

/**
 * The new sessions each client address may start ({@code admission.max-new-sessions-per-address}): a token bucket
 * per address, of one rate and depth, in a table of fixed size, so that a flood of cookie-less requests from one
 * address cannot take the tokens of its class's session bucket and lock new visitors from other addresses out.
 *
 * <p>The table holds {@value #SLOTS} addresses in sets of {@value #WAYS}, by a hash of the address's text, and
 * allocates nothing after it is made: it keeps the address string the request brought. An address is entered
 * only when one of its new sessions is admitted (a refused one costs it nothing and takes no slot), and an
 * address not in the table has a full bucket. A new address takes the slot of its set whose bucket holds the most
 * tokens now: a full bucket is the same as none, so nothing is lost while fewer than {@value #WAYS} addresses of a
 * set started a session within the time a bucket takes to refill (depth / rate, a second by default). A flooding
 * address, whose bucket is empty, is the last one of its set to be pushed out, so an attacker cycling through
 * addresses does not give it a fresh bucket; only more addresses starting sessions at once than the table holds
 * (a spread botnet, which a per-address limit cannot hold anyway) give some of them a second bucket.
 *
 * <p>Not thread-safe: the scheduler's lock guards it. Time is the caller's {@code nanoTime}.
 */
final class AddressSessions {

    /** Slots in the table (a power of two) and slots per set. */
    static final int SLOTS = 4096;
    static final int WAYS = 8;
    private static final int SETS = SLOTS / WAYS;
    /**
     * Heap a full table takes, in bytes, at most: its arrays (24 bytes a slot) and the address strings it keeps (up
     * to 80 bytes each for the longest IPv6 text). {@code NewSessionsPerAddressTest} measures it with 10^5 distinct
     * addresses through the table.
     */
    static final long FOOTPRINT_BYTES = 512 * 1024;

    private final String[] addresses = new String[SLOTS];
    private final int[] hashes = new int[SLOTS];
    private final double[] tokens = new double[SLOTS];
    private final long[] updated = new long[SLOTS];
    /** Mixed into the hash, so that which addresses share a set differs between engines. */
    private final int seed = java.util.concurrent.ThreadLocalRandom.current().nextInt();
    private double ratePerNano;
    private double rate;
    private int burst;
    /** Addresses pushed out of the table before their bucket was full again (the table was too small for them). */
    private long evictedEarly;

    AddressSessions(double perSecond, int burst) {
        configure(perSecond, burst);
    }

    /**
     * Changes rate and depth (a reloaded policy); the addresses stay with their tokens, capped at the new depth when
     * next read, and refill at the new rate.
     */
    void configure(double perSecond, int newBurst) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond) || newBurst < 1) {
            throw new IllegalArgumentException("new sessions per address = " + perSecond + "/s, depth " + newBurst
                    + ": the rate must be above 0 and finite, the depth at least 1");
        }
        this.rate = perSecond;
        this.ratePerNano = perSecond / 1e9;
        this.burst = newBurst;
    }

    /** Whether {@code address} may start a new session now; takes nothing. */
    boolean available(String address, long now) {
        int h = hash(address);
        int slot = find(address, h);
        return slot < 0 || refilled(slot, now) >= 1;
    }

    /** Takes one token of {@code address} for a session admitted now, entering the address if it is not in the table. */
    void take(String address, long now) {
        int h = hash(address);
        int slot = find(address, h);
        if (slot >= 0) {
            tokens[slot] = refilled(slot, now) - 1;
            updated[slot] = now;
            return;
        }
        slot = victim(h, now);
        if (addresses[slot] != null && refilled(slot, now) < burst) {
            evictedEarly++;
        }
        addresses[slot] = address;
        hashes[slot] = h;
        tokens[slot] = burst - 1;
        updated[slot] = now;
    }

    private int hash(String address) {
        int h = (address.hashCode() ^ seed) * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    private int find(String address, int h) {
        int base = (h & (SETS - 1)) * WAYS;
        for (int i = base; i < base + WAYS; i++) {
            if (hashes[i] == h && address.equals(addresses[i])) {
                return i;
            }
        }
        return -1;
    }

    /** The slot of {@code h}'s set a new address takes: an empty one, else the one holding the most tokens now. */
    private int victim(int h, long now) {
        int base = (h & (SETS - 1)) * WAYS;
        int best = base;
        double most = -1;
        for (int i = base; i < base + WAYS; i++) {
            if (addresses[i] == null) {
                return i;
            }
            double t = refilled(i, now);
            if (t > most) {
                most = t;
                best = i;
            }
        }
        return best;
    }

    private double refilled(int slot, long now) {
        long elapsed = now - updated[slot];
        double t = elapsed > 0 ? tokens[slot] + elapsed * ratePerNano : tokens[slot];
        return Math.min(burst, t);
    }

    /** Addresses in the table now (those that started a session, at most {@value #SLOTS}). */
    int size() {
        int n = 0;
        for (String a : addresses) {
            if (a != null) {
                n++;
            }
        }
        return n;
    }

    /** Addresses pushed out before their bucket was full again, since the table was made. */
    long evictedEarly() {
        return evictedEarly;
    }

    double rate() {
        return rate;
    }

    int burst() {
        return burst;
    }
}

package dev.servletqos;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The fair share of new sessions each client address gets while its class rations them
 * ({@code admission.max-new-sessions-per-address}, the least share). Only anonymous new sessions count here: those
 * without any credential (no admission cookie, tier cookie, ip rule or trusted rule), which all fall into the
 * default class; a credential is never held by its address.
 *
 * <p>Per address, three moving counts: the new sessions it asked for (its demand), those admitted, and those its
 * class's own admission refused (its unmet demand). Demand and admissions decay with a time constant of a second, so
 * they read as rates per second; unmet demand with {@value #UNMET_SECONDS} s, so that a flood once held stays held
 * while it goes on. From the demands, the water level {@code f} of max-min fairness: the rate at which {@code sum over
 * addresses of min(demand, f)} equals what the class admits (its session rate, or the admissions measured while it has
 * none). An address is refused only when all hold: its class rations (the scheduler asks only then), another address
 * asked too and was refused by the class lately (or this address was held by its share lately: a flood once held stays
 * held while it goes on, instead of taking the tokens back each time the others have been served for a while), the
 * address's demand is above its share and its admissions have reached it. Its share is {@value #HEADROOM} of {@code f}
 * (the tokens the other addresses need build up again: at exactly {@code f} the class's bucket stays empty and they go
 * on being refused), and never less than the floor, the key's rate, capped at half of what the class admits. Before
 * anyone is refused, an address asking more than the water level leaves in the class's bucket the tokens of the
 * demand of the addresses below it ({@link #leavesToOthers}). So one
 * address alone (a large NAT, or every client of a test on 127.0.0.1) gets everything its class admits, and a flood
 * from one address leaves the others their demand.
 *
 * <p>The table holds {@value #SLOTS} addresses in sets of {@value #WAYS}, by a hash of the address's text, and
 * allocates nothing after it is made: it keeps the address string the request brought. A new address takes the
 * slot of its set with the least demand now, so a flooding address is the last one of its set to be pushed out,
 * and an attacker cycling through addresses does not give it a fresh count; only more addresses asking at once than
 * the table holds (a spread botnet, which no per-address share can hold) push out counts still in use.
 *
 * <p>Not thread-safe: the scheduler's lock guards it. Time is the caller's {@code nanoTime}.
 */
final class AddressSessions {

    /** Slots in the table (a power of two) and slots per set. */
    static final int SLOTS = 4096;
    static final int WAYS = 8;
    private static final int SETS = SLOTS / WAYS;
    /**
     * Heap a full table takes, in bytes, at most: its arrays (52 bytes a slot) and the address strings it keeps (up
     * to 80 bytes each for the longest IPv6 text). {@code NewSessionsPerAddressTest} measures it with 10^5 distinct
     * addresses through the table.
     */
    static final long FOOTPRINT_BYTES = 512 * 1024;
    /** Time constant of the demand and admission counts, seconds. */
    static final double SECONDS = 1;
    /** Time constant of the unmet demand, seconds. */
    static final double UNMET_SECONDS = 5;
    /** The share of the water level an address above it keeps. */
    static final double HEADROOM = 0.9;
    /** Below this much unmet demand (about half a refusal lately), the other addresses count as served. */
    static final double UNMET = 0.5;
    /** How often the water level is computed again while asked, nanoseconds. */
    static final long LEVEL_NANOS = 100_000_000L;

    private final String[] addresses = new String[SLOTS];
    private final int[] hashes = new int[SLOTS];
    private final double[] demand = new double[SLOTS];
    private final double[] admitted = new double[SLOTS];
    private final double[] unmet = new double[SLOTS];
    /** Refusals by its share, decaying as unmet demand does: a flood once held stays held while it goes on. */
    private final double[] held = new double[SLOTS];
    private final long[] updated = new long[SLOTS];
    /** Mixed into the hash, so that which addresses share a set differs between engines. */
    private final int seed = java.util.concurrent.ThreadLocalRandom.current().nextInt();
    /** The sums of the three counts over the table, decayed as they are, and when last decayed. */
    private double demandTotal;
    private double admittedTotal;
    private double unmetTotal;
    private long totalsAt;
    private boolean started;
    /** The water level last computed, for what capacity, and when. */
    private double level = Double.POSITIVE_INFINITY;
    private double levelCapacity = -1;
    /** The demand of the addresses below the water level last computed (all of them while it is infinite). */
    private double levelBelow;
    private long levelAt;
    private double floor;
    /** Addresses pushed out of the table while their demand was still above one session a second. */
    private long evictedEarly;

    AddressSessions(double floorPerSecond) {
        configure(floorPerSecond);
    }

    /** Changes the floor (a reloaded policy); the addresses keep their counts. */
    void configure(double floorPerSecond) {
        if (!(floorPerSecond > 0) || Double.isInfinite(floorPerSecond)) {
            throw new IllegalArgumentException("new sessions per address = " + floorPerSecond
                    + "/s: must be above 0 and finite");
        }
        this.floor = floorPerSecond;
    }

    /**
     * The slot of {@code address}, its counts decayed to {@code now}; enters the address if it is not in the table
     * (in place of the address of its set asking least).
     */
    int slot(String address, long now) {
        int h = hash(address);
        int base = (h & (SETS - 1)) * WAYS;
        int v = -1;
        for (int i = base; i < base + WAYS; i++) {
            if (addresses[i] == null) {
                v = v < 0 ? i : v;
            } else if (hashes[i] == h && address.equals(addresses[i])) {
                decay(i, now);
                return i;
            }
        }
        if (v < 0) {
            double least = Double.POSITIVE_INFINITY;
            for (int i = base; i < base + WAYS; i++) {
                decay(i, now);
                if (demand[i] < least) {
                    least = demand[i];
                    v = i;
                }
            }
        }
        if (addresses[v] != null) {
            if (demand[v] >= 1) {
                evictedEarly++;
            }
            decayTotals(now);
            demandTotal = Math.max(0, demandTotal - demand[v]);
            admittedTotal = Math.max(0, admittedTotal - admitted[v]);
            unmetTotal = Math.max(0, unmetTotal - unmet[v]);
        }
        addresses[v] = address;
        hashes[v] = h;
        demand[v] = 0;
        admitted[v] = 0;
        unmet[v] = 0;
        held[v] = 0;
        updated[v] = now;
        return v;
    }

    /** One more new session asked for from the address in {@code slot} (decayed to {@code now} by {@link #slot}). */
    void asked(int slot, long now) {
        decayTotals(now);
        demand[slot]++;
        demandTotal++;
    }

    /** One new session of the address in {@code slot} admitted. */
    void admitted(int slot, long now) {
        decayTotals(now);
        admitted[slot]++;
        admittedTotal++;
    }

    /** One new session of the address in {@code slot} refused by its class's own admission (unmet demand). */
    void unmet(int slot, long now) {
        decayTotals(now);
        unmet[slot]++;
        unmetTotal++;
    }

    /**
     * Whether the address in {@code slot} (decayed to {@code now}, its request counted as asked) is above its fair
     * share of a class that admits {@code capacity} new sessions a second (0: not known, the admissions measured
     * stand for it), while other addresses' demand goes unmet. Asked only while the class rations.
     */
    boolean overShare(int slot, double capacity, long now) {
        return overShare(slot, capacity, now, null);
    }

    /**
     * {@link #overShare(int, double, long)} with what the other nodes of a cluster saw of the address ({@code
     * elsewhere}, null: nothing): held by its share on another node, it counts as contended here too; and its
     * demand and admissions there count with those here, so that its share is one share over the cluster, not one
     * per node (docs/cluster.md).
     */
    boolean overShare(int slot, double capacity, long now, Elsewhere elsewhere) {
        decayTotals(now);
        boolean heldElsewhere = elsewhere != null && elsewhere.held();
        if (!heldElsewhere && (demandTotal - demand[slot] < UNMET || (unmetTotal - unmet[slot] < UNMET
                && held[slot] < UNMET))) {
            return false; // nobody else asks, or the others are served: this address may have what the class admits
        }
        double c = capacity > 0 ? capacity : admittedTotal / SECONDS;
        double share = Math.max(HEADROOM * level(c, now), Math.min(floor, c / 2)) * SECONDS;
        double d = demand[slot] + (elsewhere == null ? 0 : elsewhere.demand() * SECONDS);
        double a = admitted[slot] + (elsewhere == null ? 0 : elsewhere.admitted() * SECONDS);
        if (d > share && a >= share) {
            held[slot]++;
            return true;
        }
        return false;
    }

    /**
     * Whether the address in {@code slot} (decayed to {@code now}, its request counted as asked), asking more than the
     * water level of a class that admits {@code capacity} new sessions a second (above 0: its session rate), or more
     * than the other addresses together and half the bucket's depth, must leave the class's {@code tokens} (of a
     * bucket {@code depth} deep) to the other addresses: while others ask, such an address takes a token only when
     * the bucket keeps, after it, the last {@value #SECONDS} s of demand of the addresses below the water level,
     * whose demand max-min fairness meets in full (at most {@value TokenBucket#SCARCE} of the depth; with no token
     * left, the class's own rate refuses). The share alone ({@link #overShare}) let a flood take each token as it came while under its share, so the bucket
     * stayed empty and the others, arriving at random, were refused by the class before any unmet demand held the
     * flood; with the reserve they find their tokens, and the flood gets the rest. The second test holds a flood in
     * its first second too, while its demand, counted over a second, is still below the water level but it empties a
     * deep bucket.
     */
    boolean leavesToOthers(int slot, double tokens, int depth, double capacity, long now) {
        if (!(capacity > 0)) {
            return false; // no session rate: no tokens to keep
        }
        decayTotals(now);
        double others = demandTotal - demand[slot];
        double f = level(capacity, now);
        // nobody else asks, or this address asks no more than its fair share, the others together or half the bucket
        if (others < UNMET || !(demand[slot] > f) && demand[slot] <= Math.max(others, TokenBucket.SCARCE * depth)) {
            return false;
        }
        // the demand max-min fairness meets in full: that of the addresses below the water level (all, below none)
        double keep = Double.isInfinite(f) ? others : Math.min(others, levelBelow);
        double reserve = Math.min(Math.floor(TokenBucket.SCARCE * depth), keep * SECONDS);
        // with no token left the class's own rate refuses (its unmet demand): only a token the others need is kept
        if (tokens >= 1 && tokens - 1 < reserve) {
            held[slot]++;
            return true;
        }
        return false;
    }

    /**
     * The water level of max-min fairness over the addresses' demands for {@code capacity} new sessions a second:
     * the {@code f} with {@code sum min(demand, f) = capacity}; infinite while the demands add up to less. Computed
     * again at most every {@value #LEVEL_NANOS} ns (it decays every slot to {@code now}), or when the capacity moved
     * by a tenth.
     */
    double level(double capacity, long now) {
        if (now - levelAt < LEVEL_NANOS && levelCapacity >= 0 && Math.abs(capacity - levelCapacity)
                <= 0.1 * levelCapacity) {
            return level;
        }
        int n = 0;
        double sum = 0;
        for (int i = 0; i < SLOTS; i++) {
            if (addresses[i] != null) {
                decay(i, now);
                if (demand[i] > 0.01) {
                    n++;
                    sum += demand[i];
                }
            }
        }
        double c = capacity * SECONDS;
        double f = Double.POSITIVE_INFINITY;
        if (n > 0 && sum > c) {
            // the fixed point of f = (c - demand below f) / (addresses at or above f), from below: it only rises
            f = c / n;
            for (int iteration = 0; iteration < 32; iteration++) {
                double below = 0;
                int above = 0;
                for (int i = 0; i < SLOTS; i++) {
                    if (addresses[i] != null && demand[i] > 0.01) {
                        if (demand[i] < f) {
                            below += demand[i];
                        } else {
                            above++;
                        }
                    }
                }
                double next = above == 0 ? f : (c - below) / above;
                if (next <= f * 1.0001) {
                    break;
                }
                f = next;
            }
            f /= SECONDS;
        }
        double below = 0;
        for (int i = 0; i < SLOTS && n > 0; i++) {
            if (addresses[i] != null && demand[i] > 0.01 && demand[i] < f * SECONDS) {
                below += demand[i];
            }
        }
        levelBelow = below / SECONDS;
        level = f;
        levelCapacity = capacity;
        levelAt = now;
        return f;
    }

    private void decay(int i, long now) {
        long elapsed = now - updated[i];
        if (elapsed > 0) {
            double s = elapsed / 1e9;
            double d = Math.exp(-s / SECONDS);
            demand[i] *= d;
            admitted[i] *= d;
            double u = Math.exp(-s / UNMET_SECONDS);
            unmet[i] *= u;
            held[i] *= u;
            updated[i] = now;
        }
    }

    private void decayTotals(long now) {
        if (!started) {
            started = true;
            totalsAt = now;
            return;
        }
        long elapsed = now - totalsAt;
        if (elapsed > 0) {
            double s = elapsed / 1e9;
            double d = Math.exp(-s / SECONDS);
            demandTotal *= d;
            admittedTotal *= d;
            unmetTotal *= Math.exp(-s / UNMET_SECONDS);
            totalsAt = now;
        }
    }

    /** Whether the address text is loopback, private (RFC 1918, fc00::/7), shared (100.64/10) or link-local. */
    static boolean sharedLooking(String a) {
        if (a.startsWith("10.") || a.startsWith("127.") || a.startsWith("192.168.") || a.startsWith("169.254.")) {
            return true;
        }
        if (a.startsWith("172.") || a.startsWith("100.")) {
            int second = 0;
            int i = 4;
            for (; i < a.length() && i < 7 && Character.isDigit(a.charAt(i)); i++) {
                second = second * 10 + a.charAt(i) - '0';
            }
            return a.startsWith("172.") ? second >= 16 && second <= 31 : second >= 64 && second <= 127;
        }
        if (a.indexOf(':') >= 0) {
            return a.equals("::1") || a.equals("0:0:0:0:0:0:0:1") || a.regionMatches(true, 0, "fc", 0, 2)
                    || a.regionMatches(true, 0, "fd", 0, 2) || a.regionMatches(true, 0, "fe8", 0, 3)
                    || a.regionMatches(true, 0, "fe9", 0, 3) || a.regionMatches(true, 0, "fea", 0, 3)
                    || a.regionMatches(true, 0, "feb", 0, 3);
        }
        return false;
    }

    private int hash(String address) {
        int h = (address.hashCode() ^ seed) * 0x9E3779B9;
        return h ^ (h >>> 16);
    }

    /** The demand of {@code address} now, new sessions a second (0 when not in the table); for tests. */
    double demand(String address, long now) {
        int h = hash(address);
        int base = (h & (SETS - 1)) * WAYS;
        for (int i = base; i < base + WAYS; i++) {
            if (hashes[i] == h && address.equals(addresses[i])) {
                decay(i, now);
                return demand[i] / SECONDS;
            }
        }
        return 0;
    }

    /**
     * What the other nodes of a cluster saw of one address in their last period: its demand and admissions there, new
     * sessions a second, and whether one of them holds it by its share.
     */
    record Elsewhere(double demand, double admitted, boolean held) {
    }

    /**
     * One address as this node reports it to the cluster: its demand and admissions, new sessions a second, and its
     * refusals by its share (decaying as unmet demand does).
     */
    record Hot(String address, double demand, double admitted, double held) {
    }

    /**
     * The addresses asking most now, at most {@code max} of them: those with at least {@value #UNMET} new session a
     * second asked, admitted or held by their share, by demand, highest first. Decays every slot to {@code now}.
     */
    List<Hot> hot(int max, long now) {
        List<Hot> hot = new ArrayList<>();
        for (int i = 0; i < SLOTS; i++) {
            if (addresses[i] != null) {
                decay(i, now);
                if (demand[i] >= UNMET || admitted[i] >= UNMET || held[i] >= UNMET) {
                    hot.add(new Hot(addresses[i], demand[i] / SECONDS, admitted[i] / SECONDS, held[i]));
                }
            }
        }
        hot.sort(Comparator.comparingDouble(Hot::demand).reversed());
        return hot.size() > max ? List.copyOf(hot.subList(0, max)) : hot;
    }

    /** Addresses in the table now (those that asked for a session, at most {@value #SLOTS}). */
    int size() {
        int n = 0;
        for (String a : addresses) {
            if (a != null) {
                n++;
            }
        }
        return n;
    }

    /** Addresses pushed out while still asking a session a second or more, since the table was made. */
    long evictedEarly() {
        return evictedEarly;
    }

    /** The least share, new sessions a second. */
    double floor() {
        return floor;
    }
}

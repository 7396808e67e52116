package dev.servletqos;

import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.ValueMatcher;
import java.util.ArrayList;
import java.util.List;

/**
 * The token-bucket rules of the policy (paper 002's resource-based admission): a request whose path or cookie
 * matches a bucket takes one of its tokens, or is refused before it is classified. The first bucket that
 * matches, in the policy's order (by name), decides. The rates are live settings ({@link Settings#buckets()}),
 * put in force by the scheduler when settings are applied; the depths are fixed. Thread-safe: each bucket is
 * guarded by its own lock, held for a few field updates.
 *
 * <p>A reloaded policy gets new buckets ({@link #RequestBuckets(QosPolicy, RequestBuckets)}): a bucket whose name
 * and rule stay is carried over whole (its tokens and counters, and the scheduler keeps its live rate), one whose
 * rule changed starts full at the new policy's rate with its counters carried on, a new one starts full.
 */
final class RequestBuckets {

    private static final class Bucket {
        final BucketPolicy policy;
        final String name;
        final ValueMatcher paths;
        final String cookieName;
        final String cookieValue;
        final TokenBucket tokens;
        /** The rate the settings give, and this node's share of the bucket's cluster rate (0: none). */
        double wanted;
        double clusterCap;
        long hits;
        long refused;

        Bucket(BucketPolicy p) {
            this.policy = p;
            this.name = p.name();
            this.paths = p.pathMatcher();
            this.cookieName = p.cookieName();
            this.cookieValue = p.cookieValue();
            this.tokens = new TokenBucket(p.rate(), p.depth());
            this.wanted = p.rate();
        }

        /** Puts the wanted rate in force, lowered to the cluster cap; under this bucket's lock. */
        void configure(int depth, long now) {
            double r = clusterCap > 0 ? Math.min(wanted, clusterCap) : wanted;
            if (tokens.rate() != r || tokens.burst() != depth) {
                tokens.configure(r, depth, now);
            }
        }

        boolean matches(RequestView r) {
            if (paths != null) {
                return paths.matches(r.path());
            }
            String v = r.cookie(cookieName);
            return v != null && (cookieValue == null || cookieValue.equals(v));
        }
    }

    private final Bucket[] buckets;

    RequestBuckets(QosPolicy policy) {
        this(policy, null);
    }

    /** The buckets of a reloaded policy, carried over by name from {@code previous} (null: none). */
    RequestBuckets(QosPolicy policy, RequestBuckets previous) {
        List<BucketPolicy> list = policy.buckets();
        this.buckets = new Bucket[list.size()];
        for (int i = 0; i < buckets.length; i++) {
            BucketPolicy p = list.get(i);
            Bucket was = previous == null ? null : previous.named(p.name());
            if (was != null && was.policy.equals(p)) {
                buckets[i] = was;
                continue;
            }
            Bucket b = new Bucket(p);
            if (was != null) {
                synchronized (was) {
                    b.hits = was.hits;
                    b.refused = was.refused;
                }
            }
            buckets[i] = b;
        }
    }

    private Bucket named(String name) {
        for (Bucket b : buckets) {
            if (b.name.equals(name)) {
                return b;
            }
        }
        return null;
    }

    /** Whether this set has a bucket of that name with the same rule as {@code p}. */
    boolean keeps(BucketPolicy p) {
        Bucket b = named(p.name());
        return b != null && b.policy.equals(p);
    }

    /** The settings a policy's buckets start with. */
    static List<Settings.BucketSettings> initial(QosPolicy policy) {
        List<Settings.BucketSettings> s = new ArrayList<>();
        for (BucketPolicy b : policy.buckets()) {
            s.add(new Settings.BucketSettings(b.name(), b.rate(), b.minRate(), b.depth()));
        }
        return s;
    }

    boolean isEmpty() {
        return buckets.length == 0;
    }

    int size() {
        return buckets.length;
    }

    String name(int i) {
        return buckets[i].name;
    }

    /**
     * Counts the request as a hit of the first bucket it matches and takes a token; the index of that bucket
     * when it had none (refuse the request), else -1.
     */
    int refuse(RequestView request, long now) {
        for (int i = 0; i < buckets.length; i++) {
            Bucket b = buckets[i];
            if (!b.matches(request)) {
                continue;
            }
            synchronized (b) {
                b.hits++;
                if (b.tokens.available(now)) {
                    b.tokens.take();
                    return -1;
                }
                b.refused++;
                return i;
            }
        }
        return -1;
    }

    /** Puts rates in force (the settings were clamped and name the buckets in order). */
    void configure(List<Settings.BucketSettings> settings, long now) {
        for (int i = 0; i < buckets.length; i++) {
            Settings.BucketSettings s = settings.get(i);
            Bucket b = buckets[i];
            synchronized (b) {
                b.wanted = s.rate();
                b.configure(s.depth(), now);
            }
        }
    }

    /** Sets this node's cap on bucket {@code i}'s rate ({@code bucket.<name>.cluster-rate}), 0: none. */
    void clusterCap(int i, double cap, long now) {
        Bucket b = buckets[i];
        synchronized (b) {
            b.clusterCap = cap;
            b.configure(b.tokens.burst(), now);
        }
    }

    /** The policy of bucket {@code i}. */
    BucketPolicy policy(int i) {
        return buckets[i].policy;
    }

    /** Each bucket's counters, rate and tokens at {@code now}. */
    List<EngineSnapshot.BucketStats> stats(long now) {
        List<EngineSnapshot.BucketStats> s = new ArrayList<>(buckets.length);
        for (Bucket b : buckets) {
            synchronized (b) {
                s.add(new EngineSnapshot.BucketStats(b.name, b.hits, b.refused, b.tokens.rate(), b.tokens.burst(),
                        b.tokens.tokens(now)));
            }
        }
        return s;
    }
}

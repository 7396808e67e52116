package dev.servletqos.policy;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One token-bucket rule of the policy ({@code bucket.<name>.*}, paper 002's resource-based admission): the
 * requests it covers (a path pattern, or a cookie) and its token bucket (the starting rate, the lowest rate
 * the bucket law may set, and the fixed depth). A request that matches a bucket without a token is refused in
 * {@code QosEngine.enter} before it is classified. Immutable.
 *
 * @param name    the bucket's name (letters, digits, {@code -}, {@code _}; at most 64), its meter tag
 * @param paths   the path patterns it covers ({@code /search/*}, as a path rule's values), or empty
 * @param cookie  the cookie it covers: {@code NAME} (present) or {@code NAME=VALUE}; null when it covers paths
 * @param rate    the starting rate, requests per second; more than 0
 * @param minRate the lowest rate the bucket law sets, at most {@code rate}
 * @param depth   the bucket's depth (burst), fixed
 * @param clusterRate {@code bucket.<name>.cluster-rate}: the bucket's rate over every node of a cluster
 *                (docs/cluster.md), requests per second; 0 (the default): no cluster cap; 0..1e9
 */
public record BucketPolicy(String name, List<String> paths, String cookie, double rate, double minRate, int depth,
                           double clusterRate) {

    /** Paper 002's depth for HTTP header-based control. */
    public static final int DEFAULT_DEPTH = 5;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public BucketPolicy {
        paths = paths == null ? List.of() : List.copyOf(paths);
    }

    /** A bucket with nothing set but its name (rate 0 = not given yet, depth {@value #DEFAULT_DEPTH}). */
    public static BucketPolicy named(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a bucket name is 1 to 64 letters, digits, '-' or '_', was " + name);
        }
        return new BucketPolicy(name, List.of(), null, 0, 0, DEFAULT_DEPTH, 0);
    }

    /** A bucket on paths. */
    public static BucketPolicy onPaths(String name, double rate, double minRate, int depth, String... paths) {
        return named(name).withPaths(List.of(paths)).withRate(rate).withMinRate(minRate).withDepth(depth);
    }

    /** A bucket on a cookie ({@code NAME} or {@code NAME=VALUE}). */
    public static BucketPolicy onCookie(String name, double rate, double minRate, int depth, String cookie) {
        return named(name).withCookie(cookie).withRate(rate).withMinRate(minRate).withDepth(depth);
    }

    public BucketPolicy withPaths(List<String> p) {
        return new BucketPolicy(name, p, cookie, rate, minRate, depth, clusterRate);
    }

    public BucketPolicy withCookie(String c) {
        return new BucketPolicy(name, paths, c, rate, minRate, depth, clusterRate);
    }

    public BucketPolicy withRate(double r) {
        return new BucketPolicy(name, paths, cookie, r, minRate, depth, clusterRate);
    }

    public BucketPolicy withMinRate(double r) {
        return new BucketPolicy(name, paths, cookie, rate, r, depth, clusterRate);
    }

    public BucketPolicy withDepth(int d) {
        return new BucketPolicy(name, paths, cookie, rate, minRate, d, clusterRate);
    }

    /** {@code cluster-rate}: see {@link #clusterRate()}. */
    public BucketPolicy withClusterRate(double r) {
        return new BucketPolicy(name, paths, cookie, rate, minRate, depth, r);
    }

    /** The cookie's name (before {@code =}), or null. */
    public String cookieName() {
        if (cookie == null) {
            return null;
        }
        int eq = cookie.indexOf('=');
        return eq < 0 ? cookie : cookie.substring(0, eq);
    }

    /** The value the cookie must have, or null for any value. */
    public String cookieValue() {
        if (cookie == null) {
            return null;
        }
        int eq = cookie.indexOf('=');
        return eq < 0 ? null : cookie.substring(eq + 1);
    }

    /** The path matcher of a path bucket (null for a cookie bucket). */
    public ValueMatcher pathMatcher() {
        return paths.isEmpty() ? null : ValueMatcher.paths(paths);
    }

    /** Checks the bucket as {@code QosPolicy.Builder.build()} does; the message names the key. */
    void check() {
        String k = "bucket." + name + ".";
        ClassPolicy.check(paths.isEmpty() != (cookie == null), k + (cookie == null ? "path" : "cookie"),
                cookie == null ? "(unset)" : cookie,
                "a bucket covers either paths (" + k + "path) or a cookie (" + k + "cookie), exactly one");
        ClassPolicy.check(cookie == null || !(cookieName().isEmpty() || cookieName().isBlank()), k + "cookie", cookie,
                "a cookie name is required: NAME or NAME=VALUE");
        if (!paths.isEmpty()) {
            try {
                ValueMatcher.paths(paths);
            } catch (IllegalArgumentException e) {
                throw new PolicyException(k + "path", String.join(", ", paths), e.getMessage());
            }
        }
        ClassPolicy.check(rate > 0 && rate <= 1e9, k + "rate", rate == 0 ? "(unset)" : String.valueOf(rate),
                "required: requests per second, more than 0 and at most 1e9");
        ClassPolicy.check(minRate >= 0 && minRate <= rate, k + "min-rate", minRate,
                "must be 0.." + rate + " (the rate)");
        ClassPolicy.check(depth >= 1 && depth <= 1_000_000, k + "depth", depth, "must be 1..1000000");
        ClassPolicy.check(clusterRate >= 0 && clusterRate <= 1e9, k + "cluster-rate", clusterRate,
                "must be 0 (no cluster cap) or requests per second over the cluster, at most 1e9");
    }
}

package dev.servletqos.control;

import java.util.Arrays;

/**
 * Turning what the laws want (real numbers) into integer budgets that fit the total: in priority order
 * (absolute delay control) or in proportion (relative delay control, identification). Stateless.
 */
final class Budgets {

    private Budgets() {
    }

    /**
     * Grants {@code demands} in priority order (index 0 first) from {@code total} permits, paper 001 section
     * III.D: class k gets its demand rounded and clamped to {@code [min_k, left - sum of the lower classes'
     * minimums]}, where {@code left} is what the higher classes did not take. So when the total is short, the
     * lowest classes get less than they asked for, down to their minimums, and the higher ones get all they
     * asked for. When even the minimums do not fit, they are met from the top down and the lowest classes get
     * what is left, possibly 0.
     *
     * @param demands wanted budgets, any real numbers (NaN is taken as the minimum)
     * @param mins    minimum budgets, each at least 0
     * @param total   permits to share, at least 0
     */
    static int[] byPriority(double[] demands, int[] mins, int total) {
        int n = demands.length;
        int[] granted = new int[n];
        long below = 0;
        for (int m : mins) {
            below += Math.max(0, m);
        }
        int left = Math.max(0, total);
        for (int k = 0; k < n; k++) {
            int min = Math.max(0, mins[k]);
            below -= min;
            long cap = Math.max(0, left - below);
            int want = round(demands[k], min, left);
            int g = (int) Math.min(want, Math.max(cap, Math.min(min, left)));
            granted[k] = g;
            left -= g;
        }
        return granted;
    }

    /**
     * Shares exactly {@code total} permits in proportion to {@code weights}, every class getting at least its
     * minimum (paper 001 section III.D, {@code B_k = M NB_k / sum}, with the minimum against starvation): classes
     * whose proportional share falls below their minimum are held at it and the rest is shared among the others
     * again; the real shares are then rounded down and the permits left over go one each to the largest
     * remainders (ties to the higher class), so the budgets always sum to the total. When the minimums alone
     * exceed the total they are met from the top down, as in {@link #byPriority}.
     *
     * @param weights relative shares; a negative or non-finite weight counts as 0, and if none is positive
     *                all count as 1
     * @param mins    minimum budgets, each at least 0
     * @param total   permits to share, at least 0
     */
    static int[] proportional(double[] weights, int[] mins, int total) {
        int n = weights.length;
        if (n == 0) {
            return new int[0];
        }
        total = Math.max(0, total);
        long minSum = 0;
        for (int m : mins) {
            minSum += Math.max(0, m);
        }
        if (minSum >= total) {
            double[] lowest = new double[n];
            return byPriority(lowest, mins, total);
        }
        double[] w = sanitise(weights);
        boolean[] pinned = new boolean[n];
        double[] share = new double[n];
        boolean changed = true;
        while (changed) {
            changed = false;
            double rest = total;
            double sum = 0;
            for (int k = 0; k < n; k++) {
                if (pinned[k]) {
                    rest -= Math.max(0, mins[k]);
                } else {
                    sum += w[k];
                }
            }
            for (int k = 0; k < n; k++) {
                if (!pinned[k]) {
                    share[k] = sum > 0 ? rest * w[k] / sum : 0;
                    if (share[k] < Math.max(0, mins[k])) {
                        pinned[k] = true;
                        changed = true;
                    }
                }
            }
        }
        int[] b = new int[n];
        int given = 0;
        for (int k = 0; k < n; k++) {
            b[k] = pinned[k] ? Math.max(0, mins[k]) : (int) Math.floor(share[k]);
            given += b[k];
        }
        for (int left = total - given; left > 0; left--) {
            int best = -1;
            double bestFraction = -1;
            for (int k = 0; k < n; k++) {
                double fraction = pinned[k] ? -1 : share[k] - b[k];
                if (fraction > bestFraction) {
                    bestFraction = fraction;
                    best = k;
                }
            }
            b[best]++;
            share[best] = b[best];
        }
        return b;
    }

    /** {@code x} rounded to the nearest integer in {@code [min, max]}; NaN gives {@code min}. */
    static int round(double x, int min, int max) {
        if (!(x > min)) {
            return min;
        }
        if (x >= max) {
            return Math.max(min, max);
        }
        return (int) Math.max(min, Math.min(max, Math.round(x)));
    }

    /** Negative or non-finite weights count as 0; if none is positive, all count as 1. */
    private static double[] sanitise(double[] weights) {
        double[] w = new double[weights.length];
        boolean any = false;
        for (int k = 0; k < w.length; k++) {
            double x = weights[k];
            w[k] = x > 0 && Double.isFinite(x) ? x : 0;
            any |= w[k] > 0;
        }
        if (!any) {
            Arrays.fill(w, 1);
        }
        return w;
    }
}

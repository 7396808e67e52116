package dev.servletqos.control;

import dev.servletqos.Settings;

/**
 * The capacity law: finds {@code max-executing}, the number of requests that may execute at once, from the
 * measured service time, so that requests queue in the engine (where classes are honoured) and not inside the
 * application or its back end (where they are not).
 *
 * <p>The signal is the ratio {@code r = T / T0} of the period's mean service time {@code T} (grant to
 * completion, over all classes) to its no-load baseline {@code T0}. A back end of {@code C} connections serves
 * {@code N <= C} requests at once in {@code T0} each; with {@code N > C}, the extra ones wait inside it and
 * {@code T = T0 N / C}. So {@code r} above 1 is queueing behind the engine's back, and the limit that removes it
 * is {@code N / r}:
 *
 * <ul>
 *   <li>{@code r > 1 + }{@value #HIGH}: the limit becomes {@code L (1 + }{@value #AIM}{@code ) / r}, at most
 *       halved in one period (the gradient step of Netflix's and Envoy's limiters);</li>
 *   <li>{@code r < 1 + }{@value #LOW} and demand (requests waited in the engine, or the permits were nearly all
 *       busy): the limit grows by a fifth (at least one permit), up to the ceiling;</li>
 *   <li>otherwise it holds.</li>
 * </ul>
 *
 * <p>The baseline is the least service time (smoothed over two periods, against noise) of the last
 * {@value #WINDOW} periods with enough completions, so a low that was luck is forgotten; it is never
 * re-measured by cutting traffic (Envoy's periodic probes to a minimum concurrency refuse or delay real
 * requests). A back end that got slower for every request (not one that queues) is told apart by what the
 * law's own cuts do: when the number of requests in service fell by a fifth or more and the service time did not
 * follow ({@code d ln T / d ln N < }{@value #ELASTIC}), the service time does not depend on the concurrency, so it
 * is the new baseline (a rise in concurrency says nothing: a back end with room shows no rise either, and taking
 * that for a slower back end would ratchet the baseline up); so it is when a cut to the floor did not bring the
 * ratio down by a tenth (the limit is at its floor and unable to move). A back end that got faster lowers the baseline; one with more connections shows no rise
 * as the limit grows.
 *
 * <p>Budgets: a class whose budget was the whole limit keeps the whole new limit (the default: every class may
 * use every permit, strict priority decides); other budgets stay as set, clamped to the limit by the engine.
 * Bounds: at least the sum of the classes' minimum budgets (and 1), at most {@link Settings#ceiling()}.
 *
 * <p>Not thread-safe: one control task calls {@link #next}.
 */
final class CapacityLaw implements ControlLaw {

    /** Above {@code T0 (1 + HIGH)} the back end queues: cut. */
    static final double HIGH = 0.5;
    /** Below {@code T0 (1 + LOW)} there is no queueing behind the engine: grow when there is demand. */
    static final double LOW = 0.15;
    /** A cut aims at a service time of {@code T0 (1 + AIM)}: a little queue in the back end keeps it busy. */
    static final double AIM = 0.3;
    /** Periods over which the baseline is the least smoothed service time: old lows are forgotten. */
    static final int WINDOW = 300;
    /** Completions a period needs before its mean service time may cut the limit. */
    static final double MIN_COMPLETIONS = 20;
    /** Growth per period when there is room. */
    static final double GROWTH = 0.2;
    /** Below this elasticity of service time to concurrency, the service time is the back end's own. */
    static final double ELASTIC = 0.3;
    /** Timed completions of a route whose mean is its reference service time. */
    static final long REFERENCE_COMPLETIONS = 20;
    /** The concurrency must have moved by this factor for the elasticity to say anything. */
    static final double MOVED = 1.2;

    private double limit = Double.NaN;
    private double baseline = Double.NaN;
    private double smoothed = Double.NaN;
    /** The smoothed service times of the last periods with enough completions; the baseline is their least. */
    private final double[] history = new double[WINDOW];
    private int periods;
    private double lastInService = Double.NaN;
    private double lastService = Double.NaN;
    private double lastRatio = Double.NaN;
    /** The last period cut the limit to its floor. */
    private boolean cut;
    /** Per route: the service times of its first timed completions, the route's reference; and how many. */
    private double[] referenceSum = new double[0];
    private long[] referenceCount = new long[0];
    /** The service time is measured mix-free (by route) since this turned true. */
    private boolean mixed;

    @Override
    public Settings next(Sample sample, Settings current) {
        int minimums = 0;
        for (Settings.ClassSettings c : current.classes()) {
            minimums += Math.max(0, c.minBudget());
        }
        int floor = Math.max(1, minimums);
        int ceiling = Math.max(floor, current.ceiling());
        if (Double.isNaN(limit) || Math.round(limit) != current.maxExecuting()) {
            limit = current.maxExecuting(); // bumpless: from what is in force (an operator may have moved it)
        }
        double completions = 0;
        double serviceSum = 0;
        double inService = 0;
        int queued = 0;
        boolean waited = false;
        for (ClassSample c : sample.classes()) {
            if (c.completions() > 0 && Double.isFinite(c.meanService()) && c.meanService() >= 0) {
                completions += c.completions();
                serviceSum += c.completions() * c.meanService();
            }
            if (Double.isFinite(c.busy())) {
                inService += c.busy();
            }
            queued += c.queued();
            waited |= c.meanWait() > 0;
        }
        if (completions <= 0) {
            return withLimit(current, clamp(limit, floor, ceiling));
        }
        boolean wasMixed = mixed;
        double plain = serviceSum / completions;
        double service = mixFree(sample, plain);
        if (mixed != wasMixed) {
            // from seconds to the mix-free measure: what was measured in seconds is converted at this period's
            // rate, so that the baseline keeps the lows of the first periods
            double scale = plain / service;
            for (int i = 0; i < Math.min(periods, history.length); i++) {
                history[i] /= scale;
            }
            smoothed /= scale;
            lastService /= scale;
        }
        if (Double.isNaN(service)) {
            return withLimit(current, clamp(limit, floor, ceiling));
        }
        smoothed = Double.isNaN(smoothed) ? service : smoothed + 0.5 * (service - smoothed);
        if (completions * sample.seconds() >= MIN_COMPLETIONS || Double.isNaN(baseline)) {
            history[periods++ % history.length] = smoothed;
        }
        baseline = Double.POSITIVE_INFINITY;
        for (int i = 0; i < Math.min(periods, history.length); i++) {
            baseline = Math.min(baseline, history[i]);
        }
        double r = service / baseline;
        // only a fall in concurrency tells: with more requests in service a back end with room shows no rise
        // either, and taking that for a slower back end would ratchet the baseline (and the limit) up
        boolean moved = lastInService > 0 && inService > 0 && lastService > 0
                && Math.log(lastInService / inService) >= Math.log(MOVED);
        // a limit held at its floor cannot move: a cut to the floor that did not bring the ratio down by a tenth
        // says the same (a cut above the floor is judged by the move of the requests in service, above: the
        // requests already in service finish first, so one period after a cut says little)
        boolean cutInVain = cut && r > 1 + HIGH && r >= 0.9 * lastRatio;
        if (r > 1 + HIGH && (moved || cutInVain)) {
            double elasticity = moved ? Math.log(service / lastService) / Math.log(inService / lastInService) : 0;
            if (elasticity < ELASTIC) {
                // the back end is slower for every request, not queueing: the new baseline
                java.util.Arrays.fill(history, service);
                baseline = service;
                smoothed = service;
                r = 1;
            }
        }
        lastRatio = r;
        lastInService = inService;
        lastService = service;
        boolean demand = queued > 0 || waited || inService >= 0.8 * limit;
        // A cut needs evidence: enough completions for the mean to mean something, and the engine's own
        // concurrency pushing the back end (with most permits idle, a slow back end is not queueing on us).
        boolean evidence = completions * sample.seconds() >= MIN_COMPLETIONS && inService >= 0.5 * limit;
        cut = false;
        if (r > 1 + HIGH && evidence) {
            limit = Math.max(limit / 2, limit * (1 + AIM) / r);
            cut = limit <= floor;
        } else if (r < 1 + LOW && demand) {
            limit = Math.max(limit + 1, limit * (1 + GROWTH));
        }
        limit = Math.max(floor, Math.min(ceiling, limit));
        return withLimit(current, (int) Math.round(limit));
    }

    /**
     * The period's service time with the mix of requests taken out, when the sample has it by route: the time the
     * period's requests took over the time the same requests took in the route's first periods,
     * {@code sum n_i T_i / sum n_i B_i} (a number near 1, not seconds; the law uses only ratios of it). A period
     * with more slow pages than the last is then not mistaken for a back end that queues. Without routes (or
     * before any route has its reference), the plain mean {@code plain}.
     */
    private double mixFree(Sample sample, double plain) {
        if (sample.routes().isEmpty()) {
            return mixed ? Double.NaN : plain;
        }
        double took = 0;
        double expected = 0;
        for (Sample.RouteSample r : sample.routes()) {
            if (!(r.meanService() >= 0) || r.timed() <= 0) {
                continue;
            }
            if (r.route() >= referenceSum.length) {
                referenceSum = java.util.Arrays.copyOf(referenceSum, r.route() + 1);
                referenceCount = java.util.Arrays.copyOf(referenceCount, r.route() + 1);
            }
            int i = r.route();
            if (referenceCount[i] < REFERENCE_COMPLETIONS) {
                referenceSum[i] += r.timed() * r.meanService();
                referenceCount[i] += r.timed();
                continue;
            }
            took += r.timed() * r.meanService();
            expected += r.timed() * referenceSum[i] / referenceCount[i];
        }
        if (expected > 0) {
            mixed = true;
            return took / expected;
        }
        return mixed ? Double.NaN : plain;
    }

    /** The limit in force for {@code limit}: rounded, within {@code floor..ceiling}. */
    private static int clamp(double limit, int floor, int ceiling) {
        return (int) Math.round(Math.max(floor, Math.min(ceiling, limit)));
    }

    private static Settings withLimit(Settings current, int limit) {
        if (limit == current.maxExecuting()) {
            return current;
        }
        int[] budgets = current.budgets();
        for (int i = 0; i < budgets.length; i++) {
            if (budgets[i] >= current.maxExecuting()) {
                budgets[i] = limit;
            }
        }
        return current.withMaxExecuting(limit).withBudgets(budgets).withSource(Settings.Source.CONTROLLER);
    }
}

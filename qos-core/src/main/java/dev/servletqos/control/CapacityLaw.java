package dev.servletqos.control;

import dev.servletqos.Settings;

/**
 * The capacity law: finds {@code max-executing}, the number of requests that may execute at once, from the
 * measured service time, so that requests queue in the engine (where classes are honoured) and not inside the
 * application or its back end (where they are not).
 *
 * <p>The signal is the ratio {@code r = T / T0} of the reading's mean service time {@code T} (grant to
 * completion, over all classes) to its no-load baseline {@code T0}. A back end of {@code C} connections serves
 * {@code N <= C} requests at once in {@code T0} each; with {@code N > C}, the extra ones wait inside it and
 * {@code T = T0 N / C}. So {@code r} above 1 is queueing behind the engine's back, and the limit that removes it
 * is {@code N / r}:
 *
 * <ul>
 *   <li>{@code r > 1 + }{@value #HIGH}: the limit becomes {@code L (1 + }{@value #AIM}{@code ) / r}, at most
 *       halved in one reading (the gradient step of Netflix's and Envoy's limiters), and a further cut of the same
 *       streak takes off at most {@code 1 - }{@value #LATER_CUT} (the first cut, were the back end queueing, would
 *       have brought the ratio down already);</li>
 *   <li>{@code r < 1 + }{@value #LOW} and demand (requests waited in the engine, or the permits were nearly all
 *       busy): the limit grows by a fifth (at least one permit), up to the ceiling;</li>
 *   <li>otherwise it holds.</li>
 * </ul>
 *
 * <p>Unless that queue is too shallow to matter: when the part of the mean service time above the baseline,
 * {@code T (1 - 1 / r)} in seconds, is below {@value #NEGLIGIBLE} of the tightest class's delay target, the law
 * does not cut and grows the limit with demand. A servlet of microseconds on two cores queues that way at any
 * concurrency (0.6 ms at 64 requests against a target of 250 ms); a limit there moved the wait into the engine
 * and parked and woke every request, a sixth of the server's throughput, for a delay no class would miss its
 * target by.
 *
 * <p>The baseline is the least, over the last {@value #WINDOW} readings, of each reading's service time (smoothed
 * over two readings) plus {@value #Z} standard error: the least of many noisy means is far
 * below their true mean (at 300 completions a period, 300 periods put it 17 % low, and a baseline that low has
 * the law cut a back end with room until it starves), the least of the means plus their standard error is not.
 * The standard error is that of the smoothed mean: the dispersion over the root of three times the reading's
 * completions (an average of weight one half has a third of one reading's variance), the dispersion measured from
 * the median difference of successive readings (a step of the back end is one outlier of the median, not a new
 * dispersion). A period in which the requests in service rose by more than a fifth is not measured: its
 * completions are its short requests (the long ones are still in service), which at start-up put a mean 30 %
 * low. With routes the baseline waits for the routes' references, so the first periods' mix of requests is
 * not mistaken for their speed. The baseline is never re-measured by cutting traffic (Envoy's periodic probes
 * to a minimum concurrency refuse or delay real requests), and a cut needs its ratio to stand one standard error
 * above the threshold, so noise in a reading of few completions does not starve the back end.
 *
 * <p>A period with fewer than {@value #MIN_COMPLETIONS} completions is pooled with the next ones until they hold
 * that many, and the pool is one reading: at a low limit or with a slow back end the law still reads the service
 * time, once every few periods, instead of never (it held a limit of 2 for 16 connections for 45 periods).
 *
 * <p>A back end that got slower for every request (not one that queues) is told apart by what the law's own
 * cuts do. The readings of a streak of cuts (from the first cut until the ratio is back below the threshold) are
 * judged against the reading before its first cut: when the requests in service fell by a sixth or more from
 * there and the service time did not follow ({@code d ln T / d ln N < }{@value #ELASTIC}) in
 * {@value #INELASTIC_READINGS} readings in a row, the service time does not depend on the concurrency: the mean of
 * all the completions of the streak's readings from the second after its first cut is the new baseline (the first
 * also holds the requests that had queued inside the back end before the cut; the least of the readings, even each
 * with a standard error added, was a noisy low, 23 % below the back end's new speed at 10x in the simulator, which
 * held the limit below the connections), and the limit goes back to where the streak began (its cuts
 * were made on the belief that the back end queued). One reading is not enough (a back end that lost
 * connections in the period of a cut shows the same), but after one the streak holds instead of cutting again.
 * A rise in concurrency says nothing: a back end with room shows no rise either, and taking that for a slower
 * back end would ratchet the baseline up. A cut to the floor that did not bring the ratio down by a tenth also
 * says the back end is slower (the limit cannot move), with the same consequences. A reading taken while the
 * requests in service build up neither starts nor judges a streak. Between readings the limit holds: a low limit
 * grows once per pool, not once per period. A back end that got faster lowers the baseline;
 * one with more connections shows no rise as the limit grows. A back end that recovers from a slower spell shows a
 * reading more than {@value #FALL} standard errors below the slower baseline, and the baseline from before the
 * spell comes back: its later readings are above the faster back end's knee (the limit found for the slower one is
 * about 1.3 times the connections), where its no-load time is not seen, and against the slower baseline they let
 * the limit grow until the back end queued 2.3 times over.
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
    /** Readings (periods, or pools of them) over which the baseline is the least: old lows are forgotten. */
    static final int WINDOW = 300;
    /** Completions a reading needs (periods are pooled until they hold this many) for the baseline or a cut. */
    static final double MIN_COMPLETIONS = 20;
    /** Growth per reading when there is room. */
    static final double GROWTH = 0.2;
    /** A period whose requests in service rose by more than this factor is building up, not measured. */
    static final double RAMP = 1.2;
    /** Standard errors above a reading's smoothed mean at which it counts for the baseline. */
    static final double Z = 1;
    /** Differences of successive readings whose median gives the service time's dispersion. */
    static final int SPREADS = 60;
    /** The dispersion (standard deviation over mean of one request's service time) until it is measured. */
    static final double DEFAULT_DISPERSION = 1;
    /** Below this elasticity of service time to concurrency, the service time is the back end's own. */
    static final double ELASTIC = 0.5;
    /** Timed completions of a route whose mean is its reference service time. */
    static final long REFERENCE_COMPLETIONS = 100;
    /** Consecutive inelastic falls of concurrency that make the service time the back end's own. */
    static final int INELASTIC_READINGS = 2;
    /** The concurrency must have moved by this factor for the elasticity to say anything. */
    static final double MOVED = 1.2;
    /** The most a cut after the first of a streak takes off the limit. */
    static final double LATER_CUT = 0.7;
    /**
     * Standard errors a reading's mean must stand below a slower spell's baseline for the back end to have recovered.
     * A back end that did not change reads that low about once in forty readings below its knee, and almost never
     * at the limit the law keeps it at (above the knee); a wrong return is undone by the cuts it starts.
     */
    static final double FALL = 2;
    /**
     * A back end whose queue adds less than this share of the tightest delay target to a request's service time
     * queues too little to matter: no class can miss its target by it, so the law does not cut for it and lets
     * the limit grow with demand. A limit there would only move the wait into the engine, at the price of
     * parking and waking each request (on a request of microseconds, a sixth of the server's throughput).
     */
    static final double NEGLIGIBLE = 0.01;

    private double limit = Double.NaN;
    private double smoothed = Double.NaN;
    /**
     * The smoothed mean service times plus {@value #Z} standard error of the last readings; the baseline is their
     * least.
     */
    private final double[] history = new double[WINDOW];
    private int periods;
    /** The last readings' standardised differences of mean service time, whose median gives the dispersion. */
    private final double[] spreads = new double[SPREADS];
    private int spreadCount;
    private double lastInService = Double.NaN;
    /** The last reading's service time (in the law's unit). */
    private double lastService = Double.NaN;
    /** The last reading's completions if it was measured (enough of them, not building up), else 0. */
    private double lastCount;
    private double lastRatio = Double.NaN;
    /** Consecutive readings of a streak of cuts whose fall of concurrency the service time did not follow. */
    private int inelastic;
    /** The streak of cuts under way (the service time not yet back below the threshold), or null. */
    private Streak streak;
    /** The periods pooled so far for the next reading. */
    private Pool pool = Pool.EMPTY;
    /**
     * The baseline before the back end was found slower (NaN: none): when the service time later falls far below
     * the slower baseline, the back end has recovered and this one comes back.
     */
    private double faster = Double.NaN;
    /** The last reading cut the limit to its floor. */
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
            return withLimit(current, Budgets.round(limit, floor, ceiling));
        }
        boolean wasMixed = mixed;
        double plain = serviceSum / completions;
        // while the requests in service build up, the period's completions are its short requests (the long ones
        // are still in service): such a period gives neither a reference nor a baseline
        boolean building = !(lastInService > 0) || inService > RAMP * lastInService;
        lastInService = inService;
        Measure measure = mixFree(sample, new Measure(plain, completions * sample.seconds()), building);
        if (mixed != wasMixed) {
            // from seconds to the mix-free measure (a source that had no routes and now has): learnt again
            periods = 0;
            smoothed = Double.NaN;
            lastService = Double.NaN;
            lastCount = 0;
            pool = Pool.EMPTY;
            faster = Double.NaN;
            endStreak();
        }
        if (Double.isNaN(measure.service())) {
            return withLimit(current, Budgets.round(limit, floor, ceiling));
        }
        // a period with too few completions is pooled with the next ones until they are enough: a slow back end
        // (or a low limit) still gets readings, one every few periods, instead of none
        double reading = inService;
        if (!building) {
            pool = pool.plus(measure, inService);
            if (pool.count() < MIN_COMPLETIONS) {
                return withLimit(current, Budgets.round(limit, floor, ceiling));
            }
            measure = pool.measure();
            reading = pool.inService();
            pool = Pool.EMPTY;
        }
        double service = measure.service();
        double n = measure.count();
        // a reading that is not building up is a pool of at least MIN_COMPLETIONS: it is measured
        if (!building && lastCount > 0 && lastService > 0) {
            spreads[spreadCount++ % spreads.length] = Math.abs(service - lastService)
                    / (0.5 * (service + lastService) * Math.sqrt(1 / n + 1 / lastCount));
        }
        double dispersion = dispersion();
        // the reading's standard error over its mean; its mean plus that: the least of noisy means is below their
        // true mean
        double error = dispersion / Math.sqrt(Math.max(n, 1));
        double upper = service * (1 + Z * error);
        if (!building) {
            lastCount = n;
            if (faster < least() && service * (1 + FALL * error) < least()) {
                // far below every reading since the back end was found slower: it has recovered, and the baseline
                // from before comes back. Its readings now are those of a back end that queues (the limit found
                // for the slower one is above the faster one's knee) and would never show the no-load time again:
                // taken as the baseline, they let the limit grow to 2..3 times the connections. Were the back end
                // only partly recovered, the cuts this starts find it slower again.
                java.util.Arrays.fill(history, faster);
                periods = Math.max(periods, 1);
                faster = Double.NaN;
                smoothed = Double.NaN;
                endStreak();
            }
            smoothed = Double.isNaN(smoothed) ? service : smoothed + 0.5 * (service - smoothed);
            history[periods++ % history.length] = smoothed * (1 + Z * dispersion / Math.sqrt(3 * n));
        } else {
            lastCount = 0;
            smoothed = Double.NaN;
        }
        lastService = service;
        double baseline = least();
        // no reading with enough completions yet: nothing says the back end queues
        double r = periods == 0 ? Double.NaN : service / baseline;
        if (!(r > 1 + HIGH) && !building) {
            endStreak(); // the cuts (if any) brought the service time down: the back end was queueing
        }
        // The cuts of a streak are judged against the reading before the first: a back end that queues serves
        // fewer requests at once faster (T falls with N), one that got slower for every request does not. Only a
        // fall in concurrency tells: with more requests in service a back end with room shows no rise either,
        // and taking that for a slower back end would ratchet the baseline (and the limit) up.
        boolean slower = false;
        boolean judged = streak != null && r > 1 + HIGH && !building;
        if (judged && !(reading > 0 && streak.inService() >= MOVED * reading)) {
            // the concurrency is not below the streak's start: the reading says nothing, and a hold ends
            inelastic = 0;
        } else if (judged) {
            double elasticity = Math.log(service / streak.service()) / Math.log(reading / streak.inService());
            // one reading is not enough: a back end that lost connections in the period of a cut shows a fall of
            // concurrency and a rise of service time too; the next reading, with nothing else changing, tells
            inelastic = elasticity < ELASTIC ? inelastic + 1 : 0;
            slower = inelastic >= INELASTIC_READINGS;
            streak = streak.reading(service, n);
        }
        // a limit held at its floor cannot move: a cut to the floor that did not bring the ratio down by a tenth
        // says the same
        slower |= cut && r > 1 + HIGH && r >= 0.9 * lastRatio;
        if (slower) {
            // the back end is slower for every request, not queueing: the new baseline is the mean of the streak's
            // readings after its first cut (below the concurrency it started at, so the least queueing in it), and
            // the cuts made on the belief that the back end queued are undone
            double slowerBaseline = streak == null || !(streak.count() > 0) ? upper : streak.mean();
            if (Double.isNaN(faster)) {
                faster = least(); // the fastest known: a back end slower by steps comes back to it at once
            }
            java.util.Arrays.fill(history, slowerBaseline);
            smoothed = slowerBaseline;
            periods = Math.max(periods, 1);
            r = service / slowerBaseline;
            if (streak != null) {
                limit = Math.max(limit, streak.limit());
            }
            endStreak();
        }
        lastRatio = r;
        boolean demand = queued > 0 || waited || reading >= 0.8 * limit;
        // A cut needs evidence: enough completions for the mean to mean something, and the engine's own
        // concurrency pushing the back end (with most permits idle, a slow back end is not queueing on us).
        boolean evidence = n >= MIN_COMPLETIONS && reading >= 0.5 * limit;
        cut = false;
        // a cut on a ratio that noise alone explains would starve the back end: the ratio less one standard
        // error of the reading's mean must be above the threshold
        double significant = r * (1 - error);
        // the queue inside the back end in seconds: the part of the period's mean service time above the baseline
        boolean negligible = r > 0 && plain * Math.max(0, 1 - 1 / r) < NEGLIGIBLE * tightestTarget(current);
        // a streak whose last reading says the service time did not follow the fall of concurrency holds until
        // the next reading tells whether the back end is slower (a further cut would only starve it)
        // (nor does the reading that found the back end slower cut: its ratio is against the new baseline)
        if (significant > 1 + HIGH && evidence && inelastic == 0 && !slower && !negligible) {
            boolean first = streak == null;
            if (first && !building) {
                streak = new Streak(reading, service, limit, 0, 0, 0);
            }
            limit = Math.max(limit * (first ? 0.5 : LATER_CUT), limit * (1 + AIM) / r);
            cut = limit <= floor;
        } else if ((r < 1 + LOW || negligible) && demand) {
            limit = Math.max(limit + 1, limit * (1 + GROWTH));
        }
        limit = Math.max(floor, Math.min(ceiling, limit));
        return withLimit(current, (int) Math.round(limit));
    }

    /** The least delay target of the classes, in seconds; 0 when none has one. */
    private static double tightestTarget(Settings current) {
        double least = Double.POSITIVE_INFINITY;
        for (Settings.ClassSettings c : current.classes()) {
            double target = c.delayTarget().toNanos() / 1e9;
            if (target > 0) {
                least = Math.min(least, target);
            }
        }
        return Double.isInfinite(least) ? 0 : least;
    }

    /** The baseline: the least of the window's readings; infinite before the first. */
    private double least() {
        double least = Double.POSITIVE_INFINITY;
        for (int i = 0; i < Math.min(periods, history.length); i++) {
            least = Math.min(least, history[i]);
        }
        return least;
    }

    /** The streak of cuts is over: the next cut starts a new one. */
    private void endStreak() {
        streak = null;
        inelastic = 0;
    }

    /**
     * The period's service time with the mix of requests taken out, when the sample has it by route: the time the
     * period's requests took over the time the same requests took in the route's first periods,
     * {@code sum n_i T_i / sum n_i B_i} (a number near 1, not seconds; the law uses only ratios of it). A period
     * with more slow pages than the last is then not mistaken for a back end that queues. Without routes (or
     * before any route has its reference), the plain mean {@code plain}.
     */
    private Measure mixFree(Sample sample, Measure plain, boolean building) {
        if (sample.routes().isEmpty()) {
            return mixed ? Measure.NONE : plain;
        }
        if (building && !mixed) {
            return Measure.NONE;
        }
        double took = 0;
        double expected = 0;
        long used = 0;
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
                if (building) {
                    continue;
                }
                referenceSum[i] += r.timed() * r.meanService();
                referenceCount[i] += r.timed();
                continue;
            }
            took += r.timed() * r.meanService();
            expected += r.timed() * referenceSum[i] / referenceCount[i];
            used += r.timed();
        }
        if (expected > 0) {
            mixed = true;
            return new Measure(took / expected, used);
        }
        // with routes, the plain mean is not used: the mix of the first periods is not the mix of later ones
        return Measure.NONE;
    }

    /** A period's service time in the law's unit, and the completions it is the mean of; NaN: none. */
    private record Measure(double service, double count) {
        static final Measure NONE = new Measure(Double.NaN, 0);
    }

    /** Periods with too few completions, summed until they are enough for a reading. */
    private record Pool(double took, double count, double inServiceSum, int periods) {
        static final Pool EMPTY = new Pool(0, 0, 0, 0);

        Pool plus(Measure m, double inService) {
            return new Pool(took + m.service() * m.count(), count + m.count(), inServiceSum + inService,
                    periods + 1);
        }

        Measure measure() {
            return new Measure(took / count, count);
        }

        /** The mean number of requests in service over the pooled periods. */
        double inService() {
            return inServiceSum / periods;
        }
    }

    /**
     * A streak of cuts: the reading before its first cut (requests in service, service time, the limit then), how
     * many readings were judged since, and of those after the first, the sum of their completions' service times
     * and how many (0: none yet).
     */
    private record Streak(double inService, double service, double limit, int judged, double took, double count) {
        /**
         * A reading judged against the streak's start. The first after the cut is left out of the mean: its
         * completions include the requests that had queued inside the back end before the cut (at 4x in the
         * simulator it read a slower back end 12 % slower still, and the limit then held 25 for 16 connections).
         */
        Streak reading(double service, double n) {
            return judged == 0 ? new Streak(inService, this.service, limit, 1, took, count)
                    : new Streak(inService, this.service, limit, judged + 1, took + service * n, count + n);
        }

        double mean() {
            return took / count;
        }
    }

    /**
     * The dispersion of one request's service time (standard deviation over mean), from the median of the last
     * periods' differences: the difference of two periods' means, over its standard error with a dispersion of
     * 1, is normal with the dispersion as its standard deviation, and its median absolute value is 0.6745 of
     * that. A median, so a step of the back end (or of the limit) is one outlier, not a new dispersion.
     */
    private double dispersion() {
        int k = Math.min(spreadCount, spreads.length);
        if (k < 10) {
            return DEFAULT_DISPERSION;
        }
        double[] v = java.util.Arrays.copyOf(spreads, k);
        java.util.Arrays.sort(v);
        return v[k / 2] / 0.6745;
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

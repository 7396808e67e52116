package dev.servletqos.control;

import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.ControlPolicy.Degradation;
import java.util.ArrayList;
import java.util.List;

/**
 * The PI utilization controller of paper 000 (sections 4.4 and 4.5) on each class's fractional content level
 * {@code m} (0 = refuse new sessions, M = full content; {@code m = I + F} serves a fraction F of the sessions at
 * level I+1, the rest at I).
 *
 * <p><b>Per-priority targets</b> (000 section 5.2): class {@code k}, highest first, holds its utilization
 * {@code U_k = a R_k + b W_k + c D_k} ({@link UtilizationEstimator}) at
 *
 * <pre>
 *   U*_k = U* - sum_{i &lt; k} avg(U_i) - sum_{l &gt; k} c A_l
 * </pre>
 *
 * with {@code U*} the target ({@code control.utilization.target}), {@code avg(U_i)} class {@code i}'s utilization
 * averaged over the periods (weight {@value #USED_WEIGHT} for the newest) and {@code A_l} the requests class
 * {@code l} offers per second (what refusing them all would cost). So the whole capacity is the top class's, what
 * it leaves is the next class's (excess capacity shared), and a class is degraded only once every class below it
 * is at level 0 or its target is spent: higher classes are degraded last. The average: with the paper's
 * {@code U_i} of the period, a class below was left the noise of the classes above (a period's load varies by
 * about 0.06 in the simulator), its level jumped (0 to 0.6 from one period to the next, its plant gain being small
 * at the lightest content), and the sessions it let in during a jump were served to their end: the server ran at
 * 0.60 to 0.65 for a target of 0.58; with the average, 0.585 and 0.60.
 *
 * <p><b>Gains by the gain-margin rule</b> (000 section 4.4). The plant is a static gain with the dead time of
 * half a period, {@code P(s) = p_max e^(-sT/2)}, and the PI is {@code Kp (1 + Ki/s)}; with the controller's
 * phase at the oscillation frequency set to {@code pi/6} (its eq. 8) and a gain margin {@code G}
 * ({@code control.utilization.gain-margin}), eqs. 6 and 7 give
 *
 * <pre>
 *   w T = 2 (pi - pi/6) = 5 pi / 3,   Ki = w tan(pi/6),   Kp = cos(pi/6) / (G p_max)
 * </pre>
 *
 * applied each period in incremental form, {@code m(j) = m(j-1) + Kp ((1 + Ki T) e(j) - e(j-1))},
 * {@code e = U*_k - U_k}. The plant gain is the paper's largest, that of a pure admission actuator,
 * {@code p_max = dU/df = U_accept - c A} (eq. 3), recomputed every period from the class's offered requests
 * {@code A_k} and its cost per request at full content (the model's {@code (a R_k + b W_k) / R_k} in periods the
 * class spent at full content, averaged with weight 0.3): {@code p_max = A_k (cost_M - c)}, at least
 * {@value #MIN_PLANT_GAIN}. Between two levels the plant's gain is less (a lighter level costs less): on the
 * segment {@code [I, I+1]} it is {@code A_k (cost_{I+1} - cost_I)}, and the law designs for that once it has seen
 * both costs (a period spent wholly at a level; the rule below holds a class at level 1 for a period before it
 * refuses, so the lightest level's cost is known when refusing starts; {@link #plantGain}); with degraded content
 * at an eighth, the segment below level 1 has an eighth of {@code p_max}'s gain, and designed for {@code p_max}
 * the loop would take eight times as long there. With {@code G = 4} and the plant at the gain designed for, the
 * error decays with poles 0.53 and -0.41 (2 % in 7 periods).
 *
 * <p><b>Anti-windup</b>: each period starts from the level in force (the engine clamps to [0, M]), and the
 * output is clamped to [0, M]: a class held at full content below its target does not store up error; and a class
 * at full content within its target stays there (the proportional term of an error that fell but stayed positive
 * would otherwise take content away from it). <b>Level 0
 * last</b>: a class above level 1 goes no lower than 1 in one period, so new sessions are refused only once every
 * session gets the lightest content (a class with one level has no lighter content and refuses at once).
 */
final class UtilizationLaw implements LevelLaw {

    /** The controller's phase at the frequency of oscillation, paper 000 eq. 8. */
    static final double PHASE = Math.PI / 6;
    /** {@code w T} at the frequency of oscillation: the loop's phase {@code -wT/2 - PHASE} is {@code -pi}. */
    static final double OMEGA_T = 2 * (Math.PI - PHASE);
    /** {@code Ki T}, the integral gain times the period. */
    static final double KI_T = OMEGA_T * Math.tan(PHASE);
    /** The least plant gain used: utilization per content level. */
    static final double MIN_PLANT_GAIN = 0.02;
    /**
     * The newest period's weight in the average of a class's utilization that the classes below are left: they get
     * what it uses on average, not its noise.
     */
    static final double USED_WEIGHT = 0.4;
    /**
     * The share of a lower class's margin a class's content rule moves by in one period ({@link #contentLevel}):
     * the outer loop of a cascade, slower than the lower class's own PI (2 % in 7 periods), which the content freed
     * or taken moves.
     */
    static final double CONTENT_STEP = 0.25;
    /** The most the sessions refused by admission multiply a class's utilization by ({@link #demand}). */
    static final double MAX_DEMAND = 5;
    /**
     * The new sessions per second another step of admission must refuse before a class counts as crowded: short of
     * capacity whatever its utilization reads ({@link #next}).
     */
    static final double MIN_CROWDED = 1;
    /** The most the content rule moves a class's level in one period ({@link #contentLevel}). */
    static final double MAX_CONTENT_STEP = 0.5;
    /** The newest period's weight in a class's cost per request at full content. */
    static final double COST_WEIGHT = 0.3;

    private final double target;
    private final double gainMargin;
    private final UtilizationEstimator estimator;
    private String[] names;
    private double[] lastError;
    /** Per class, per content level 0..M: the model's cost of a request served at that level (NaN: not seen). */
    private double[][] levelCost;
    /** Per class: its utilization averaged over periods, what the classes below are left (NaN: none yet). */
    private double[] used;
    private volatile UtilizationStatus status;

    UtilizationLaw(Degradation d) {
        this.target = d.target();
        this.gainMargin = d.gainMargin();
        this.estimator = new UtilizationEstimator(d.source(), d.rejectionCost());
        this.status = new UtilizationStatus("pi", null, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, List.of());
    }

    /** {@code Kp} for a plant gain {@code p} and gain margin {@code g}: {@code cos(pi/6) / (g p)}. */
    static double proportionalGain(double p, double g) {
        return Math.cos(PHASE) / (g * p);
    }

    @Override
    public Settings next(Sample sample, Settings current) {
        int n = current.classes().size();
        if (!ControlLaws.sameClasses(names, current)) {
            names = ControlLaws.names(current);
            lastError = new double[n];
            levelCost = new double[n][];
            used = new double[n];
            java.util.Arrays.fill(used, Double.NaN);
            java.util.Arrays.fill(lastError, Double.NaN);
        }
        estimator.update(sample);
        double c = estimator.c();
        double[] u = new double[n];
        double[] offered = new double[n];
        for (int k = 0; k < n; k++) {
            ClassSample cs = ControlLaws.classSample(sample, k, names[k]);
            u[k] = cs == null ? 0 : estimator.utilization(cs);
            offered[k] = cs == null ? 0 : Math.max(0, finite(cs.arrivals()));
        }
        scaleToMeasured(u);
        List<UtilizationStatus.ClassLevel> levels = new ArrayList<>(n);
        Settings next = current;
        if (estimator.updates() == 0) {
            for (int k = 0; k < n; k++) {
                levels.add(new UtilizationStatus.ClassLevel(names[k], Double.NaN, u[k], current.get(k).level(),
                        Double.NaN, false));
            }
            publish(levels);
            return current;
        }
        // the levels in force, the costs per level learned this period and the plant gains, for every class first:
        // a class's content rule below reads the classes under it
        double[] level = new double[n];
        int[] levelCount = new int[n];
        double[] gain = new double[n];
        double[] demand = new double[n];
        boolean[] crowded = new boolean[n];
        for (int k = 0; k < n; k++) {
            Settings.ClassSettings cls = current.get(k);
            ClassSample cs = ControlLaws.classSample(sample, k, names[k]);
            int max = Math.max(1, cls.levels());
            double m = Math.max(0, Math.min(max, Double.isFinite(cls.level()) ? cls.level() : max));
            if (levelCost[k] == null || levelCost[k].length != max + 1) {
                levelCost[k] = new double[max + 1];
                java.util.Arrays.fill(levelCost[k], Double.NaN);
            }
            double served = cs == null ? 0 : finite(cs.completions());
            if (m == Math.rint(m) && m >= 1 && served > 0) {
                // the whole period at one level: what a request at that level costs
                double cost = (estimator.a() * served + estimator.b() * finite(cs.bytes())) / served;
                double[] lc = levelCost[k];
                int l = (int) m;
                lc[l] = ControlLaws.ewma(lc[l], cost, COST_WEIGHT);
            }
            level[k] = m;
            levelCount[k] = max;
            // above level 1 the level changes the content of the requests the class is served, not how many: the
            // plant's gain is on those (with another step of admission refusing most new sessions, the requests
            // offered were ten times those served, and the level fell by 0.15 a period where 0.8 was designed for)
            gain[k] = plantGain(levelCost[k], m, m > 1 ? served : offered[k], c, u[k]);
            demand[k] = cs == null ? 0 : demand(u[k], m, finite(cs.sessions()), finite(cs.sessionsRefused()));
            crowded[k] = cs != null && m >= 1
                    && refusedByAdmission(m, finite(cs.sessions()), finite(cs.sessionsRefused())) >= MIN_CROWDED;
        }
        // each class's target and error: what the classes above use on average, less what refusing the classes
        // below would cost
        double[] goal = new double[n];
        double[] error = new double[n];
        double above = 0;
        for (int k = 0; k < n; k++) {
            double below = 0;
            for (int l = k + 1; l < n; l++) {
                below += c * offered[l]; // what refusing all of a lower class costs
            }
            goal[k] = target - above - below;
            error[k] = goal[k] - demand[k];
            used[k] = ControlLaws.ewma(used[k], u[k], USED_WEIGHT);
            above += used[k];
        }
        double[] out = new double[n];
        for (int k = 0; k < n; k++) {
            Settings.ClassSettings cls = current.get(k);
            double e = error[k];
            int max = levelCount[k];
            double m = level[k];
            // the sessions refused by admission scale the class's utilization, and with it the plant's gain
            double p = gain[k] * (u[k] > 0 && demand[k] > u[k] ? demand[k] / u[k] : 1);
            double kp = proportionalGain(p, gainMargin);
            double previous = Double.isFinite(lastError[k]) ? lastError[k] : e;
            double raw = m + kp * ((1 + KI_T) * e - previous);
            double o = Math.max(0, Math.min(max, raw));
            if (m >= max && e >= 0) {
                // at full content and within its target: the proportional term of an error that fell (but is still
                // positive) must not take content away from a class whose own load is within its target
                o = max;
            }
            if (crowded[k]) {
                // another step of admission refuses this class's new sessions: it lacks capacity whatever its
                // utilization says (a class starved behind a higher one completes little and reads nearly idle,
                // and its PI gave content back: 1.0 to 2.0 and back in the sample shop's crowd); lighter content
                // first, at the largest step, and none given back
                o = Math.min(o, Math.max(1, m - MAX_CONTENT_STEP));
            }
            if (m > 1 && o < 1) {
                o = 1; // lighter content first: refuse new sessions only once every session is at level 1
            }
            if (m < 1 && o > 1) {
                // and the other way: admit every new session before any gets more than the lightest content (at
                // the lightest content the plant's gain is small and its PI large: basic went 0.08 to 1.37)
                o = 1;
            }
            if (o < 1 && m >= 1 && lighterContentAbove(k, out, levelCount)) {
                o = 1; // ... and only once every class above is at its lightest content too
            }
            if (o < 1 && m >= 1 && admittedBelow(k, level)) {
                // ... and refuse a class's sessions only once every class below refuses all of its own: its target
                // leaves the classes below nothing (000 section 4.5), but the classes' PIs move together, and premium,
                // read at 0.75 in a period its utilization was scaled to a full server, refused its sessions while
                // basic's were admitted
                o = 1;
            }
            if (refusingAbove(k, out)) {
                o = 0; // while a class above refuses part of its new sessions, this one admits none
            }
            if (max > 1) {
                // lighter content first, across the classes: while a class below lacks room for its sessions at
                // its lightest content, this one gives up content, down to level 1 (contentLevel)
                o = Math.min(o, contentLevel(m, max, p, k, level, levelCount, gain, error, crowded));
            }
            out[k] = o;
            lastError[k] = e;
            levels.add(new UtilizationStatus.ClassLevel(names[k], goal[k], u[k], o, p, o != raw));
            if (o != cls.level()) {
                next = next.withClass(k, next.get(k).withLevel(o));
            }
        }
        publish(levels);
        return next == current ? current : next.withSource(Settings.Source.CONTROLLER);
    }

    /**
     * A class's utilization had every new session been admitted that another step of admission refused (the
     * admission law's rate, the queue guard, the triggers): {@code U_k (admitted + refused by them) / admitted},
     * at most {@value #MAX_DEMAND} times {@code U_k}; the level's own refusals (a share {@code 1 - m} of the new
     * sessions below level 1) are not counted. Paper 000's PI sets the admitted fraction itself and sees the
     * utilization it admits; here the delay-driven admission may refuse first, and the utilization it leaves is at
     * the target without any content lowered: in the sample shop's crowd the admission law refused nine basic
     * sessions in ten while both classes stayed at full content.
     */
    static double demand(double u, double m, double admitted, double refused) {
        double byAdmission = refusedByAdmission(m, admitted, refused);
        if (byAdmission <= 0) {
            return u;
        }
        return admitted > 0 ? u * Math.min(MAX_DEMAND, (admitted + byAdmission) / admitted) : u * MAX_DEMAND;
    }

    /**
     * The new sessions per second another step of admission refused (the admission law's rate, the queue guard, the
     * triggers): those refused less the level's own refusals, a share {@code 1 - m} of the new sessions below
     * level 1.
     */
    static double refusedByAdmission(double m, double admitted, double refused) {
        double byLevel = m < 1 ? (1 - m) * (admitted + refused) : 0;
        return Math.max(0, refused - byLevel);
    }

    /**
     * On worker occupancy, scales the classes' utilizations so that they sum to the measured occupancy: the fit's
     * costs per request are learned at the back end's speed, and when the back end slows down (every request
     * holding its worker twice as long) they lag by tens of periods. The law then saw 0.1 to 0.3 where the workers
     * were all busy, gave content back, and the heavier pages made the capacity law cut max-executing from 21 to 2
     * (the sample shop's slow phase: 44 % of premium's sessions completed). The fit still splits the occupancy
     * between the classes. Not on CPU: the process's load varies by about 0.06 from period to period, and the fit
     * is the smoothed utilization the paper's PI holds.
     */
    private void scaleToMeasured(double[] u) {
        double measured = estimator.measured();
        if (estimator.source() != ControlPolicy.UtilizationSource.OCCUPANCY || !(measured >= 0)) {
            return;
        }
        double sum = 0;
        for (double x : u) {
            sum += x;
        }
        if (sum > 0) {
            for (int k = 0; k < u.length; k++) {
                u[k] *= measured / sum;
            }
        }
    }

    /** Whether a class above {@code k} refuses part of its new sessions (its level decided this period under 1). */
    private static boolean refusingAbove(int k, double[] out) {
        for (int i = 0; i < k; i++) {
            if (out[i] < 1) {
                return true;
            }
        }
        return false;
    }

    /** Whether a class below {@code k} admits new sessions (its level in force above 0). */
    private static boolean admittedBelow(int k, double[] level) {
        for (int l = k + 1; l < level.length; l++) {
            if (level[l] > 0) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a class above {@code k} (their levels {@code out} decided this period) has content lighter than it
     * serves.
     */
    private static boolean lighterContentAbove(int k, double[] out, int[] levelCount) {
        for (int i = 0; i < k; i++) {
            if (levelCount[i] > 1 && out[i] > 1) {
                return true;
            }
        }
        return false;
    }

    /**
     * The content rule of class {@code k} at level {@code m}. Paper 000's per-priority targets leave a lower class
     * what the higher ones use, so a lower class refused new sessions while a higher class was served full content
     * (the sample shop's crowd: premium, within the target at full content, kept it, and basic refused nine
     * sessions in ten); the rule the issue states is that an overloaded server refuses only once no lighter content
     * is left. So a class below does not go under level 1 while a class above serves more than its lightest
     * content ({@link #next}), and each class {@code l} below has a margin in utilization: above level 1,
     * {@code p_l (m_l - 1)} with {@code p_l} its plant gain, what it uses above its lightest content;
     * at level 1 or under, that (zero or negative: what it lacks to admit all its new sessions) plus its error if
     * negative (what its own PI asks for and the rule above holds back). Class {@code k}'s content moves by a
     * fraction {@value #CONTENT_STEP} of the least margin each period, {@code m + CONTENT_STEP min_l d_l / p_k}
     * (by at most {@value #MAX_CONTENT_STEP} a period: a small plant gain {@code p_k} made it jump), within
     * {@code [1, M]}: it gives up content while a class below lacks room at its lightest content and takes it
     * back while the classes below are above it, so in overload the class below settles at level 1 for as long as
     * this class's content can make room. A class under level 1 (refusing on its own load) is left to its PI.
     */
    static double contentLevel(double m, int max, double p, int k, double[] level, int[] levelCount, double[] gain,
                               double[] error, boolean[] crowded) {
        if (m < 1) {
            return max;
        }
        double margin = Double.POSITIVE_INFINITY;
        for (int l = k + 1; l < level.length; l++) {
            if (crowded[l] && level[l] <= 1) {
                // a class below at its lightest content and still refused by admission: give up content at the
                // largest step
                return Math.max(1, m - MAX_CONTENT_STEP);
            }
            double d = gain[l] * (level[l] - 1);
            if (level[l] <= 1) {
                d += Math.min(0, error[l]);
            }
            margin = Math.min(margin, d);
        }
        if (margin == Double.POSITIVE_INFINITY) {
            return max;
        }
        double step = Math.max(-MAX_CONTENT_STEP, Math.min(MAX_CONTENT_STEP, CONTENT_STEP * margin / p));
        return Math.max(1, Math.min(max, m + step));
    }

    /**
     * The plant gain {@code dU/dm} to design for at level {@code m}: on the segment {@code [I, I+1]} it is
     * {@code A (cost_{I+1} - cost_I)} ({@code cost_0 = c}: a refused request); a cost not seen yet is bounded by
     * the nearest seen above (lighter content costs less), and failing that the slope is the paper's
     * {@code p_max = A (cost_M - c)}. At a whole level, the steeper of the two segments beside it. With no cost
     * seen at or above the segment, the class's utilization (a class at full content with all of it at stake).
     */
    static double plantGain(double[] cost, double m, double offered, double c, double utilization) {
        int max = cost.length - 1;
        double p;
        if (m == Math.rint(m)) {
            int l = (int) m;
            p = Math.max(l > 0 ? slope(cost, l - 1, offered, c) : 0, l < max ? slope(cost, l, offered, c) : 0);
        } else {
            p = slope(cost, (int) Math.floor(m), offered, c);
        }
        if (!Double.isFinite(p)) {
            p = utilization; // no cost seen at or above the segment
        }
        return Math.max(MIN_PLANT_GAIN, p);
    }

    /** {@code A (cost_{i+1} - cost_i)}, unknown costs bounded: see {@link #plantGain}. */
    private static double slope(double[] cost, int i, double offered, double c) {
        int max = cost.length - 1;
        double upper = Double.NaN;
        for (int l = i + 1; l <= max && !Double.isFinite(upper); l++) {
            upper = cost[l];
        }
        double lower = i == 0 ? c : Double.isFinite(cost[i]) ? cost[i] : c;
        return offered * (upper - lower);
    }

    private void publish(List<UtilizationStatus.ClassLevel> levels) {
        status = estimator.status("pi", Double.NaN, Double.NaN, levels);
    }

    private static double finite(double x) {
        return Double.isFinite(x) ? x : 0;
    }

    @Override
    public UtilizationStatus utilization() {
        return status;
    }
}

package dev.servletqos.control;

import dev.servletqos.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The admission law: per class, the rate at which new sessions are admitted, so that the class's queue delay
 * stays at its target given the capacity the classes above it use. Every class has one, the top class too.
 *
 * <p>Feed-forward from Little's law: class k may use the permits the classes above it leave,
 * {@code A_k = maxExecuting - sum of held_j (j < k)}, {@code held_j} the permits class j holds or, when it refuses
 * sessions, the permits its rate lets it take (see {@link #held}); at a mean service time {@code s_k} they complete
 * {@code A_k / s_k} requests a second, which at {@code R_k} requests per session is {@code A_k / (s_k R_k)}
 * sessions a second. {@code R_k} is measured: the requests of admitted sessions over the sessions admitted,
 * both summed over the last periods with a forgetting factor of {@value #FORGET} per period (a session's
 * requests come after its admission, so the ratio of long sums is the one that holds), except in periods in which
 * every new session was refused (the requests then belong to sessions admitted before, and would raise R by as
 * much as the class is held back); the stateless requests of session-less callers are no session's and are left
 * out. {@code s_k} is the mean service time of the last period in which the server was not idle (see
 * {@link #IDLE}) or the class refused sessions, if it had at least {@value #SERVICE_COMPLETIONS} completions (a back
 * end that got slower is followed at once); a period of fewer moves it only that share of the way: taken as the
 * class's service time, a quiet period's few cheap requests made a session's work nil and the rate unbounded. An
 * idle period in which the class refused nobody sets {@code s_k} only while there is none yet: {@code A_k / s_k} is
 * what the permits complete when in use, and a request of a light load has the back end to itself (on the realism
 * suite 50 ms against 210 with the permits full: a rate four times what the server completes, met by the next
 * step). With sessions refused the idle permits are the rate's doing, and their periods are how a back end that got
 * faster is followed.
 *
 * <p>Feedback: the admitted rate is {@code u_k A_k / (s_k R_k)}, and the factor {@code u_k} is moved each period
 * by the class's delay, {@code u_k <- u_k exp(g e)} with {@code e = (W_k - d_k) / W_k} clamped to
 * {@code [-1, 1/2]}, {@code d_k} the 95th percentile of the class's queue delay and {@code W_k} its target, gain
 * {@code g = }{@value #GAIN}, but only in a period in which the rate was what limited the class: it admitted at
 * least {@value #BINDING} of its rate (paper 002's rule for raising a rate, here for both directions, so that a
 * limit that is not in use does not wind up). While the queue guard refuses every new session, the delay comes
 * from the queue already there (a slower back end, a cut of the capacity law), not from the rate; a factor driven
 * down by it then left the server idle for a visit once that queue had drained (in the simulator at 10x with the
 * back end twice as slow: half the permits idle for three periods, twice a minute). A class late by its target or
 * more loses about a fifth of its rate per period; a class under its target gets its factor back only while
 * sessions were refused, up to {@value #U_MAX} times what the feed-forward
 * says, which leaves room for the random bursts of a load at capacity. A class refusing on idle permits gets
 * {@value #U_MAX} at once; a class with no new session at all on idle permits goes back to 1, so that a quiet
 * spell does not keep the boost for the next step. The factor starts at 1, the feed-forward
 * itself: started at its highest, a step from capacity to four times it let a class in at 1.5 times the rate the
 * server completes for as long as its own delay took to cross its target, seconds of work queued behind the
 * classes above (on Tomcat, basic requests aged past premium's). A class with requests waiting and none
 * granted in a whole period counts as late by the period.
 *
 * <p>Until a class has admitted enough sessions to measure {@code R_k} (and completed requests to measure
 * {@code s_k}), its rate stays open (0, no limit); the engine's queue guard refuses new sessions while the
 * class's queue is already longer than its target, so a crowd that arrives before the first measurement is
 * held too. The rate never falls below {@value #MIN_RATE} sessions a second, so a class squeezed out by the
 * classes above it still admits a session now and then and learns when there is room again.
 *
 * <p>A {@code session-rate} the operator gave a class in the policy is a ceiling: the rate never exceeds it, and
 * it is the rate while the law's own is still open.
 *
 * <p>Sessions already admitted are not affected: only the first request of a new session meets the rate.
 *
 * <p>Not thread-safe: one control task calls {@link #next}; {@link #readings()} may be read from any thread.
 */
final class AdmissionLaw implements ObservableLaw {

    /** The gain of the log-domain integral on the delay error. */
    static final double GAIN = 0.2;
    /** The most the factor u may reach: the rate at most this many times the feed-forward. */
    static final double U_MAX = 1.5;
    /** The least the factor u may reach. */
    static final double U_MIN = 0.05;
    /** Forgetting per period of the sums that measure the requests per session. */
    static final double FORGET = 1.0 / 30;
    /** Sessions that must have been admitted (in the forgetting sums) before R is trusted. */
    static final double MIN_SESSIONS = 5;
    /**
     * Completions a period needs for its mean service time to be the class's: a period of fewer moves {@code s_k}
     * that share of the way to its mean (two completions: a fifth).
     */
    static final double SERVICE_COMPLETIONS = 10;
    /** The lowest admitted rate, sessions per second. */
    static final double MIN_RATE = 0.05;
    /** The queue delay the law holds at each class's target: its 95th percentile. */
    static final double QUANTILE = 0.95;

    /**
     * Below this share of the permits busy, with nothing waiting, the server is idle: a class that refused
     * sessions then gets the most the law allows at once (its factor at {@link #U_MAX}), unless a class above it
     * refused too (the idle permits are that class's to fill).
     */
    static final double IDLE = 0.8;
    /**
     * The factor moves only in a period in which the class admitted at least this share of its rate (or had no
     * rate yet): then the rate is what limits it (paper 002 raises a rate only when its hits reached 90 % of it).
     */
    static final double BINDING = 0.9;
    /** The operator's session rates by class name (above 0: a ceiling). */
    private final Map<String, Double> ceilings;
    private String[] names;
    private double[] factor;
    private double[] requests;
    private double[] sessions;
    private double[] service;
    private volatile List<LoopReading> readings = List.of();

    /** @param ceilings the operator's session rates by class name; a rate above 0 bounds the law's */
    AdmissionLaw(Map<String, Double> ceilings) {
        this.ceilings = Map.copyOf(ceilings);
    }

    @Override
    public Settings next(Sample sample, Settings current) {
        int n = current.classes().size();
        if (!ControlLaws.sameClasses(names, current)) {
            start(current);
        }
        double period = sample.seconds();
        double above = 0;
        Settings out = current;
        List<LoopReading> r = new ArrayList<>(n);
        // Idle permits and nothing waiting: a class that refused sessions may take them at once.
        double busy = 0;
        int waiting = 0;
        for (ClassSample c : sample.classes()) {
            busy += busy(c);
            waiting += c.queued();
        }
        boolean aboveRefused = false;
        boolean idle = waiting == 0 && busy < IDLE * current.maxExecuting();
        for (int k = 0; k < n; k++) {
            Settings.ClassSettings cs = current.get(k);
            ClassSample c = ControlLaws.classSample(sample, k, cs.name());
            double target = ControlLaws.seconds(cs.delayTarget());
            double available = Math.max(0, current.maxExecuting() - above);
            double delay = Double.NaN;
            if (c != null) {
                if (c.sessions() > 0 || c.sessionsRefused() <= 0) {
                    // not while every new session is refused: the requests then are those of sessions admitted
                    // before, and counted against no new session they raised R by a tenth in three periods. The
                    // first requests of the sessions held by their address's share are no session's requests
                    // either: counted, a cookie-less flood held at its share raised R from 4 to 16 in ten
                    // periods, and the rate fell below what the other addresses asked (realism suite, Tomcat). Nor
                    // are the stateless requests of session-less callers: a minute of cookie-less API calls on an
                    // idle server raised basic's R from 4 to 44
                    requests[k] = requests[k] * (1 - FORGET) + Math.max(0,
                            c.arrivals() - c.sessionsRefused() - c.sessionsHeld() - c.stateless()) * period;
                    sessions[k] = sessions[k] * (1 - FORGET) + c.sessions() * period;
                }
                double completed = c.completions() * period;
                if (Double.isFinite(c.meanService()) && c.meanService() > 0 && completed > 0
                        && (!idle || c.sessionsRefused() > 0 || service[k] <= 0)) {
                    // s converts permits into completions, so it is the service time with the permits in use: on
                    // an idle server a request has the back end to itself (on the realism suite 50 ms, against
                    // 210 ms with the permits full), and taken as s it put basic's rate at four times what the
                    // server completes when the next step came (98 sessions a second; 80 let in within a second,
                    // three seconds of the server's work, whose pages aged past premium's). So an idle period
                    // sets s only while there is none yet, or when the class refused sessions: then the rate left
                    // the permits idle, and this is how a back end that got faster is followed. A period of a few
                    // cheap requests (a step's first API calls, 0.1 ms against pages of 150) is not a session's
                    // work either: it moves s that share of the way. A busy period (a back end that got slower)
                    // moves s all the way, as before
                    service[k] = service[k] > 0
                            ? service[k] + Math.min(1, completed / SERVICE_COMPLETIONS) * (c.meanService() - service[k])
                            : c.meanService();
                }
                delay = ControlLaws.delay(c, QUANTILE);
                if (Double.isNaN(delay) && c.queued() > 0) {
                    delay = target + period; // waiting, and none granted: late by the period
                }
                if (!Double.isNaN(delay)) {
                    double e = Math.max(-1, Math.min(0.5, (target - delay) / target));
                    // the factor integrates only while the rate is what limits the class: while the queue guard
                    // refuses every new session (the queue the capacity law's cut or a slower back end left), a
                    // factor driven down by that queue's delay starved the server for a visit once it drained
                    boolean binding = !(cs.sessionRate() > 0) || c.sessions() >= BINDING * cs.sessionRate();
                    if (binding && (e < 0 || c.sessionsRefused() > 0)) {
                        factor[k] = Math.max(U_MIN, Math.min(U_MAX, factor[k] * Math.exp(GAIN * e)));
                    }
                    if (idle && c.sessionsRefused() > 0 && !aboveRefused) {
                        // refusing with the permits idle: fill them, at the most the law allows (a session brings
                        // its load over its whole visit, so the feed-forward alone refills the server slowly);
                        // not a class below one that refused too: the permits are that class's to fill
                        factor[k] = U_MAX;
                    }
                }
                if (idle && c.sessions() <= 0 && c.sessionsRefused() <= 0 && factor[k] > 1) {
                    // that boost fills idle permits with demand that was refused; with no new session at all on
                    // an idle server it ends, and the rate is the feed-forward again. Kept through a quiet spell,
                    // it met the next step at 1.5 times the server's rate: on the realism suite, 86 basic sessions
                    // in the first second of a step to 4x, three seconds of the back end's work
                    factor[k] = 1;
                }
            }
            double rate = 0;
            double perSession = sessions[k] > 0 ? Math.max(1, requests[k] / sessions[k]) : 1;
            if (sessions[k] >= MIN_SESSIONS && service[k] > 0) {
                rate = Math.max(MIN_RATE, factor[k] * available / (service[k] * perSession));
            }
            double ceiling = ceilings.getOrDefault(cs.name(), 0.0);
            if (ceiling > 0) {
                rate = rate > 0 ? Math.min(rate, ceiling) : ceiling;
            }
            if (c != null) {
                above += held(c, rate, perSession * service[k]);
                aboveRefused |= c.sessionsRefused() > 0;
            }
            r.add(new LoopReading(cs.name(), target, delay, Double.isNaN(delay) ? Double.NaN : target - delay, rate,
                    factor[k] <= U_MIN || factor[k] >= U_MAX));
            int burst = (int) Math.max(1, Math.ceil(rate * Math.max(period, 1e-3)));
            if (rate != cs.sessionRate() || (rate > 0 && burst != cs.sessionBurst())) {
                out = out.withClass(k, cs.withSessionRate(rate, rate > 0 ? burst : cs.sessionBurst()));
            }
        }
        readings = List.copyOf(r);
        return out == current ? current : out.withSource(Settings.Source.CONTROLLER);
    }

    /**
     * The permits a class leaves no room for below it: those it holds now, or, when it refuses new sessions,
     * those the sessions it wants will hold, whichever is more. The wanted sessions are the ones that arrived in
     * the period, admitted or refused, up to the rate; by Little's law they hold {@code sessions x work} permits,
     * {@code work} the service seconds of one session. A session brings its requests over its whole visit, so
     * the permits held now lag a class that has just started to refuse: counted alone, they left the room for the
     * classes below, which filled it with sessions whose requests aged past the class above.
     */
    private static double held(ClassSample c, double rate, double work) {
        if (c.sessionsRefused() <= 0 || rate <= 0 || !(work > 0)) {
            return busy(c);
        }
        return Math.max(busy(c), Math.min(c.sessions() + c.sessionsRefused(), rate) * work);
    }

    /** The permits the class held over the period; 0 when its completions had no timed service time. */
    private static double busy(ClassSample c) {
        return Double.isFinite(c.busy()) ? c.busy() : 0;
    }

    @Override
    public List<LoopReading> readings() {
        return readings;
    }

    private void start(Settings current) {
        int n = current.classes().size();
        names = ControlLaws.names(current);
        factor = new double[n];
        requests = new double[n];
        sessions = new double[n];
        service = new double[n];
        for (int k = 0; k < n; k++) {
            factor[k] = 1;
        }
    }
}

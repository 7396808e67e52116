package dev.servletqos.sim;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.ClassStats;
import dev.servletqos.control.EngineSampleSource;
import dev.servletqos.Clock;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.Periodic;
import dev.servletqos.QosEngine;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.Rejection;
import dev.servletqos.RequestView;
import dev.servletqos.policy.Rule;
import dev.servletqos.Ticket;

/**
 * The one place where the simulator meets the engine: it builds the real {@link QosEngine} on the
 * simulation's clock, presents simulated requests to it, attaches listeners to parked tickets, releases
 * permits, runs the engine's periodic work through the simulation's {@link Periodic}, and reads the
 * engine's counters. Everything else in the simulator goes through here, so that a change of the engine's
 * API is a change of this class.
 *
 * <p>Tests and hooks ({@link Simulation#at}, {@link Simulation#onStart}) get this object to change settings
 * during a run ({@link #setBudget}) or to reach the engine itself ({@link #engine()}). Not thread-safe: a
 * simulation runs on one thread.
 */
public final class SimEngine {

    /** The request header carrying a simulated request's class; the test policy has a header rule per class. */
    public static final String CLASS_HEADER = "X-Sim-Class";
    /** The signing secret of policies built by {@link #policy}: cookies then verify the same in every run. */
    public static final String SECRET = "sim-secret-0123456789abcdef";

    /** What {@link #enter} decided. */
    static final int RUNNING = 0;
    static final int PARKED = 1;
    static final int REJECTED = 2;

    /** Told (on the engine's initiative, possibly inside another engine call) that a parked request's wait ended. */
    interface Waits {
        void granted(Call call);

        void expired(Call call);
    }

    private final QosEngine engine;
    private final String cookieName;
    private final View view = new View();

    SimEngine(QosPolicy policy, Clock clock) {
        this.engine = QosEngine.create(policy, clock);
        this.cookieName = policy.cookies().sessionName();
    }

    /**
     * A policy builder for simulations: the given classes (highest priority first), each with a trusted header rule
     * {@code X-Sim-Class: <name>} (the simulated proxy sets it, so every request carries a credential and no per-address
     * share ever applies to it), a fixed secret and a session table large enough for long runs. Add
     * or change anything else on the returned builder.
     */
    public static QosPolicy.Builder policy(QosPolicy.Scheduling scheduling, int maxExecuting,
                                           ClassPolicy... classes) {
        QosPolicy.Builder b = QosPolicy.builder().scheduling(scheduling).maxExecuting(maxExecuting).secret(SECRET)
                .sessionTableMaxEntries(1_000_000);
        for (ClassPolicy c : classes) {
            b.addClass(c);
            b.addRule(Rule.header(c.name(), CLASS_HEADER, c.name()).asTrusted());
        }
        return b;
    }

    /** The engine under simulation. */
    public QosEngine engine() {
        return engine;
    }

    /** The engine's snapshot now. */
    public EngineSnapshot snapshot() {
        return engine.snapshot();
    }

    /** Sets a class's budget now (see {@link QosEngine#setBudget}). */
    public void setBudget(String serviceClass, int budget) {
        engine.setBudget(serviceClass, budget);
    }

    /** The engine's counters of one class (by name), or null if the policy has no such class. */
    public EngineCounts counts(String serviceClass) {
        ClassStats s = engine.snapshot().get(serviceClass);
        return s == null ? null : counts(s);
    }

    /**
     * Starts the engine's periodic work (the expiry sweep and the control loop) at simulated times, on the
     * simulation's {@link Periodic}: the same seam the adapters fill with their containers' schedulers.
     */
    void start(Periodic periodic) {
        engine.start(periodic);
    }

    void stop() {
        engine.stop();
    }

    /** The control loop's samples take the CPU load from {@code cpu} (the simulated server's). */
    void useCpu(java.util.function.DoubleSupplier cpu) {
        engine.useSampleSource(new EngineSampleSource(engine, cpu));
    }

    /** The policy's index of a class, or -1. */
    int classIndex(String name) {
        return engine.policy().classIndex(name);
    }

    /**
     * Presents one request; returns {@link #RUNNING}, {@link #PARKED} or {@link #REJECTED}. Sets the call's
     * ticket, the admission cookie the response would set (when there is one) and, when refused, why.
     */
    int enter(Call call, String classHeader, String cookie, String path, String host, long nowNanos) {
        view.set(classHeader, cookie, path, host);
        Ticket t = engine.enter(view, nowNanos);
        view.set(null, null, null, null);
        call.ticket = t;
        call.level = t.level();
        String set = t.setCookieHeader();
        if (set != null) {
            call.setCookie = cookieValue(set);
        }
        switch (t.state()) {
            case RUNNING:
                return RUNNING;
            case PARKED:
                return PARKED;
            default:
                call.refusal = refusal(t.rejection());
                return REJECTED;
        }
    }

    /** Listens for the end of a parked request's wait. */
    void await(Call call, Waits waits) {
        ((Ticket) call.ticket).await(new Ticket.Listener() {
            @Override
            public void granted(Ticket ticket) {
                waits.granted(call);
            }

            @Override
            public void expired(Ticket ticket) {
                waits.expired(call);
            }
        });
    }

    /** The request finished: releases its permit, telling its response bytes when the model has any. */
    void complete(Call call) {
        if (call.bytes > 0) {
            ((Ticket) call.ticket).complete(call.bytes);
        } else {
            ((Ticket) call.ticket).complete();
        }
    }

    /** The content levels M of the policy class {@code index}. */
    int levels(int index) {
        return engine.policy().classes().get(index).content().levels();
    }

    /** Reads budget, queued and executing of the policy classes {@code index[i]} (NaN for -1). */
    void readClasses(int[] index, double[] budget, double[] queued, double[] executing) {
        EngineSnapshot s = engine.snapshot();
        for (int i = 0; i < index.length; i++) {
            if (index[i] < 0) {
                budget[i] = queued[i] = executing[i] = Double.NaN;
                continue;
            }
            ClassStats c = s.classes().get(index[i]);
            budget[i] = c.budget();
            queued[i] = c.queued();
            executing[i] = c.executing();
        }
    }

    private static EngineCounts counts(ClassStats s) {
        return new EngineCounts(s.entered(), s.completed(), s.rejected(), s.expired(), s.cancelled(), s.executing(),
                s.queued(), s.grants(), s.waitNanos(), s.sessionsAdmitted(), s.sessionsRefusedQueued()
                + s.sessionsRefusedRate() + s.sessionsRefusedLevel(), s.reconciles());
    }

    private static Refusal refusal(Rejection r) {
        if (r == null) {
            return Refusal.OTHER;
        }
        switch (r.reason()) {
            case SESSION_QUEUED:
                return Refusal.SESSION_QUEUED;
            case SESSION_RATE:
                return Refusal.SESSION_RATE;
            case SESSION_LEVEL:
                return Refusal.SESSION_LEVEL;
            case QUEUE_FULL:
                return Refusal.QUEUE_FULL;
            case BUCKET:
                return Refusal.BUCKET;
            default:
                return Refusal.OTHER;
        }
    }

    /** The value in a {@code Set-Cookie} header ({@code NAME=VALUE; attributes}), or null if it is not ours. */
    private String cookieValue(String setCookie) {
        int eq = setCookie.indexOf('=');
        if (eq != cookieName.length() || !setCookie.startsWith(cookieName)) {
            return null;
        }
        int semi = setCookie.indexOf(';', eq);
        return setCookie.substring(eq + 1, semi < 0 ? setCookie.length() : semi);
    }

    /**
     * The engine's counters of one class, as the simulator compares them with its own.
     *
     * @param entered          requests seen
     * @param completed        requests finished
     * @param rejected         refused at entry
     * @param expired          waited longer than the maximum wait
     * @param cancelled        left while waiting
     * @param executing        holding a permit now
     * @param queued           waiting now
     * @param grants           permits granted
     * @param waitNanos        total wait of the granted requests
     * @param sessionsAdmitted new sessions admitted
     * @param sessionsRefused  new sessions refused (queue triggers and session rate)
     * @param reconciles       whether {@code entered = completed + rejected + expired + cancelled + executing + queued}
     */
    public record EngineCounts(long entered, long completed, long rejected, long expired, long cancelled,
                               long executing, long queued, long grants, long waitNanos, long sessionsAdmitted,
                               long sessionsRefused, boolean reconciles) {
    }

    /**
     * The one request view of a simulation, refilled for each request: the engine reads a view only during
     * {@code enter}, so nothing is allocated per request.
     */
    private final class View implements RequestView {
        private String classHeader;
        private String cookie;
        private String path;
        private String host;

        void set(String classHeader, String cookie, String path, String host) {
            this.classHeader = classHeader;
            this.cookie = cookie;
            this.path = path;
            this.host = host;
        }

        @Override
        public String method() {
            return "GET";
        }

        @Override
        public String host() {
            return host;
        }

        @Override
        public String path() {
            return path;
        }

        @Override
        public String remoteAddress() {
            return "127.0.0.1";
        }

        @Override
        public String cookie(String name) {
            return cookieName.equals(name) ? cookie : null;
        }

        @Override
        public String header(String name) {
            // a browser's page: without an admission cookie, a new session (not a stateless request)
            return CLASS_HEADER.equalsIgnoreCase(name) ? classHeader : "Accept".equalsIgnoreCase(name) ? "text/html"
                    : null;
        }
    }
}

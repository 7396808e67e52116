package dev.servletqos;

import dev.servletqos.control.ControlLaw;
import dev.servletqos.control.ControlLawRegistry;
import dev.servletqos.control.SampleSource;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ContentTrees;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * The request path of servlet-qos, free of any container: adapters turn a request into a {@link RequestView}
 * and call {@link #enter}; the returned {@link Ticket} says whether to run the request now, park it, or refuse
 * it, and is told when a parked request may run.
 *
 * <p>For each request: (0) a request an exempt rule matches ({@code exempt.<n>.*}) bypasses everything below and
 * runs at once on a shared ticket ({@link Ticket#exempt()}); a stream candidate ({@code streams.*}: {@code Accept:
 * text/event-stream}, or a path of {@code streams.paths}) goes through (1) to (6) like any request, except that it
 * is refused before its session's admission while {@code streams.max-open} streams are open, and gives its permit
 * back only when the adapter tells its ticket that the application went asynchronous ({@link Ticket#detach()});
 * (1) a token-bucket rule without a
 * token refuses it, unless it is within its virtual
 * server's guarantee; (2) a request with a valid, unexpired admission cookie belongs to an admitted session and
 * keeps its class; otherwise its credentials (tier cookie, ip rules, rules marked trusted) give the new session
 * its class; (3) the request rules (path, host, header) may lower this one request below its session's class,
 * never raise it; (4) the request's content level is decided from its class's live level and the session (a new
 * session at level 0 is refused); (5) session admission decides for a new session (while its class rations new
 * sessions and it has no credential, its client address's fair share, {@code admission.max-new-sessions-per-address};
 * WebQoS triggers j and k, or the queue guard; the class's session rate; or a lower class's, priority at the door),
 * once per session; a request without an admission cookie that does not ask for HTML is stateless instead: no
 * session, refused while its class rations; (6) the scheduler runs it, queues it (a session's requests beyond
 * {@code admission.max-per-session} first in the session's own line), or refuses it when its class's queue (or its
 * session's line) is full or, when it would wait, when (anonymous, the queue scarce) its address already has too
 * many requests waiting ({@code admission.max-queued-per-address}).
 * An admitted session's later requests are never refused by admission.
 *
 * <p>The settings the engine acts on (max-executing, budgets, session rates, delay targets, content levels,
 * the controller's mode and gains) are one immutable {@link Settings} value, replaced whole through
 * {@link #apply}: by the policy at start, by an operator (the setters, JMX) or by the feedback controller.
 * {@link #snapshot()} says which settings are in force and who set them last.
 *
 * <p>Thread-safe. The engine starts no thread: {@link #start(Periodic)} hands it the container's scheduler,
 * on which it runs its periodic work, the expiry sweep (every {@value #SWEEP_MILLIS} ms, so that requests
 * leave their queue at their maximum wait) and the control loop (every control period).
 */
public final class QosEngine {

    /** How often the engine expires waiting requests past their maximum wait, once started. */
    public static final long SWEEP_MILLIS = 100;

    private static final System.Logger LOG = System.getLogger(QosEngine.class.getName());

    /** The policy in force and what the request path reads from it; replaced whole by {@link #reload}. */
    private volatile Regime regime;
    private final Clock clock;
    private final Scheduler scheduler;
    private final SessionTable sessions;
    private final TierCookies tierCookies;
    private final String sessionCookieName;
    private final ControlLoop control;
    /** Turns each request into its {@link Entry} and enters it. */
    private final Intake intake;
    /** Where {@link #reloadPolicy()} reads the policy again; null for an engine built from a policy object. */
    private volatile Supplier<QosPolicy> source;
    private final List<Consumer<QosPolicy>> reloadListeners = new CopyOnWriteArrayList<>();
    /** The worker threads an adapter reported ({@link #fitToThreads}), 0 if none: a reload fits to them again. */
    private volatile int threads;

    /** Guarded by {@code this}: the expiry sweep while started. */
    private Periodic.Cancellable sweep;
    /** Guarded by {@code this}: where the engine runs its periodic work while started, and the file watch on it. */
    private Periodic periodic;
    /** Periodic runs that threw (the sweep, the control loop, the policy watch): {@link #periodicFailures()}. */
    private final java.util.concurrent.atomic.LongAdder periodicFailures = new java.util.concurrent.atomic.LongAdder();
    /** The watch on the policy file {@link #reloadFrom(Supplier, Path)} named; its schedule under {@code this}. */
    private final PolicyWatch fileWatch = new PolicyWatch(this::reloadPolicy);
    /** The link to the cluster ({@link #joinCluster}), or null: this node alone. */
    private volatile ClusterLink cluster;

    private QosEngine(QosPolicy policy, Clock clock) {
        this.clock = clock;
        this.tierCookies = TierCookies.forPolicy(policy, clock);
        this.sessionCookieName = policy.cookies().sessionName();
        // one signer for both kinds of cookie: the signature domain keeps them apart
        this.regime = Regime.first(policy, new Classifier(policy, tierCookies));
        this.sessions = new SessionTable(policy, new SessionCookies(sessionCookieName, tierCookies.signer(),
                policy.cookies().sessionMaxAge(), policy.cookies().sessionSecure(), clock), clock);
        this.scheduler = new Scheduler(regime, initialSettings(policy), clock);
        this.control = new ControlLoop(this);
        this.intake = new Intake(this, scheduler, sessions, sessionCookieName, clock);
        Classifier.warnOfRequestRulesThatChangeNothing(policy);
    }

    /** The settings a policy starts with: its max-executing, budgets, session rates and delay targets. */
    static Settings initialSettings(QosPolicy policy) {
        List<Settings.ClassSettings> classes = new ArrayList<>();
        for (ClassPolicy c : policy.classes()) {
            int levels = c.content().levels();
            classes.add(new Settings.ClassSettings(c.name(), c.capacity().budget(), c.capacity().minBudget(),
                    c.admission().sessionRate(), c.admission().sessionBurst(), c.delay().target(), levels, levels));
        }
        return new Settings(policy.maxExecuting(), policy.maxExecutingCeiling(), classes, policy.control(),
                Settings.Source.POLICY, RequestBuckets.initial(policy));
    }

    /** An engine for this policy on the system clock. */
    public static QosEngine create(QosPolicy policy) {
        return create(policy, Clock.system());
    }

    /** An engine for this policy on the given clock (tests pass a fake one). */
    public static QosEngine create(QosPolicy policy, Clock clock) {
        if (policy == null || clock == null) {
            throw new NullPointerException("policy and clock are required");
        }
        return new QosEngine(policy, clock);
    }

    /** {@link #enter(RequestView, long)} at the clock's current time. */
    public Ticket enter(RequestView request) {
        return enter(request, clock.nanoTime());
    }

    /**
     * Classifies, admits and schedules one request. Never throws for anything the request carries.
     *
     * @param request the adapter's view of the request
     * @param nowNanos the clock's {@code nanoTime()} now
     * @return the request's ticket: RUNNING, PARKED or REJECTED
     */
    public Ticket enter(RequestView request, long nowNanos) {
        return intake.enter(request, nowNanos);
    }

    /** The policy in force and what the request path reads from it. */
    Regime regime() {
        return regime;
    }

    /**
     * Where the static content of a request is served from at its content level ({@code content.*}, see
     * {@link ContentTrees}): the path under the level's prefix, or null to serve
     * {@code path} as it is. Allocates only a rewritten path.
     *
     * @param ticket  the request's ticket, as {@link #enter} returned it
     * @param request the request: its path within the application, decoded and normalised by the container, is
     *                read only for a request below full content while content trees are configured
     */
    public String contentPath(Ticket ticket, RequestView request) {
        int levels = ticket.levels();
        ContentTrees trees = regime.contentTrees;
        if (ticket.level >= levels || trees.isEmpty()) {
            return null;
        }
        return trees.rewrite(request.path(), ticket.level, levels);
    }

    /** Expires parked requests past their maximum wait (their listeners are told); returns how many. */
    public int expireOverdue() {
        return scheduler.expireOverdue(clock.nanoTime());
    }

    /** {@link #expireOverdue()} at a given time. */
    public int expireOverdue(long nowNanos) {
        return scheduler.expireOverdue(nowNanos);
    }

    /**
     * Starts the engine's periodic work on the container's scheduler: the expiry sweep every
     * {@value #SWEEP_MILLIS} ms and the control loop every control period. Each adapter calls it once its
     * container is up, and {@link #stop()} when it goes down.
     *
     * @throws IllegalStateException if already started
     */
    public synchronized void start(Periodic periodic) {
        if (sweep != null) {
            throw new IllegalStateException("the engine is already started");
        }
        // whatever the adapter's seam does with a task that throws, ours never throw: one Error must not end them
        Periodic scheduler = Periodic.surviving(periodic, "the engine", periodicFailures);
        try {
            sweep = scheduler.schedule(this::sweep, Duration.ofMillis(SWEEP_MILLIS));
            control.start(scheduler);
            this.periodic = scheduler;
            rewatch();
        } catch (RuntimeException | Error e) {
            stop();
            throw e;
        }
    }

    /**
     * Runs of the periodic work (the expiry sweep, the control loop, the policy watch) that threw anything, an
     * {@link Error} included; each failed run is retried at its next period. The meter {@code qos.periodic.failures}.
     */
    public long periodicFailures() {
        return periodicFailures.sum();
    }

    /** Stops the periodic work; requests still waiting are expired by the adapter's own shutdown. Idempotent. */
    public synchronized void stop() {
        if (sweep != null) {
            sweep.cancel();
            sweep = null;
        }
        periodic = null;
        rewatch();
        control.stop();
    }

    /** Takes the link to a cluster ({@link ClusterLink#join}), before start; a stopped engine may join again. */
    synchronized void joined(ClusterLink link) {
        if (sweep != null) {
            throw new IllegalStateException("join a cluster before the engine starts");
        }
        cluster = link;
    }

    /** The link to the cluster, or null when this engine is not in one. */
    public ClusterLink cluster() {
        return cluster;
    }

    private void sweep() {
        try {
            expireOverdue();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "servlet-qos: the expiry sweep failed", e);
        }
    }

    /** The scheduler (tests of the package). */
    Scheduler scheduler() {
        return scheduler;
    }

    /** The settings in force now, and who set them last. */
    public Settings settings() {
        return scheduler.settings();
    }

    /**
     * Puts new settings in force at once, replacing the old ones whole. They are clamped in one place
     * (max-executing at least 1 and the sum of the reserves the policy gives, budgets 0..max-executing and, for the controller,
     * at least the class's min-budget, rates finite, content levels as the policy has them and each live level
     * 0..levels, a level that is not a number leaving the one in force); a raised budget starts waiting
     * requests at once, a lowered one takes effect as running requests finish (non-preemptive). A changed
     * content level applies from the next request that enters.
     *
     * @param proposed the whole settings value, e.g. {@code settings().withBudgets(...)}
     * @param source   who changes them: an {@link Settings.Source#OPERATOR} or the {@link Settings.Source#CONTROLLER}
     * @return the settings now in force (as clamped)
     * @throws IllegalArgumentException if {@code proposed} does not name this engine's classes in order, or its
     *                                  control settings are out of range (the message names the policy key)
     */
    public Settings apply(Settings proposed, Settings.Source source) {
        if (proposed == null || source == null) {
            throw new NullPointerException("settings and source are required");
        }
        synchronized (control) {
            Settings applied = scheduler.apply(proposed, source);
            control.applied(applied);
            return applied;
        }
    }

    /**
     * Where the control loop takes its samples from: by default the engine's own counters and the JVM's
     * operating-system bean for CPU; an application that binds the engine's meters may pass
     * {@code new MicrometerSampleSource(registry, engine)} instead.
     */
    public void useSampleSource(SampleSource source) {
        control.useSource(source);
    }

    /**
     * Runs {@code law} in the control loop instead of the one the control mode selects (e.g. a system
     * identification run), until called again with null. Takes effect at the next period.
     */
    public void overrideControlLaw(ControlLaw law) {
        control.override(law);
    }

    /** What the control loop did: periods, failures, and each class's last reference, measurement and output. */
    public ControlStatus controlStatus() {
        return control.status();
    }

    /** A consistent view of every class's settings and counters. */
    public EngineSnapshot snapshot() {
        Classifier classifier = regime.classifier;
        EngineSnapshot.Sessions s = new EngineSnapshot.Sessions(sessions.size(), classifier.tierResults(),
                classifier.tierUnknownClass(), sessions.cookieResults());
        return scheduler.snapshot(s);
    }

    /**
     * Sets a class's budget (concurrency permits), at once and non-preemptively: a lowered budget takes
     * effect as running requests finish; a raised one starts waiting requests now.
     *
     * @throws IllegalArgumentException for an unknown class or a budget outside 0..max-executing
     */
    public void setBudget(String serviceClass, int budget) {
        int i = index(serviceClass);
        update(s -> {
            if (budget < 0 || budget > s.maxExecuting()) {
                throw new IllegalArgumentException("budget of " + serviceClass + " = " + budget + ": must be 0.."
                        + s.maxExecuting() + " (max-executing)");
            }
            return s.withClass(i, s.get(i).withBudget(budget));
        });
    }

    /**
     * Sets the total concurrency over all classes; budgets above it are lowered to it. The highest class's default
     * reserve ({@link QosPolicy#defaultTopReserve()}) does not hold it up: below the other classes' reserves plus 2
     * the engine drops it, and keeps it again when max-executing is raised.
     *
     * @throws IllegalArgumentException if below 1 or below the sum of the reserves the policy gives
     */
    public void setMaxExecuting(int maxExecuting) {
        int reserves = scheduler.reserves();
        if (maxExecuting < 1 || maxExecuting < reserves) {
            throw new IllegalArgumentException("max-executing = " + maxExecuting + ": must be at least 1 and at "
                    + "least the sum of the reserves the policy gives (" + reserves + ")");
        }
        update(s -> s.withMaxExecuting(maxExecuting));
    }

    /**
     * Tells the engine how many worker threads the container has: the ceiling of {@code max-executing} becomes
     * at most {@code threads} minus an eighth of them (at least 2), because a resumed request is a new task on
     * the same pool and the container needs threads of its own. Adapters call it at start when they can read
     * the pool's size (Tomcat's connectors, Jetty's server thread pool); the filter cannot. Only with
     * {@code control.capacity = auto}: a fixed {@code max-executing} stays as configured (the Jetty adapter warns
     * when it is not below the pool; the Tomcat valve does not).
     *
     * @return the ceiling now in force
     * @throws IllegalArgumentException if {@code threads} is below 1
     */
    public int fitToThreads(int threads) {
        if (threads < 1) {
            throw new IllegalArgumentException("threads = " + threads + ": must be at least 1");
        }
        this.threads = threads;
        if (settings().control().capacity() != dev.servletqos.policy.ControlPolicy.Capacity.AUTO) {
            return settings().ceiling();
        }
        int room = Math.max(1, threads - Math.max(2, threads / 8));
        // the limit in force comes down too: an operator's max-executing above the ceiling would raise it again
        update(s -> {
            int ceiling = Math.min(s.ceiling(), room);
            return s.withCeiling(ceiling).withMaxExecuting(Math.min(s.maxExecuting(), ceiling));
        });
        return settings().ceiling();
    }

    /**
     * Sets a token-bucket rule's rate (an operator's change; the bucket law, if it runs, moves it again from
     * there each period). Clamped to at least the bucket's {@code min-rate}.
     *
     * @throws IllegalArgumentException for an unknown bucket or a rate that is not a positive number
     */
    public void setBucketRate(String bucket, double perSecond) {
        if (!(perSecond > 0) || Double.isInfinite(perSecond)) {
            throw new IllegalArgumentException("rate of bucket " + bucket + " = " + perSecond
                    + ": must be a positive number");
        }
        update(s -> {
            int i = s.bucketIndex(bucket);
            if (i < 0) {
                throw new IllegalArgumentException("no bucket \"" + bucket + "\"; buckets are "
                        + s.buckets().stream().map(Settings.BucketSettings::name).toList());
            }
            return s.withBucketRate(i, perSecond);
        });
    }

    /**
     * Sets a class's new-session rate and bucket depth.
     *
     * @param perSecond new sessions per second; 0 = no limit
     * @param burst     bucket depth, at least 1
     * @throws IllegalArgumentException for an unknown class or values out of range
     */
    public void setSessionRate(String serviceClass, double perSecond, int burst) {
        int i = index(serviceClass);
        if (!(perSecond >= 0) || Double.isInfinite(perSecond) || burst < 1) {
            throw new IllegalArgumentException("session rate of " + serviceClass + " = " + perSecond + "/s, burst "
                    + burst + ": the rate must be 0 (no limit) or a positive number, the burst at least 1");
        }
        update(s -> s.withClass(i, s.get(i).withSessionRate(perSecond, burst)));
    }

    /**
     * The control laws this engine's loop chains each period, by stage and mode: register a law of one's own
     * here, beside the built-in ones or in place of one. A change takes effect at the next period. Thread-safe.
     */
    public ControlLawRegistry controlLaws() {
        return control.laws();
    }

    /**
     * An operator's change of part of the settings (the setters above, the JMX beans): the settings in force are
     * read, changed by {@code change} and put in force through {@link #apply} as {@link Settings.Source#OPERATOR},
     * with no other writer (the controller, another operator) between the read and the apply, so that neither
     * change is lost. Nothing changes when {@code change} or {@code apply} throws.
     *
     * @param change the change, e.g. {@code s -> s.withClass(i, s.get(i).withBudget(4))}; it may throw to refuse
     * @return the settings now in force (as clamped)
     * @throws IllegalArgumentException as {@link #apply} does, or as {@code change} does
     */
    public Settings update(UnaryOperator<Settings> change) {
        synchronized (control) {
            return apply(change.apply(settings()), Settings.Source.OPERATOR);
        }
    }

    /**
     * The policy in force: the one the engine was built with, or the last one {@link #reload reloaded} (operators'
     * and the controller's changes since are in {@link #settings()}, not here).
     */
    public QosPolicy policy() {
        return regime.policy;
    }

    /**
     * Tells the engine where its policy comes from, so that {@link #reloadPolicy()} can read it again: the adapters
     * pass their own reading of the file (with their overrides), an engine built from a policy object has none.
     *
     * @param source reads and validates the policy again, throwing {@link PolicyException} for a bad one
     */
    public void reloadFrom(Supplier<QosPolicy> source) {
        reloadFrom(source, null);
    }

    /**
     * {@link #reloadFrom(Supplier)}, naming the file {@code source} reads: with {@code policy.watch} above zero, the
     * started engine looks at it that often and reloads it when it changed.
     *
     * @param file the policy file, or null when there is none to watch (a class-path resource)
     */
    public void reloadFrom(Supplier<QosPolicy> source, Path file) {
        this.source = source;
        fileWatch.watch(file);
        rewatch();
    }

    /** Schedules, reschedules or cancels the file watch for the policy in force; under {@code this}. */
    private synchronized void rewatch() {
        fileWatch.reschedule(periodic, source != null, regime.policy.watch());
    }

    /** Whether {@link #reloadPolicy()} has somewhere to read the policy from. */
    public boolean reloadable() {
        return source != null;
    }

    /**
     * Reads the policy again from where the adapter read it ({@link #reloadFrom}) and puts it in force with
     * {@link #reload}. A policy that does not parse or validate changes nothing.
     *
     * @return the policy now in force
     * @throws PolicyException       if the policy does not parse or validate, or changes what cannot change while
     *                               running; the message names the key and the value, and the old policy stays
     * @throws IllegalStateException if the engine was built from a policy object and has nowhere to read it from
     */
    public QosPolicy reloadPolicy() {
        Supplier<QosPolicy> s = source;
        if (s == null) {
            throw new IllegalStateException("this engine was built from a policy object, not read from a file: "
                    + "there is nothing to reload it from (change it with the settings, or build a new engine)");
        }
        QosPolicy next = s.get();
        reload(next);
        return next;
    }

    /**
     * Puts a new policy in force, whole and at once: its classes (content levels included), rules (credentials and
     * request rules), scheduling, borrowing, refusals, caps ({@code admission.max-per-session},
     * {@code admission.max-queued-per-address}), token-bucket rules, virtual servers and their plan, content trees,
     * control settings (the control loop rebuilds its laws, the degradation law included, from the next period)
     * and the settings it starts with (which replace an operator's or the controller's; but a class that stays with
     * the same number of content levels keeps its live level, and a token-bucket rule that stays the same keeps its
     * live rate). Requests waiting
     * keep their place in their class's queue; the waiting requests of a class the new policy no longer has join
     * its default class's queue in arrival order and are served under that class's rules (its maximum wait and
     * delay target from now), never dropped; its running requests finish and count as the default class's, and its
     * admitted sessions go on in the default class. Guaranteed requests keep their place in the guaranteed queue; a
     * waiting request keeps its content level, lowered to its class's levels if these are fewer now. Counters go on
     * (each class's still reconcile), and so do each session's requests in flight and each address's waiting
     * requests under the caps. The signing keys, the cookies and the session table cannot change while running: a
     * policy that changes them is refused.
     *
     * @throws PolicyException if the policy changes a key that cannot change while running, or its control settings
     *                         do not fit its classes; nothing changes then
     */
    public void reload(QosPolicy next) {
        if (next == null) {
            throw new NullPointerException("policy");
        }
        Settings initial = initialSettings(next);
        synchronized (control) {
            Regime old = regime;
            checkFixed(old.policy, next);
            try {
                initial.control().check(next.classes().size());
            } catch (IllegalArgumentException e) {
                throw e instanceof PolicyException p ? p : new PolicyException(e.getMessage());
            }
            Regime r = old.next(next, new Classifier(next, tierCookies, old.classifier));
            Settings applied = scheduler.reload(r, initial);
            regime = r;
            control.reloaded(applied);
            int t = threads;
            if (t > 0) {
                fitToThreads(t);
            }
        }
        rewatch();
        Classifier.warnOfRequestRulesThatChangeNothing(next);
        LOG.log(System.Logger.Level.INFO, "servlet-qos: policy reloaded: classes "
                + next.classes().stream().map(ClassPolicy::name).toList());
        for (Consumer<QosPolicy> l : reloadListeners) {
            try {
                l.accept(next);
            } catch (RuntimeException e) {
                LOG.log(System.Logger.Level.WARNING, "servlet-qos: a policy reload listener failed", e);
            }
        }
    }

    /** The keys a running engine cannot take from a reloaded policy: they are in cookies already issued. */
    private static void checkFixed(QosPolicy was, QosPolicy next) {
        fixed("tier-cookie.name", was.cookies().tierName(), next.cookies().tierName());
        if (!was.cookies().signingKeys().equals(next.cookies().signingKeys())) {
            throw new PolicyException("tier-cookie.secret", "(hidden)", "cannot change while running (cookies "
                    + "signed with it are out); restart the application to change the signing keys");
        }
        fixed("tier-cookie.max-age", was.cookies().tierMaxAge(), next.cookies().tierMaxAge());
        fixed("tier-cookie.secure", was.cookies().tierSecure(), next.cookies().tierSecure());
        fixed("session-cookie.name", was.cookies().sessionName(), next.cookies().sessionName());
        fixed("session-cookie.max-age", was.cookies().sessionMaxAge(), next.cookies().sessionMaxAge());
        fixed("session-cookie.secure", was.cookies().sessionSecure(), next.cookies().sessionSecure());
        fixed("session-table.max-entries", was.sessionTable().maxEntries(), next.sessionTable().maxEntries());
        fixed("session-table.idle-timeout", was.sessionTable().idleTimeout(), next.sessionTable().idleTimeout());
    }

    private static void fixed(String key, Object was, Object next) {
        if (!was.equals(next)) {
            throw new PolicyException(key, String.valueOf(next), "cannot change while running (it is " + was
                    + "); restart the application to change it");
        }
    }

    /**
     * Calls {@code listener} with the new policy after every {@link #reload} (the JMX beans and the meters follow
     * the classes with it), outside the engine's locks.
     *
     * @return closing it removes the listener
     */
    public AutoCloseable onReload(Consumer<QosPolicy> listener) {
        reloadListeners.add(java.util.Objects.requireNonNull(listener));
        return () -> reloadListeners.remove(listener);
    }

    /** The engine's clock. */
    public Clock clock() {
        return clock;
    }

    /**
     * Issues and checks tier cookies with this policy's secret; the application calls
     * {@link TierCookies#setCookieHeader(String, String)} at login.
     */
    public TierCookies tierCookies() {
        return tierCookies;
    }

    private int index(String serviceClass) {
        QosPolicy policy = regime.policy;
        int i = policy.classIndex(serviceClass);
        if (i < 0) {
            throw new IllegalArgumentException("no service class \"" + serviceClass + "\"; classes are "
                    + policy.classes().stream().map(ClassPolicy::name).toList());
        }
        return i;
    }
}

package dev.servletqos;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The request path of servlet-qos, free of any container: adapters turn a request into a {@link RequestView}
 * and call {@link #enter}; the returned {@link Ticket} says whether to run the request now, park it, or refuse
 * it, and is told when a parked request may run.
 *
 * <p>For each request: (1) a request with a valid admission cookie belongs to an admitted session and keeps
 * its class; (2) otherwise the rules classify it and session admission decides (WebQoS triggers j and k, the
 * class's session rate), once per session; (3) the scheduler runs it, queues it, or refuses it when its
 * class's queue is full. An admitted session's later requests are never refused by admission.
 *
 * <p>Thread-safe. The engine starts no thread: a container adapter calls {@link #expireOverdue()}
 * periodically (a few times a second) so that requests leave their queue at their maximum wait.
 */
public final class QosEngine {

    private final QosPolicy policy;
    private final Clock clock;
    private final Scheduler scheduler;
    private final Classifier classifier;
    private final SessionTable sessions;
    private final TierCookies tierCookies;
    private final String sessionCookieName;

    private QosEngine(QosPolicy policy, Clock clock) {
        this.policy = policy;
        this.clock = clock;
        String secret = policy.secret() != null ? policy.secret() : randomSecret();
        this.tierCookies = TierCookies.create(policy.tierCookieName(), secret, policy.previousSecret(),
                policy.tierCookieMaxAge(), clock);
        Signer signer = new Signer(Signer.secretBytes(secret),
                policy.previousSecret() == null ? null : Signer.secretBytes(policy.previousSecret()));
        this.sessionCookieName = policy.sessionCookieName();
        this.sessions = new SessionTable(policy,
                new SessionCookies(sessionCookieName, signer, policy.sessionMaxAge(), clock), clock);
        this.scheduler = new Scheduler(policy, clock);
        this.classifier = new Classifier(policy, tierCookies);
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

    // Without a configured secret the admission cookies are signed with a key only this JVM knows: sessions
    // stay admitted on this node, and another node (or a restart) admits them anew.
    private static String randomSecret() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
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
        SessionTable.Session s = sessions.lookup(request.cookie(sessionCookieName));
        if (s != null) {
            Ticket t = scheduler.enter(s.classIndex(), nowNanos);
            if (t.state != Ticket.State.REJECTED) {
                t.setCookieHeader(sessions.renewal(s));
            }
            return t;
        }
        int c = classifier.classify(request);
        Ticket t = scheduler.enterNewSession(c, nowNanos);
        if (t.state != Ticket.State.REJECTED) {
            t.setCookieHeader(sessions.admitNew(c));
        }
        return t;
    }

    /** Expires parked requests past their maximum wait (their listeners are told); returns how many. */
    public int expireOverdue() {
        return scheduler.expireOverdue(clock.nanoTime());
    }

    /** {@link #expireOverdue()} at a given time. */
    public int expireOverdue(long nowNanos) {
        return scheduler.expireOverdue(nowNanos);
    }

    /** A consistent view of every class's settings and counters. */
    public EngineSnapshot snapshot() {
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
        scheduler.setBudget(index(serviceClass), budget);
    }

    /**
     * Sets the total concurrency over all classes; budgets above it are lowered to it.
     *
     * @throws IllegalArgumentException if below 1 or below the sum of the reserves
     */
    public void setMaxExecuting(int maxExecuting) {
        scheduler.setMaxExecuting(maxExecuting);
    }

    /**
     * Sets a class's new-session rate and bucket depth.
     *
     * @param perSecond new sessions per second; 0 = no limit
     * @param burst     bucket depth, at least 1
     * @throws IllegalArgumentException for an unknown class or values out of range
     */
    public void setSessionRate(String serviceClass, double perSecond, int burst) {
        scheduler.setSessionRate(index(serviceClass), perSecond, burst, clock.nanoTime());
    }

    /** The policy the engine was built with (later setter calls are not reflected here). */
    public QosPolicy policy() {
        return policy;
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
        int i = policy.classIndex(serviceClass);
        if (i < 0) {
            throw new IllegalArgumentException("no service class \"" + serviceClass + "\"; classes are "
                    + policy.classes().stream().map(ClassPolicy::name).toList());
        }
        return i;
    }
}

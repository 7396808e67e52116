package dev.servletqos;

import dev.servletqos.policy.ControlPolicy;
import java.util.List;

/**
 * The request path before the scheduler: turns an adapter's {@link RequestView} into one {@link Entry} (steps 0 to 4 of
 * {@link QosEngine}'s list: exempt and stream rules, token-bucket rules, session lookup, classification, content
 * level) and enters it ({@link Scheduler#enter}); then gives an admitted session's request its cookie. Thread-safe:
 * it reads the engine's regime, and its parts are thread-safe.
 */
final class Intake {

    /** The media type of a browser's page. */
    private static final String TEXT_HTML = "text/html";

    private final QosEngine engine;
    private final Scheduler scheduler;
    private final SessionTable sessions;
    private final String sessionCookieName;
    private final Clock clock;
    private final Routes routes = new Routes();

    Intake(QosEngine engine, Scheduler scheduler, SessionTable sessions, String sessionCookieName, Clock clock) {
        this.engine = engine;
        this.scheduler = scheduler;
        this.sessions = sessions;
        this.sessionCookieName = sessionCookieName;
        this.clock = clock;
    }

    /**
     * Classifies, admits and schedules one request ({@link QosEngine#enter(RequestView, long)}). Never throws for
     * anything the request carries. Allocates the ticket, and for a new session its id, load and cookie.
     */
    Ticket enter(RequestView request, long nowNanos) {
        Regime r = engine.regime();
        // first of all: an exempt request (a health probe, the metrics scrape) bypasses QoS; a stream candidate
        // enters like any request, and gives its permit back only once its application went asynchronous (detach)
        if (r.front.exempt(request)) {
            return scheduler.exempt();
        }
        boolean stream = r.front.stream(request);
        // a virtual server's requests within its guarantee are never refused for other hosts' load
        VirtualServers.Host host = r.hosts.isEmpty() ? null : r.hosts.of(request.host());
        boolean guaranteed = host != null && VirtualServers.take(host, nowNanos);
        // the token-bucket rules refuse before the request is classified or its session looked up
        if (!guaranteed && !r.buckets.isEmpty() && r.buckets.refuse(request, nowNanos) >= 0) {
            return Ticket.refused(scheduler, nowNanos, scheduler.rejections().of(Rejection.Reason.BUCKET));
        }
        String cookie = request.cookie(sessionCookieName);
        long epochSecond = cookie != null ? clock.epochSecondAt(nowNanos) : 0;
        SessionTable.Session s = sessions.lookup(cookie, epochSecond, nowNanos, r);
        if (s != null && s.generation() > r.generation) {
            r = engine.regime(); // a request under a policy reloaded since this one began put the session in the table
        }
        // the session's class comes from its credentials, once; request rules can only lower one request. A class
        // index is meaningful with its policy's generation: one of an earlier policy is carried over by name.
        int classified = s == null ? r.classifier.classifyNew(request) : 0;
        int sessionClass = s == null ? classified & ~Classifier.CREDENTIAL
                : r.resolve(s.generation(), s.classIndex());
        // an admitted session, a tier cookie, an ip or trusted rule is a credential: no per-address limit for it
        boolean credential = s != null || (classified & Classifier.CREDENTIAL) != 0;
        // no admission cookie and not a browser's page (text/html in Accept, any case; no Accept at all included): an
        // API caller or a probe, admitted by request (Entry.STATELESS), never a session. Read from the view, so that
        // an adapter holding the header as bytes need not decode it.
        boolean stateless = s == null && !request.headerHasMediaType("Accept", TEXT_HTML);
        int c = r.classifier.requestClass(request, sessionClass);
        Settings settings = scheduler.settings();
        // only the capacity law compares routes: without it, no path is read for them
        int route = settings.control().capacity() == ControlPolicy.Capacity.AUTO
                ? routes.of(request.method(), request.path()) : 0;
        Settings.ClassSettings cs = classSettings(settings, r, c);
        int level = cs != null ? cs.levels() : r.policy.classes().get(c).content().levels();
        String newId = null;
        // a request within its virtual server's guarantee is served at full content, whatever the level
        if (cs != null && cs.level() < level && !guaranteed) {
            // degraded: the session decides between I and I+1, so a new one needs its id now
            String id = s != null ? s.id() : (newId = SessionCookies.newSessionId());
            level = level(cs.level(), cs.levels(), share(id));
            if (level == 0 && s != null) {
                level = 1; // an admitted session is served, at the lightest content
            }
        }
        SessionLoad load = s != null ? s.load() : stateless ? null : new SessionLoad();
        Ticket t = scheduler.enter(new Entry(c, sessionClass, r.generation, route, level, s == null, load,
                !credential && (r.policy.admission().maxQueuedPerAddress() > 0 || r.policy.admission().maxNewSessionsPerAddress() > 0)
                        ? request.remoteAddress() : null,
                (stateless ? Entry.STATELESS : 0) | (credential ? Entry.CREDENTIAL : 0)
                        | (!stream ? 0 : credential ? Entry.STREAM : Entry.STREAM | Entry.ANONYMOUS_STREAM),
                host, guaranteed), nowNanos);
        if (t.state != Ticket.State.REJECTED && !stateless) {
            t.setCookieHeader(s != null ? sessions.renewal(s, epochSecond, t, r)
                    : sessions.admitNew(r, sessionClass, newId, load));
        }
        return t;
    }

    /**
     * The settings in force of class {@code c} of {@code r}, or null while a reload put another policy's settings
     * in force that has no class of that name (the request then enters at full content, and the scheduler carries
     * it over by name).
     */
    private static Settings.ClassSettings classSettings(Settings settings, Regime r, int c) {
        List<Settings.ClassSettings> cs = settings.classes();
        String name = r.name(c);
        if (c < cs.size() && cs.get(c).name().equals(name)) {
            return cs.get(c);
        }
        for (Settings.ClassSettings x : cs) {
            if (x.name().equals(name)) {
                return x;
            }
        }
        return null;
    }

    /**
     * The content level of a session whose {@link #share} is {@code share} when its class's level is {@code m}
     * (paper 000 section 4.2): with {@code m = I + F}, I+1 if {@code share < F}, else I; at most {@code levels}.
     * A session's level rises and falls with m, never against it, and stays while m does.
     */
    static int level(double m, int levels, double share) {
        if (!(m < levels)) {
            return levels;
        }
        if (!(m > 0)) {
            return 0;
        }
        int whole = (int) m;
        return share < m - whole ? whole + 1 : whole;
    }

    /**
     * Where a session falls in [0, 1): a mix of the hash of its id (which the admission cookie carries and its
     * renewals keep), the same on every node. Spread evenly over the sessions, so that the sessions below F are
     * a fraction F of them.
     */
    static double share(String sessionId) {
        long z = sessionId.hashCode() * 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 32)) * 0xD6E8FEB86659FD93L;
        z ^= z >>> 32;
        return (z >>> 11) * 0x1.0p-53;
    }
}

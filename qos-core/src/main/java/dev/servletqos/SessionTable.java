package dev.servletqos;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.servletqos.policy.QosPolicy;
import java.util.concurrent.atomic.LongAdder;

/**
 * The sessions this node has admitted, keyed by the value of their signed admission cookie, bounded by
 * entries and idle time (Caffeine). A cookie this node does not know (issued by another node behind the
 * load balancer, or evicted here) is honoured when its signature checks out and it has not expired, and is
 * then remembered; a forged or broken one costs a signature check and no memory. Thread-safe.
 */
final class SessionTable {

    /** An admitted session: its class, its id and until when the cookie the client holds is valid. */
    record Session(int classIndex, String id, long admittedUntil) {
    }

    private final Cache<String, Session> sessions;
    private final SessionCookies cookies;
    private final QosPolicy policy;
    private final Clock clock;
    private final long maxAgeSeconds;
    private final LongAdder[] cookieResults = Classifier.newAdders(TierCookies.Verified.Status.values().length);

    SessionTable(QosPolicy policy, SessionCookies cookies, Clock clock) {
        this.policy = policy;
        this.cookies = cookies;
        this.clock = clock;
        this.maxAgeSeconds = policy.sessionMaxAge().getSeconds();
        this.sessions = Caffeine.newBuilder()
                .maximumSize(policy.sessionTableMaxEntries())
                .expireAfterAccess(policy.sessionIdleTimeout())
                .ticker(clock::nanoTime)
                .executor(Runnable::run)
                .build();
    }

    /** The admitted session this cookie value stands for, or null for a new session. */
    Session lookup(String cookieValue) {
        if (cookieValue == null) {
            return null;
        }
        Session s = sessions.getIfPresent(cookieValue);
        if (s != null) {
            return s;
        }
        SessionCookies.Verified v = cookies.verify(cookieValue);
        cookieResults[v.status().ordinal()].increment();
        if (v.status() != TierCookies.Verified.Status.VALID) {
            return null;
        }
        int c = policy.classIndex(v.serviceClass());
        if (c < 0) {
            return null;
        }
        s = new Session(c, v.sessionId(), v.admittedUntil());
        sessions.put(cookieValue, s);
        return s;
    }

    /**
     * The Set-Cookie header that renews an admitted session's cookie once half its validity has passed, or
     * null while it is fresh: an active session never reaches the end of its admission.
     */
    String renewal(Session s) {
        long now = clock.epochSecond();
        if (s.admittedUntil() - now > maxAgeSeconds / 2) {
            return null;
        }
        return admit(s.classIndex(), s.id(), now);
    }

    /** Records a newly admitted session and returns the Set-Cookie header of its admission cookie. */
    String admitNew(int classIndex) {
        return admit(classIndex, SessionCookies.newSessionId(), clock.epochSecond());
    }

    private String admit(int classIndex, String id, long now) {
        long until = now + maxAgeSeconds;
        String value = cookies.issue(policy.classes().get(classIndex).name(), id, until);
        sessions.put(value, new Session(classIndex, id, until));
        return cookies.setCookieHeader(value, until);
    }

    long size() {
        return sessions.estimatedSize();
    }

    long[] cookieResults() {
        return Classifier.sums(cookieResults);
    }
}

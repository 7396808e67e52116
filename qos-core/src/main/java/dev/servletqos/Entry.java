package dev.servletqos;

/**
 * What {@link QosEngine#enter} decided about one request before the {@link Scheduler} takes it: the hand-off from
 * classification to admission and scheduling. Made per request, read at once by {@link Scheduler#enter} and not kept,
 * so that the JIT can take it apart (the request path allocates its ticket only). Immutable.
 *
 * @param classIndex   the request's class, of the policy of {@code generation} (request rules may lower it below its
 *                     session's)
 * @param sessionClass the class of its session: whose admission steps and session rate a new session meets
 * @param generation   the generation of the policy both indexes are of ({@link Regime})
 * @param route        its route ({@link Routes}; 0 when not known)
 * @param level        its content level: 0 (a new session refused) .. the class's levels
 * @param newSession   the first request of a session not known yet, or a stateless request (no session made)
 * @param load         its session's requests in flight, counted while this one is; null: not counted
 * @param address      the client's address, for the per-address limits ({@code admission.max-queued-per-address}
 *                     and, for a new session, {@code admission.max-new-sessions-per-address}); null: not counted
 * @param kind         0 or these or'ed: {@link #STATELESS}, {@link #CREDENTIAL}, {@link #STREAM} and with it, for a
 *                     stream candidate of no admitted session, {@link #ANONYMOUS_STREAM}
 * @param host         its virtual server ({@link VirtualServers}), or null
 * @param guaranteed   within its virtual server's guarantee: never refused but by a full stream pool
 */
record Entry(int classIndex, int sessionClass, int generation, int route, int level, boolean newSession,
             SessionLoad load, String address, int kind, VirtualServers.Host host, boolean guaranteed) {

    /**
     * A request without an admission cookie that is not a browser's page: admitted by request, never a session;
     * refused while its class rations new sessions, else run or queued as any, taking no session token.
     */
    static final int STATELESS = 1;
    /**
     * A request carrying a credential (admission cookie, tier cookie, ip or trusted rule): never refused by a
     * per-address limit; {@code address} is asked only of the others.
     */
    static final int CREDENTIAL = 2;
    /** A stream candidate ({@code streams.*}): it may become an open stream once its application went async. */
    static final int STREAM = 4;
    /** With {@link #STREAM}: a candidate of no admitted session and no credential, counted in the anonymous half. */
    static final int ANONYMOUS_STREAM = 8;
}

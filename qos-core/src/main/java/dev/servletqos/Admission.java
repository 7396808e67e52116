package dev.servletqos;

import dev.servletqos.policy.QosPolicy;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Who may enter: the one ordered chain of refusals a request meets in {@link Scheduler#enter}, each step refusing with
 * its own {@link Rejection.Reason}, counted by reason in its class ({@link Lane#refused}). The steps, in order (the
 * first that refuses decides; {@link #admitLocked} lists them):
 * <ol>
 *   <li>{@code streams-full}: a stream candidate while {@code streams.max-open} streams are open (half of them for
 *       one of no admitted session), before anything else, its session's admission included. A request within its
 *       virtual server's guarantee meets no other step;</li>
 *   <li>{@code session-level}: a new session while its content level is 0;</li>
 *   <li>{@code session-address}: an anonymous new session whose address is above its fair share while its class
 *       rations ({@code admission.max-new-sessions-per-address});</li>
 *   <li>{@code session-queued}: a stateless request while its class rations new sessions;</li>
 *   <li>{@code session-queued}, {@code session-rate}: the class's {@link AdmissionStep}s (the WebQoS triggers or the
 *       queue guard, then the session rate), or a lower class's: priority at the door;</li>
 *   <li>{@code session-limit}: a request that would wait in its session's line while the line holds its class's
 *       {@code max-queue} ({@code admission.max-per-session});</li>
 *   <li>{@code queue-full}: a request that would wait while its class's queue is full;</li>
 *   <li>{@code address-limit}: a request of no credential that would wait while its address has its share of a scarce
 *       queue waiting ({@code admission.max-queued-per-address}).</li>
 * </ol>
 * An admitted session's later requests never meet steps 2 to 5. Also owns the per-address state: the fair shares of
 * new sessions ({@link AddressSessions}) and the requests waiting per address.
 *
 * <p>Not thread-safe: the scheduler's lock guards it (methods named {@code ...Locked}).
 */
final class Admission {

    /** The scheduler's logger, as before admission had a class of its own: users' logging configurations name it. */
    private static final System.Logger LOG = System.getLogger(Scheduler.class.getName());

    /** How long a class counts as rationing after its admission refused a new session, nanoseconds. */
    static final long RATIONING_NANOS = 1_000_000_000L;

    private final Scheduler scheduler;
    /** {@code admission.max-queued-per-address}; 0 = no limit. */
    private int maxQueuedPerAddress;
    /**
     * The fair shares of anonymous new sessions among client addresses while their class rations them
     * ({@code admission.max-new-sessions-per-address}, the least share); null when off (0). Kept across reloads
     * while on (the addresses keep their counts).
     */
    private AddressSessions addressSessions;
    /**
     * Whether a per-address share binding for an address that looks like a proxy's or a NAT's was logged (once per
     * engine).
     */
    private boolean addressRefusalLogged;
    /**
     * Requests waiting now per client address (those that entered while the limit was on: each is counted once
     * and uncounted once, across reloads too).
     */
    private final Map<String, int[]> queuedByAddress = new HashMap<>();
    /** What the other nodes of a cluster saw of the addresses they report ({@link ClusterLink}); empty: none. */
    private Map<String, AddressSessions.Elsewhere> elsewhere = Map.of();

    Admission(Scheduler scheduler) {
        this.scheduler = scheduler;
    }

    /** Takes a policy's per-address limits; the address counts stay while the limit is on. */
    void configureLocked(QosPolicy p) {
        maxQueuedPerAddress = p.admission().maxQueuedPerAddress();
        if (p.admission().maxNewSessionsPerAddress() <= 0) {
            addressSessions = null;
        } else if (addressSessions == null) {
            addressSessions = new AddressSessions(p.admission().maxNewSessionsPerAddress());
        } else {
            addressSessions.configure(p.admission().maxNewSessionsPerAddress());
        }
    }

    /** Takes what the other nodes of a cluster saw of the addresses (an empty map: nothing, local only). */
    void elsewhereLocked(Map<String, AddressSessions.Elsewhere> seen) {
        elsewhere = seen;
    }

    /** The addresses asking most new sessions here ({@link AddressSessions#hot}); empty when there is no limit. */
    List<AddressSessions.Hot> hotLocked(int max, long now) {
        return addressSessions == null ? List.of() : addressSessions.hot(max, now);
    }

    /** The new sessions per address table, or null when there is no limit. */
    AddressSessions addressSessionsLocked() {
        return addressSessions;
    }

    /**
     * The chain for ticket {@code t}, entering its class ({@code t.lane}) with its level decided: true when no step
     * refuses it (a new session then counts as admitted and takes its session token), else false with the ticket
     * REJECTED and the refusal counted by its reason.
     *
     * @param sessionLane the class of its session: whose steps, counters and session rate a new session meets
     * @param newSession  the first request of a session not known yet, or a stateless request
     * @param kind        {@link Entry#STATELESS} and the other flags of {@link Entry#kind()}
     * @param load        its session's requests in flight; null: not counted
     * @param address     its client's address when it has no credential and a per-address limit is on, else null
     * @param place       where it goes if admitted: only a request that would wait meets steps 6 to 8
     */
    boolean admitLocked(Ticket t, Lane sessionLane, boolean newSession, int kind, SessionLoad load, String address,
                        Dispatcher.Place place, long now) {
        // most requests: an admitted session's, no stream, starting at once; no step below can refuse them. Kept
        // apart from the chain so that the JIT inlines this check into the scheduler and calls the chain only when
        // a step has something to ask
        return !newSession && !t.candidate && !t.guaranteed && place == Dispatcher.Place.START
                || chainLocked(t, sessionLane, newSession, kind, load, address, place, now);
    }

    /** The chain itself ({@link #admitLocked}). */
    private boolean chainLocked(Ticket t, Lane sessionLane, boolean newSession, int kind, SessionLoad load,
                                String address, Dispatcher.Place place, long now) {
        Lane lane = t.lane;
        // 1 streams-full
        if (t.candidate && scheduler.streamsFullLocked(t.anonymousStream)) {
            return refuseLocked(t, lane, Rejection.Reason.STREAMS_FULL);
        }
        boolean session = newSession && (kind & Entry.STATELESS) == 0;
        if (t.guaranteed) {
            // within its virtual server's guarantee: never refused by admission, a full queue or a limit
            if (session) {
                sessionLane.sessionsAdmitted++;
            } else if (newSession) {
                lane.statelessAdmitted++;
            }
            return true;
        }
        int slot = -1;
        if (session && address != null && addressSessions != null) {
            slot = addressSessions.slot(address, now);
            addressSessions.asked(slot, now);
        }
        // whose session token the new session takes: its class's, or a lower class's (priority at the door)
        Lane payer = sessionLane;
        if (newSession) {
            payer = sessionStepsLocked(t, sessionLane, kind, address, slot, now);
            if (payer == null) {
                return false;
            }
        }
        // 6 session-limit: the session's line holds the class's max-queue already
        if (place == Dispatcher.Place.LINE && load.lined >= lane.maxQueue) {
            return refuseLocked(t, lane, Rejection.Reason.SESSION_LIMIT);
        }
        if (place == Dispatcher.Place.QUEUE) {
            // 7 queue-full
            if (lane.queued >= lane.maxQueue) {
                return refuseLocked(t, lane, Rejection.Reason.QUEUE_FULL);
            }
            // 8 address-limit
            if (address != null && maxQueuedPerAddress > 0 && overQueueShareLocked(lane, address, now)) {
                warnOfSharedAddressLocked(address, true);
                return refuseLocked(t, lane, Rejection.Reason.ADDRESS_LIMIT);
            }
        }
        if (session) {
            sessionLane.sessionsAdmitted++;
            payer.sessions.take();
            if (slot >= 0) {
                addressSessions.admitted(slot, now);
            }
        } else if (newSession) {
            lane.statelessAdmitted++;
        }
        return true;
    }

    /**
     * Steps 2 to 5 for a new session or a stateless request ({@link #chainLocked}): the class whose session token it
     * takes, or null when a step refused it (the ticket REJECTED). Apart from the chain so that each stays under the
     * JIT's limit for hot methods and inlines.
     *
     * @param slot its address's slot in the new sessions per address table, -1: none
     */
    private Lane sessionStepsLocked(Ticket t, Lane sessionLane, int kind, String address, int slot, long now) {
        // 2 session-level (paper 000: the lowest level is refusal)
        if (t.level == 0) {
            rationedLocked(sessionLane, now, slot);
            refuseLocked(t, sessionLane, Rejection.Reason.SESSION_LEVEL);
            return null;
        }
        boolean rationing = rationingLocked(sessionLane, now);
        // 3 session-address: asked before the class's steps, so that one address's flood is held before it takes
        // its class's session tokens: its share only while the class rations (a class with room admits everybody,
        // whatever their address); and an address asking more than its fair share leaves in the bucket the tokens
        // the others' demand needs (held only once they were refused, a flood at its share kept the bucket empty,
        // and they went on being refused)
        AddressSessions.Elsewhere seen = slot < 0 || elsewhere.isEmpty() ? null : elsewhere.get(address);
        if (slot >= 0 && ((rationing || seen != null && seen.held())
                && addressSessions.overShare(slot, sessionLane.sessions.rate(), now, seen)
                || addressSessions.leavesToOthers(slot, sessionLane.sessions.tokens(now),
                sessionLane.sessions.burst(), sessionLane.sessions.rate(), now))) {
            warnOfSharedAddressLocked(address, false);
            refuseLocked(t, sessionLane, Rejection.Reason.SESSION_ADDRESS);
            return null;
        }
        // 4 session-queued for a stateless request: shed before any session while its class rations new sessions
        // (and that refusal does not make the class ration longer: only its admission's own refusals do)
        if (rationing && (kind & Entry.STATELESS) != 0) {
            refuseLocked(t, sessionLane, Rejection.Reason.SESSION_QUEUED);
            return null;
        }
        // 5 the class's admission steps, or a lower class's
        Lane payer = payerLocked(sessionLane, now);
        if (payer == null) {
            Rejection refusal = stepRefusalLocked(sessionLane, now, slot);
            if (refusal != null) {
                refuseLocked(t, sessionLane, refusal);
                return null;
            }
            payer = sessionLane;
        }
        return payer;
    }

    /** Refuses ticket {@code t} for {@code reason}, counted in {@code counter}; returns false. */
    private boolean refuseLocked(Ticket t, Lane counter, Rejection.Reason reason) {
        return refuseLocked(t, counter, scheduler.rejections().of(reason));
    }

    /**
     * Refuses ticket {@code t} with {@code r}: counted by its reason in {@code counter} (the class of the session for
     * a new session's reason, else the class of the request), and as rejected in the class it entered. Returns false.
     */
    private boolean refuseLocked(Ticket t, Lane counter, Rejection r) {
        counter.refused(r);
        t.lane.rejected++;
        t.rejectWith(r);
        t.state = Ticket.State.REJECTED;
        return false;
    }

    /**
     * Step 5, a dry run: the class whose session token a new session of {@code sessionLane} takes, or null when it is
     * refused. Its class's steps (its credentials' class), whose counters and session rate they use; the refused
     * request counts in the class it entered. Priority at the door: a session its class's steps refuse is admitted
     * while a lower class would admit one now, on that class's session token, so that no session is refused while a
     * lower class admits and the total admission rate stays the same. With triggers, a session refused by its class's
     * session rate takes a token only from a lower class that has a rate.
     */
    private Lane payerLocked(Lane sessionLane, long now) {
        boolean auto = scheduler.autoAdmission();
        List<AdmissionStep> steps = auto ? AdmissionStep.AUTO : AdmissionStep.TRIGGERS;
        if (admitsLocked(steps, sessionLane, now)) {
            return sessionLane;
        }
        // the lowest class that admits lends its token: the classes between keep theirs. With triggers, a class refused
        // by its own session rate (the operator's, or the highest class's default one, which bounds a tier cookie
        // copied to many clients) takes a real token only, of a lower class with a rate: one with no limit would
        // lift it. With automatic admission the rates are the admission law's shares of the capacity
        boolean byRate = !auto && AdmissionStep.sessionRate(sessionLane, scheduler, now, false) != null;
        Lane[] lanes = scheduler.lanes();
        Settings settings = scheduler.settings();
        for (int i = lanes.length - 1; i > sessionLane.index; i--) {
            Lane lower = lanes[i];
            if (settings.get(i).level() > 0 && (!byRate || lower.sessions.rate() > 0) && admitsLocked(steps, lower,
                    now)) {
                return lower;
            }
        }
        return null;
    }

    /**
     * Step 5 refusing: the class's steps again, now counting (the same state under the lock: one refuses), and the
     * class rations from now; null if none refuses after all.
     */
    private Rejection stepRefusalLocked(Lane sessionLane, long now, int slot) {
        List<AdmissionStep> steps = scheduler.autoAdmission() ? AdmissionStep.AUTO : AdmissionStep.TRIGGERS;
        for (AdmissionStep step : steps) {
            Rejection refusal = step.refuse(sessionLane, scheduler, now, true);
            if (refusal != null) {
                rationedLocked(sessionLane, now, slot);
                return refusal;
            }
        }
        return null;
    }

    /** Whether {@code steps} admit a new session of class {@code l} now: a dry run, counting nothing. */
    private boolean admitsLocked(List<AdmissionStep> steps, Lane l, long now) {
        for (AdmissionStep step : steps) {
            if (step.refuse(l, scheduler, now, false) != null) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether {@code lane} rations its new sessions now: its admission refused one within {@link #RATIONING_NANOS},
     * its session tokens are scarce ({@link TokenBucket#scarce}), or its queue steps are about to refuse
     * ({@link AdmissionStep#queueScarce}). While it does not, no request of the class is refused for its address,
     * and stateless requests are admitted.
     */
    boolean rationingLocked(Lane lane, long now) {
        return (lane.rationed && now - lane.rationedUntil < 0) || lane.sessions.scarce(now)
                || AdmissionStep.queueScarce(lane, scheduler);
    }

    /** The class's own admission refused a new session now (of the address in {@code slot}, -1: none). */
    private void rationedLocked(Lane lane, long now, int slot) {
        lane.rationed = true;
        lane.rationedUntil = now + RATIONING_NANOS;
        if (slot >= 0) {
            addressSessions.unmet(slot, now);
        }
    }

    /** A request of ticket {@code t} from {@code address} (null: none) joined its class's queue: counted, if on. */
    void queuedLocked(Ticket t, String address) {
        if (address != null && maxQueuedPerAddress > 0) {
            queuedByAddress.computeIfAbsent(address, a -> new int[1])[0]++;
            t.waiting().address = address;
        }
    }

    /** Ticket {@code t} left its class's queue (so it has its waiting part): uncounted from its address, if counted. */
    void unqueuedLocked(Ticket t) {
        Ticket.Waiting w = t.waiting();
        String address = w.address;
        if (address != null) {
            w.address = null;
            int[] n = queuedByAddress.get(address);
            if (--n[0] == 0) {
                queuedByAddress.remove(address);
            }
        }
    }

    private int queuedFrom(String address) {
        int[] n = queuedByAddress.get(address);
        return n == null ? 0 : n[0];
    }

    /**
     * Whether a request from {@code address} (no credential) that would wait in {@code lane} is over its address's
     * share of the queue: only while the queue is scarce (half full or more, or the class rations its new sessions)
     * and other addresses wait too; the share is the class's queue divided among the addresses waiting, at least
     * {@code admission.max-queued-per-address}. One address alone (a large NAT) may fill the queue.
     */
    private boolean overQueueShareLocked(Lane lane, String address, long now) {
        int mine = queuedFrom(address);
        int addresses = queuedByAddress.size() + (mine == 0 ? 1 : 0);
        if (addresses < 2 || (2L * lane.queued < lane.maxQueue && !rationingLocked(lane, now))) {
            return false;
        }
        return mine >= Math.max(maxQueuedPerAddress, lane.maxQueue / addresses);
    }

    /**
     * Logs once per engine, when a per-address share binds for an address that looks like a proxy's, a load
     * balancer's or a NAT's (loopback, private, shared or link-local): most likely many clients behind one address.
     */
    private void warnOfSharedAddressLocked(String address, boolean queue) {
        if (addressRefusalLogged || !AddressSessions.sharedLooking(address)) {
            return;
        }
        addressRefusalLogged = true;
        String limit = queue ? "its share of its class's queue (admission.max-queued-per-address = "
                + maxQueuedPerAddress + " at least)" : "its fair share of its class's new sessions "
                + "(admission.max-new-sessions-per-address = " + addressSessions.floor() + "/s at least)";
        LOG.log(System.Logger.Level.WARNING, "servlet-qos: requests from " + address + " were refused by their "
                + "address's share, " + limit + ", while other addresses wait (said once). " + address + " is a "
                + "loopback, private or proxy address: many clients likely share it. If it is your reverse proxy's or "
                + "load balancer's, configure the container's remote-IP handling (Tomcat RemoteIpValve, Jetty "
                + "ForwardedRequestCustomizer) so that each client has its own address; see docs/production.md");
    }
}

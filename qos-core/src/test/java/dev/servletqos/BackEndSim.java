package dev.servletqos;

import dev.servletqos.Ticket.State;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * An engine in front of an application with a back end of {@value #SLOTS} slots of {@value #CALL_MILLIS} ms (the
 * realism suite's {@code RealisticApp}), on a fake clock in steps of a millisecond, with the engine's periodic work
 * (its control loop: capacity and admission laws) run in step. A request that runs takes a back-end slot, waiting
 * for one in arrival order, unless it is an API call (answered at once from a cache: one step). Sessions are the
 * realism load's: a login, then {@value #PAGES} pages {@value #THINK_MILLIS} ms apart. Single-threaded.
 */
final class BackEndSim {

    static final int SLOTS = 5;
    static final int CALL_MILLIS = 50;
    static final int PAGES = 3;
    static final int THINK_MILLIS = 200;

    final FakeClock clock = new FakeClock();
    final QosEngine engine;
    private final ManualPeriodic periodic = new ManualPeriodic();
    private long ms;
    /** Admitted tickets not yet running (parked or in a session's line), with what to do when they end. */
    private final List<Ticket> waiting = new ArrayList<>();
    private final Map<Ticket, Runnable> ends = new IdentityHashMap<>();
    private final Map<Ticket, Integer> takes = new IdentityHashMap<>();
    private final ArrayDeque<Ticket> backEndQueue = new ArrayDeque<>();
    private final List<Object[]> busy = new ArrayList<>(); // {ticket, end ms}
    private final List<Object[]> timers = new ArrayList<>(); // {at ms, runnable}

    BackEndSim(String policy) {
        engine = QosEngine.create(ClassEscalationTest.parse(policy), clock);
        engine.start(periodic);
    }

    /** One millisecond: the periodic work due, the requests that end, those that start, the timers due. */
    void step() {
        clock.advance(Duration.ofMillis(1));
        ms++;
        for (ManualPeriodic.Task t : List.copyOf(periodic.tasks)) {
            if (!t.cancelled && ms % t.period.toMillis() == 0) {
                t.work.run();
            }
        }
        for (Iterator<Object[]> it = busy.iterator(); it.hasNext(); ) {
            Object[] b = it.next();
            if ((long) b[1] <= ms) {
                it.remove();
                Ticket t = (Ticket) b[0];
                t.complete();
                ends.remove(t).run();
            }
        }
        for (Iterator<Ticket> it = waiting.iterator(); it.hasNext(); ) {
            Ticket t = it.next();
            if (t.state() == State.RUNNING) {
                it.remove();
                start(t);
            } else if (t.state() != State.PARKED) {
                it.remove(); // expired while waiting
                ends.remove(t).run();
            }
        }
        while (busy.size() < SLOTS && !backEndQueue.isEmpty()) {
            Ticket t = backEndQueue.poll();
            busy.add(new Object[] {t, ms + CALL_MILLIS});
        }
        List<Runnable> due = new ArrayList<>();
        for (Iterator<Object[]> it = timers.iterator(); it.hasNext(); ) {
            Object[] x = it.next();
            if ((long) x[0] <= ms) {
                it.remove();
                due.add((Runnable) x[1]);
            }
        }
        due.forEach(Runnable::run);
    }

    void run(Duration d) {
        for (long i = d.toMillis(); i > 0; i--) {
            step();
        }
    }

    private void start(Ticket t) {
        if (takes.remove(t) == 0) {
            busy.add(new Object[] {t, ms + 1}); // from a cache: no back-end slot
        } else {
            backEndQueue.add(t);
        }
    }

    /** Sends {@code r}, which takes a back-end call if {@code backEnd}; {@code done} runs when it ends, refused too. */
    Ticket send(TestRequest r, boolean backEnd, Runnable done) {
        Ticket t = engine.enter(r, clock.nanoTime());
        if (t.state() == State.RUNNING || t.state() == State.PARKED) {
            ends.put(t, done);
            takes.put(t, backEnd ? 1 : 0);
            if (t.state() == State.RUNNING) {
                start(t);
            } else {
                waiting.add(t);
            }
        } else {
            done.run();
        }
        return t;
    }

    /** Runs {@code r} in {@code millis} ms. */
    void later(long millis, Runnable r) {
        timers.add(new Object[] {ms + millis, r});
    }

    /**
     * A session from {@code address} (a returning premium user with a signed tier cookie if {@code premium}): its
     * login now, then its pages if admitted. Returns the login's ticket.
     */
    Ticket session(String address, boolean premium) {
        TestRequest login = TestRequest.get("/login").from(address);
        if (premium) {
            login.cookie(engine.tierCookies().cookieName(), engine.tierCookies().issue("premium", "user" + ms));
        }
        Ticket[] t = new Ticket[1];
        t[0] = send(login, true, () -> {
            if (t[0] != null && t[0].setCookieHeader() != null) {
                page(address, Engines.cookieValue(t[0].setCookieHeader()), PAGES);
            }
        });
        return t[0];
    }

    private void page(String address, String cookie, int left) {
        if (left > 0) {
            later(THINK_MILLIS, () -> send(TestRequest.get("/page").from(address).cookie("QOSSESSION", cookie), true,
                    () -> page(address, cookie, left - 1)));
        }
    }

    /** Sessions from {@code address} every {@code everyMillis} ms for {@code d}, every fifth premium. */
    void sessions(String address, int everyMillis, Duration d) {
        for (long i = 0; i < d.toMillis(); i++) {
            if (i % everyMillis == 0) {
                session(address, (i / everyMillis) % 5 == 0);
            }
            step();
        }
    }
}

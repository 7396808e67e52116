package dev.servletqos.sim;

import java.util.List;

/**
 * One simulation in progress: the clients of every class, the engine, the server and the recorder, wired
 * through the event loop. Every reaction to the engine (a grant, an expiry) and every step of a client goes
 * through the event queue, never inline in the engine call that caused it, as a container resumes a parked
 * request on another thread.
 */
final class Run implements SimEngine.Waits {

    private final EventLoop loop;
    private final SimEngine engine;
    private final Server server;
    private final Recorder recorder;
    private final ClassRun[] classes;
    private final Workload workload;
    private final long loadEnd;
    private boolean loadOver;

    Run(Workload workload, EventLoop loop, SimEngine engine, long seed) {
        this.workload = workload;
        this.loop = loop;
        this.engine = engine;
        List<ClassLoad> loads = workload.classes();
        this.classes = new ClassRun[loads.size()];
        for (int i = 0; i < classes.length; i++) {
            ClassLoad l = loads.get(i);
            classes[i] = new ClassRun(i, l, engine.classIndex(l.name()), seed);
        }
        this.server = new Server(loop, workload.server(), this::finished);
        this.recorder = new Recorder(classes, workload.period().toNanos(), engine);
        this.loadEnd = workload.duration().toNanos();
    }

    /** The simulated server (its CPU load is what the engine's control loop samples). */
    Server server() {
        return server;
    }

    Recorder recorder() {
        return recorder;
    }

    ClassRun[] classes() {
        return classes;
    }

    /** Schedules the first events of every client, the backend's speed changes and the recording. */
    void start() {
        for (ClassRun c : classes) {
            if (c.load.closed()) {
                c.targetUsers = c.load.users();
                addUsers(c, c.load.users());
                for (ClassLoad.PopulationChange pc : c.load.populationChanges()) {
                    loop.at(pc.at().toNanos(), () -> populationChanged(c, pc.users()));
                }
            } else {
                nextArrival(c, 0);
            }
        }
        server.start();
        loop.at(loadEnd, () -> loadOver = true);
        scheduleClose(recorder.periodNanos());
    }

    /** Whether every session and request has ended. */
    boolean idle() {
        if (recorder.inFlight() > 0) {
            return false;
        }
        for (ClassRun c : classes) {
            if (c.visits > 0) {
                return false;
            }
        }
        return true;
    }

    long loadEnd() {
        return loadEnd;
    }

    private void scheduleClose(long at) {
        loop.atEndOf(at, () -> {
            recorder.closePeriod(loop.now());
            scheduleClose(at + recorder.periodNanos());
        });
    }

    // ---- open classes: Poisson arrivals of sessions, by thinning at the highest rate

    private void nextArrival(ClassRun c, long fromNanos) {
        Rate rate = c.load.rate();
        double max = rate.max();
        if (max <= 0) {
            return;
        }
        double t = fromNanos / 1e9;
        double end = loadEnd / 1e9;
        while (true) {
            t += -Math.log(1.0 - c.arrivals.nextDouble()) / max;
            if (t >= end) {
                return;
            }
            if (c.arrivals.nextDouble() * max < rate.at(t)) {
                break;
            }
        }
        long at = (long) Math.ceil(t * 1e9);
        loop.at(at, () -> {
            startVisit(c, null, 0);
            nextArrival(c, at);
        });
    }

    // ---- closed classes: users running sessions back to back

    private void addUsers(ClassRun c, int count) {
        for (int i = 0; i < count; i++) {
            User u = new User(c);
            c.users++;
            thinkThenStart(u);
        }
    }

    private void populationChanged(ClassRun c, int users) {
        c.targetUsers = users;
        if (users > c.users && !loadOver) {
            addUsers(c, users - c.users);
        }
        // fewer: users leave as they finish their sessions (userNext)
    }

    private void thinkThenStart(User u) {
        ClassRun c = u.cls;
        double think = Distribution.exponential().sample(seconds(c.load.thinkBetweenSessions()), c.think);
        loop.after(nanos(think), () -> {
            if (loadOver || c.users > c.targetUsers) {
                c.users--;
                return;
            }
            startVisit(c, u, 0);
        });
    }

    private void userNext(User u) {
        ClassRun c = u.cls;
        if (loadOver || c.users > c.targetUsers) {
            c.users--;
            return;
        }
        thinkThenStart(u);
    }

    // ---- sessions

    private void startVisit(ClassRun c, User u, int attempt) {
        Visit v = new Visit(c, u, attempt);
        c.visits++;
        recorder.sessionStarted(c.index);
        issue(v, 0);
    }

    private void issue(Visit v, int step) {
        ClassRun c = v.cls;
        double work = workload.server().service().sample(c.profile.serviceSeconds(step), c.service);
        Call call = new Call(v, step, work);
        long now = loop.now();
        call.entered = now;
        recorder.arrival(c.index);
        int decision = engine.enter(call, c.load.header(), v.cookie, c.profile.path(step), c.load.host(),
                loop.clock().nanoTime());
        if (call.setCookie != null) {
            v.cookie = call.setCookie;
        }
        if (decision != SimEngine.REJECTED && c.policyIndex >= 0) {
            // the content level the engine chose: lighter content is less work and fewer bytes
            double cost = workload.server().levelCost(call.level, engine.levels(c.policyIndex));
            call.work *= cost;
            call.bytes = Math.round(workload.server().responseBytes() * cost);
        } else if (decision == SimEngine.REJECTED) {
            server.refused();
        }
        switch (decision) {
            case SimEngine.RUNNING:
                grant(call);
                break;
            case SimEngine.PARKED:
                call.parked = true;
                recorder.parked(c.index, now);
                engine.await(call, this);
                break;
            default:
                recorder.rejected(c.index, call.refusal, step == 0);
                if (step == 0) {
                    refused(v);
                } else {
                    failed(v);
                }
        }
    }

    @Override
    public void granted(Call call) {
        loop.after(0, () -> grant(call));
    }

    @Override
    public void expired(Call call) {
        loop.after(0, () -> {
            long now = loop.now();
            recorder.expired(call.visit.cls.index, now - call.entered, now);
            failed(call.visit);
        });
    }

    private void grant(Call call) {
        long now = loop.now();
        recorder.granted(call.visit.cls.index, call.parked, now - call.entered, now);
        server.serve(call);
    }

    /** The server finished a request. */
    private void finished(Call call) {
        long now = loop.now();
        engine.complete(call);
        Visit v = call.visit;
        ClassRun c = v.cls;
        recorder.completed(c.index, now - call.entered, now - call.started, now);
        int next = call.step + 1;
        if (next == c.profile.size()) {
            recorder.sessionCompleted(c.index);
            endVisit(v);
            return;
        }
        double think = c.profile.thinkTimes().sample(c.profile.thinkSeconds(call.step), c.think);
        loop.after(nanos(think), () -> issue(v, next));
    }

    private void refused(Visit v) {
        ClassRun c = v.cls;
        recorder.sessionRefused(c.index);
        c.visits--;
        if (v.attempt < c.load.retries()) {
            // the client comes back later; until then it is not in the server's sessions
            double delay = Distribution.exponential().sample(seconds(c.load.retryDelay()), c.retry);
            loop.after(nanos(delay), () -> {
                if (loadOver) {
                    if (v.user != null) {
                        c.users--;
                    }
                    return;
                }
                startVisit(c, v.user, v.attempt + 1);
            });
            return;
        }
        if (v.user != null) {
            userNext(v.user);
        }
    }

    private void failed(Visit v) {
        recorder.sessionFailed(v.cls.index);
        endVisit(v);
    }

    private void endVisit(Visit v) {
        v.cls.visits--;
        if (v.user != null) {
            userNext(v.user);
        }
    }

    private static double seconds(java.time.Duration d) {
        return d.toNanos() / 1e9;
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * 1e9);
    }
}

package dev.servletqos.sim;

import dev.servletqos.Periodic;
import dev.servletqos.policy.QosPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A deterministic discrete-event simulation of a server in front of which the real engine runs: simulated
 * clients (a {@link Workload}) send requests through {@link dev.servletqos.QosEngine#enter}, parked requests
 * wait for the engine's grant or expiry, granted ones are served by a simulated backend ({@link ServerModel})
 * and release their permit when done. Time is simulated: a 300-second experiment takes a fraction of a second,
 * and the same policy, workload and seed always give the same {@link SimResult}.
 *
 * <pre>{@code
 * QosPolicy policy = SimEngine.policy(Scheduling.STRICT_PRIORITY, 8,
 *         ClassPolicy.named("premium"), ClassPolicy.named("basic")).build();
 * Workload w = Workload.builder().duration(Duration.ofSeconds(300))
 *         .add(ClassLoad.closed("premium", 20).session(SessionProfile.of(5, ofMillis(50), ofSeconds(2))))
 *         .add(ClassLoad.open("basic", Rate.constant(10).step(ofSeconds(150), 30)))
 *         .server(ServerModel.defaults().service(Distribution.lognormal(2)))
 *         .build();
 * SimResult r = Simulation.of(policy, w).seed(42).run();
 * r.series("premium").values(Metric.QUEUE_DELAY_P95);
 * }</pre>
 *
 * <p>Not thread-safe; each run is independent and runs on the caller's thread.
 */
public final class Simulation {

    private final QosPolicy policy;
    private final Workload workload;
    private long seed = 1;
    private final List<BiConsumer<SimEngine, Periodic>> onStart = new ArrayList<>();
    private final List<Map.Entry<Duration, Consumer<SimEngine>>> actions = new ArrayList<>();

    private Simulation(QosPolicy policy, Workload workload) {
        this.policy = Objects.requireNonNull(policy, "policy");
        this.workload = Objects.requireNonNull(workload, "workload");
    }

    /** A simulation of this policy under this workload, seed 1 until {@link #seed} says otherwise. */
    public static Simulation of(QosPolicy policy, Workload workload) {
        return new Simulation(policy, workload);
    }

    /** Runs a simulation with this seed. */
    public static SimResult run(QosPolicy policy, Workload workload, long seed) {
        return of(policy, workload).seed(seed).run();
    }

    /** The seed of every random stream of the run; default 1. */
    public Simulation seed(long seed) {
        this.seed = seed;
        return this;
    }

    /**
     * Called once before the first event, with the engine and the simulation's {@link Periodic} (tasks it
     * schedules run at simulated times): where a test starts the engine's control loop or a controller of its
     * own.
     */
    public Simulation onStart(BiConsumer<SimEngine, Periodic> hook) {
        onStart.add(Objects.requireNonNull(hook));
        return this;
    }

    /** Runs {@code action} at simulated time {@code at}, e.g. a budget change. */
    public Simulation at(Duration at, Consumer<SimEngine> action) {
        actions.add(Map.entry(at, Objects.requireNonNull(action)));
        return this;
    }

    /** Runs the simulation to the end of the load and the drain after it. */
    public SimResult run() {
        long realStart = System.nanoTime();
        long cpuStart = cpuNanos();
        SimClock clock = new SimClock();
        EventLoop loop = new EventLoop(clock);
        SimEngine engine = new SimEngine(policy, clock);
        Run run = new Run(workload, loop, engine, seed);
        engine.start(loop);
        // the control loop samples the simulated CPU (NaN without processor sharing), never the JVM's own
        engine.useCpu(run.server()::cpuSinceLast);
        for (BiConsumer<SimEngine, Periodic> h : onStart) {
            h.accept(engine, loop);
        }
        for (Map.Entry<Duration, Consumer<SimEngine>> a : actions) {
            loop.at(a.getKey().toNanos(), () -> a.getValue().accept(engine));
        }
        run.start();

        long period = workload.period().toNanos();
        long boundary = run.loadEnd();
        long limit = boundary + workload.drainLimit().toNanos();
        loop.runUntil(boundary, () -> false);
        boolean drained = run.idle();
        while (!drained && boundary < limit) {
            boundary += period;
            loop.runUntil(boundary, () -> false);
            drained = run.idle();
        }
        engine.stop();

        double periodSeconds = period / 1e9;
        Map<String, ClassSeries> series = new LinkedHashMap<>();
        Map<String, ClassTotals> totals = new LinkedHashMap<>();
        Map<String, SimEngine.EngineCounts> counts = new LinkedHashMap<>();
        Map<String, ResponseTimes> responses = new LinkedHashMap<>();
        ClassRun[] classes = run.classes();
        for (ClassRun c : classes) {
            String name = c.load.name();
            series.put(name, run.recorder().series(c.index, periodSeconds));
            totals.put(name, run.recorder().totals(c.index));
            counts.put(name, engine.counts(name));
            responses.put(name, run.recorder().responses(c.index));
        }
        return new SimResult(seed, periodSeconds, run.loadEnd() / 1e9, boundary / 1e9, drained, series, totals,
                counts, responses, loop.eventsRun(), System.nanoTime() - realStart, cpuNanos() - cpuStart);
    }

    private static long cpuNanos() {
        java.lang.management.ThreadMXBean b = java.lang.management.ManagementFactory.getThreadMXBean();
        return b.isCurrentThreadCpuTimeSupported() ? b.getCurrentThreadCpuTime() : -1;
    }
}

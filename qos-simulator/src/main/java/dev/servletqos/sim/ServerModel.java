package dev.servletqos.sim;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The simulated server behind the engine: worker threads, the service-time distribution, an optional
 * processor-sharing model of the CPU, and periods in which the backend runs slower. Immutable; start from
 * {@link #defaults()}.
 *
 * <ul>
 *   <li>A request granted a permit takes a worker; with {@link #workers(int)} set and every worker busy it
 *       waits for one (FIFO), holding its permit. Default 0: unlimited, the engine's permits are the only
 *       limit.</li>
 *   <li>Its work (seconds at full speed) is drawn from {@link #service(Distribution)} around the step's mean
 *       cost; default exponential.</li>
 *   <li>With {@link #processorSharing(int) processor sharing on C cores}, k requests in service each
 *       progress at {@code min(1, C/k)} of full speed, so granting more permits than cores slows every
 *       request down. Default off: each request progresses at full speed whatever the concurrency.</li>
 *   <li>{@link #slowdown(Duration, Duration, double)}: between two times the backend runs {@code factor}
 *       times slower (work progresses at {@code 1/factor}); overlapping slowdowns multiply.</li>
 *   <li>Content levels: a request the engine serves below its class's full level does
 *       {@link #degradedCost(double) 1/8} of the work per level down and sends as much of the
 *       {@link #responseBytes(long) bytes}; with processor sharing the CPU load (cores busy over cores, plus
 *       {@link #refusalCpu(Duration)} per refused request) is what the engine's control loop samples.</li>
 * </ul>
 */
public final class ServerModel {

    /** A period of slower service. */
    public record Slowdown(Duration from, Duration to, double factor) {
    }

    /** From {@code at} on, the back end has {@code workers} workers. */
    public record WorkerChange(Duration at, int workers) {
    }

    /** The default cost of each content level below full, relative to the level above: paper 000's 8:1. */
    public static final double DEFAULT_DEGRADED_COST = 1.0 / 8;

    private static final ServerModel DEFAULTS = new ServerModel(0, 0, Distribution.exponential(), List.of(),
            List.of(), DEFAULT_DEGRADED_COST, 0, 0);

    private final int workers;
    private final int cores;
    private final Distribution service;
    private final List<Slowdown> slowdowns;
    private final List<WorkerChange> workerChanges;
    private final double degradedCost;
    private final long responseBytes;
    private final double refusalCpu;

    private ServerModel(int workers, int cores, Distribution service, List<Slowdown> slowdowns,
                        List<WorkerChange> workerChanges, double degradedCost, long responseBytes,
                        double refusalCpu) {
        this.workers = workers;
        this.cores = cores;
        this.service = service;
        this.slowdowns = List.copyOf(slowdowns);
        this.workerChanges = List.copyOf(workerChanges);
        this.degradedCost = degradedCost;
        this.responseBytes = responseBytes;
        this.refusalCpu = refusalCpu;
    }

    private ServerModel with(int workers, int cores, Distribution service, List<Slowdown> slowdowns,
                             List<WorkerChange> workerChanges) {
        return new ServerModel(workers, cores, service, slowdowns, workerChanges, degradedCost, responseBytes,
                refusalCpu);
    }

    /** Unlimited workers, exponential service, no processor sharing, constant speed. */
    public static ServerModel defaults() {
        return DEFAULTS;
    }

    /** Worker threads; 0 = unlimited (default). */
    public ServerModel workers(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("workers must be 0 (unlimited) or more, was " + n);
        }
        return with(n, cores, service, slowdowns, workerChanges);
    }

    /** Processor sharing on {@code cores} cores; 0 = off (default). */
    public ServerModel processorSharing(int cores) {
        if (cores < 0) {
            throw new IllegalArgumentException("cores must be 0 (off) or more, was " + cores);
        }
        return with(workers, cores, service, slowdowns, workerChanges);
    }

    /** The distribution of service times around each step's mean; default exponential. */
    public ServerModel service(Distribution d) {
        return with(workers, cores, Objects.requireNonNull(d, "service distribution"), slowdowns,
                workerChanges);
    }

    /**
     * The backend is {@code factor} times slower from {@code from} to {@code to} (a request in service then
     * progresses at {@code 1/factor} of its speed).
     *
     * @throws IllegalArgumentException if {@code factor} is not positive or the times are out of order
     */
    public ServerModel slowdown(Duration from, Duration to, double factor) {
        if (!(factor > 0) || Double.isInfinite(factor) || from.isNegative() || to.compareTo(from) < 0) {
            throw new IllegalArgumentException("slowdown needs 0 <= from <= to and a positive factor, was "
                    + from + ".." + to + " x" + factor);
        }
        List<Slowdown> s = new ArrayList<>(slowdowns);
        s.add(new Slowdown(from, to, factor));
        return with(workers, cores, service, s, workerChanges);
    }

    /**
     * From {@code at} on the back end has {@code n} workers (its capacity changes: a connection pool resized, a
     * replica lost). Requests in service finish; fewer workers take effect as they do.
     *
     * @throws IllegalArgumentException if {@code n} is not positive, {@code at} is negative, or the model has
     *                                  unlimited workers
     */
    public ServerModel workersAt(Duration at, int n) {
        if (n < 1 || at.isNegative() || workers == 0) {
            throw new IllegalArgumentException("workersAt needs a limited number of workers, n >= 1 and at >= 0, was "
                    + n + " at " + at + " (workers " + workers + ")");
        }
        List<WorkerChange> c = new ArrayList<>(workerChanges);
        c.add(new WorkerChange(at, n));
        return with(workers, cores, service, slowdowns, c);
    }

    /**
     * The content model: a request served at content level {@code l} of its class's {@code M} does
     * {@code cost^(M-l)} of the work (and sends as many of the bytes) of one at full content: with the default
     * 1/8 and two levels, a degraded request costs an eighth of a full one, paper 000's ratio.
     *
     * @throws IllegalArgumentException unless {@code 0 < cost <= 1}
     */
    public ServerModel degradedCost(double cost) {
        if (!(cost > 0 && cost <= 1)) {
            throw new IllegalArgumentException("degradedCost must be in (0, 1], was " + cost);
        }
        return new ServerModel(workers, cores, service, slowdowns, workerChanges, cost, responseBytes, refusalCpu);
    }

    /** Response bytes of a request at full content (scaled by the level like its work); default 0: none told. */
    public ServerModel responseBytes(long bytes) {
        if (bytes < 0) {
            throw new IllegalArgumentException("responseBytes must be 0 or more, was " + bytes);
        }
        return new ServerModel(workers, cores, service, slowdowns, workerChanges, degradedCost, bytes, refusalCpu);
    }

    /**
     * CPU seconds a refused request costs (paper 000's rejection cost {@code c}): counted in the CPU load, not
     * holding a core. Default 0.
     */
    public ServerModel refusalCpu(Duration cpu) {
        return new ServerModel(workers, cores, service, slowdowns, workerChanges, degradedCost, responseBytes,
                cpu.toNanos() / 1e9);
    }

    /** The share of a full request's work and bytes that one at {@code level} of {@code levels} costs. */
    public double levelCost(int level, int levels) {
        return level >= levels ? 1 : Math.pow(degradedCost, levels - Math.max(1, level));
    }

    public double degradedCost() {
        return degradedCost;
    }

    public long responseBytes() {
        return responseBytes;
    }

    public double refusalCpu() {
        return refusalCpu;
    }

    public List<WorkerChange> workerChanges() {
        return workerChanges;
    }

    public int workers() {
        return workers;
    }

    public int cores() {
        return cores;
    }

    public Distribution service() {
        return service;
    }

    public List<Slowdown> slowdowns() {
        return slowdowns;
    }

    /** The backend's slowdown factor at {@code seconds} after the start (1 = full speed). */
    public double slowdownAt(double seconds) {
        double f = 1;
        for (Slowdown s : slowdowns) {
            if (seconds >= s.from().toNanos() / 1e9 && seconds < s.to().toNanos() / 1e9) {
                f *= s.factor();
            }
        }
        return f;
    }

    @Override
    public String toString() {
        return "ServerModel{workers=" + (workers == 0 ? "unlimited" : workers) + ", cores="
                + (cores == 0 ? "no sharing" : cores) + ", service=" + service + ", slowdowns=" + slowdowns
                + ", workerChanges=" + workerChanges + ", degradedCost=" + degradedCost + ", responseBytes="
                + responseBytes + ", refusalCpu=" + refusalCpu + "}";
    }
}

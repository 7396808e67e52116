package dev.servletqos.sim;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.function.Consumer;

/**
 * The simulated workers and backend ({@link ServerModel}). Work is tracked in virtual time: {@code v} grows at
 * the speed every request in service progresses at, {@code min(1, cores/k) / slowdown} with processor
 * sharing and {@code 1 / slowdown} without, so a request started at {@code v0} with work {@code w} is done when
 * {@code v} reaches {@code v0 + w}, whatever changes of speed or concurrency happen in between. The requests
 * in service sit in a heap by that finishing point; one event is kept for the earliest, and re-planned
 * whenever the speed changes.
 */
final class Server {

    /** Virtual seconds of slack when deciding that a request is done (the event time is rounded up to a nanosecond). */
    private static final double EPSILON = 1e-9;

    private final EventLoop loop;
    private final ServerModel model;
    private final Consumer<Call> done;
    private final ArrayDeque<Call> waiting = new ArrayDeque<>();

    private Call[] heap = new Call[64];
    private int size;
    private double v;
    private long last;
    private double slowdown = 1;
    private int workers;
    private EventLoop.Event next;
    /** Core-seconds busy since the start (processor sharing: min(k, cores) cores while k requests are in service). */
    private double busyCoreSeconds;
    /** CPU seconds of refusals since the start. */
    private double refusalSeconds;
    private double readBusy;
    private long readAt;

    Server(EventLoop loop, ServerModel model, Consumer<Call> done) {
        this.loop = loop;
        this.model = model;
        this.done = done;
        this.workers = model.workers();
    }

    /** Schedules the changes of backend speed. */
    void start() {
        for (ServerModel.Slowdown s : model.slowdowns()) {
            loop.at(s.from().toNanos(), this::speedChanged);
            loop.at(s.to().toNanos(), this::speedChanged);
        }
        for (ServerModel.WorkerChange w : model.workerChanges()) {
            loop.at(w.at().toNanos(), () -> {
                workers = w.workers();
                advance();
                startWaiting();
                plan();
            });
        }
    }

    /** A request was refused: its CPU cost ({@link ServerModel#refusalCpu()}) counts in the load. */
    void refused() {
        refusalSeconds += model.refusalCpu();
    }

    /**
     * The CPU load since the previous call (the first: since the start): core-seconds busy plus the refusals'
     * CPU, over the cores times the time; at most 1. NaN without processor sharing (no CPU model).
     */
    double cpuSinceLast() {
        if (model.cores() == 0) {
            return Double.NaN;
        }
        advance();
        long now = loop.now();
        double busy = busyCoreSeconds + refusalSeconds;
        double load = now > readAt ? (busy - readBusy) / (model.cores() * (now - readAt) / 1e9) : Double.NaN;
        readBusy = busy;
        readAt = now;
        return Math.min(1, load);
    }

    /** A request that holds a permit: into service now, or in line for a worker. */
    void serve(Call c) {
        if (workers > 0 && size >= workers) {
            waiting.add(c);
        } else {
            begin(c);
        }
    }

    private void begin(Call c) {
        advance();
        c.started = loop.now();
        c.finishV = v + c.work;
        push(c);
        plan();
    }

    private void speedChanged() {
        advance();
        slowdown = model.slowdownAt(loop.now() / 1e9);
        plan();
    }

    private void finishDue() {
        next = null;
        advance();
        int n = 0;
        Call[] finished = null;
        while (size > 0 && heap[0].finishV <= v + EPSILON) {
            Call c = popMin();
            if (finished == null) {
                finished = new Call[4];
            } else if (n == finished.length) {
                finished = Arrays.copyOf(finished, n * 2);
            }
            finished[n++] = c;
        }
        startWaiting();
        plan();
        // After the server's own state is consistent: what the run does next goes through the event queue.
        for (int i = 0; i < n; i++) {
            done.accept(finished[i]);
        }
    }

    private void startWaiting() {
        while (!waiting.isEmpty() && (workers == 0 || size < workers)) {
            Call c = waiting.poll();
            c.started = loop.now();
            c.finishV = v + c.work;
            push(c);
        }
    }

    /** Brings {@code v} up to now at the speed that held since the last change. */
    private void advance() {
        long now = loop.now();
        if (size > 0) {
            v += rate() * (now - last) / 1e9;
            if (model.cores() > 0) {
                busyCoreSeconds += Math.min(size, model.cores()) * (now - last) / 1e9;
            }
        }
        last = now;
    }

    private double rate() {
        int cores = model.cores();
        double share = cores > 0 && size > cores ? (double) cores / size : 1.0;
        return share / slowdown;
    }

    private void plan() {
        if (next != null) {
            next.cancel();
            next = null;
        }
        if (size == 0) {
            return;
        }
        double seconds = Math.max(0, heap[0].finishV - v) / rate();
        long at = loop.now() + (long) Math.ceil(seconds * 1e9);
        next = loop.at(at, this::finishDue);
    }

    private void push(Call c) {
        if (size == heap.length) {
            heap = Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Call p = heap[parent];
            if (p.finishV <= c.finishV) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = c;
    }

    private Call popMin() {
        Call min = heap[0];
        Call last = heap[--size];
        heap[size] = null;
        if (size > 0) {
            int i = 0;
            int half = size >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                int right = child + 1;
                if (right < size && heap[right].finishV < heap[child].finishV) {
                    child = right;
                }
                if (last.finishV <= heap[child].finishV) {
                    break;
                }
                heap[i] = heap[child];
                i = child;
            }
            heap[i] = last;
        }
        return min;
    }
}

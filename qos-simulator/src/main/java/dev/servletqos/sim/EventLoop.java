package dev.servletqos.sim;

import dev.servletqos.Periodic;
import java.time.Duration;

/**
 * The discrete-event core: a binary heap of events ordered by time, then by the order in which they were
 * scheduled (so that events at the same instant run in a fixed order and a run is reproducible), and the
 * clock it moves. Events scheduled with {@link #atEndOf} run after every other event of their instant,
 * including those that the instant's events schedule for the same instant: that is where a recording
 * period is closed, so that it sees everything that happened up to and including its end. Also the simulation's {@link Periodic}: periodic tasks are events that schedule their next
 * run. Not thread-safe: everything runs on the caller's thread.
 */
final class EventLoop implements Periodic {

    /** A scheduled action; cancelled ones stay in the heap and are skipped when they come up. */
    static final class Event implements Periodic.Cancellable {
        long time;
        /** 0 for ordinary events, 1 for those that close an instant. */
        int rank;
        long seq;
        Runnable action;
        boolean cancelled;

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private final SimClock clock;
    private Event[] heap = new Event[256];
    private int size;
    private long seq;
    private long events;

    EventLoop(SimClock clock) {
        this.clock = clock;
    }

    SimClock clock() {
        return clock;
    }

    /** Simulated nanoseconds since the start. */
    long now() {
        return clock.elapsedNanos();
    }

    /** Runs {@code action} at simulated time {@code time} (nanoseconds since the start; the past means now). */
    Event at(long time, Runnable action) {
        Event e = new Event();
        e.time = Math.max(time, now());
        e.seq = seq++;
        e.action = action;
        push(e);
        return e;
    }

    /** Runs {@code action} at {@code time}, after every ordinary event of that instant. */
    Event atEndOf(long time, Runnable action) {
        Event e = new Event();
        e.time = Math.max(time, now());
        e.rank = 1;
        e.seq = seq++;
        e.action = action;
        push(e);
        return e;
    }

    /** Runs {@code action} {@code delay} nanoseconds from now. */
    Event after(long delay, Runnable action) {
        return at(now() + Math.max(0, delay), action);
    }

    @Override
    public Cancellable schedule(Runnable task, Duration period) {
        long p = period.toNanos();
        if (p <= 0) {
            throw new IllegalArgumentException("period must be positive, was " + period);
        }
        // One handle for all runs: cancelling it stops the run that is due and every later one.
        Event handle = new Event();
        Runnable[] tick = new Runnable[1];
        tick[0] = () -> {
            if (handle.cancelled) {
                return;
            }
            task.run();
            if (!handle.cancelled) {
                after(p, tick[0]);
            }
        };
        after(p, tick[0]);
        return handle;
    }

    /**
     * Runs events in order while the next one is due at or before {@code until} (nanoseconds since the
     * start) and {@code stop} is false; the clock ends at the last event run. Returns whether events remain.
     */
    boolean runUntil(long until, java.util.function.BooleanSupplier stop) {
        while (size > 0) {
            Event e = heap[0];
            if (e.time > until || stop.getAsBoolean()) {
                return true;
            }
            pop();
            if (e.cancelled) {
                continue;
            }
            clock.moveTo(e.time);
            events++;
            e.action.run();
        }
        return false;
    }

    /** Events run so far. */
    long eventsRun() {
        return events;
    }

    private static boolean before(Event a, Event b) {
        if (a.time != b.time) {
            return a.time < b.time;
        }
        return a.rank != b.rank ? a.rank < b.rank : a.seq < b.seq;
    }

    private void push(Event e) {
        if (size == heap.length) {
            heap = java.util.Arrays.copyOf(heap, size * 2);
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Event p = heap[parent];
            if (!before(e, p)) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = e;
    }

    private void pop() {
        Event last = heap[--size];
        heap[size] = null;
        if (size == 0) {
            return;
        }
        int i = 0;
        int half = size >>> 1;
        while (i < half) {
            int child = 2 * i + 1;
            int right = child + 1;
            if (right < size && before(heap[right], heap[child])) {
                child = right;
            }
            if (!before(heap[child], last)) {
                break;
            }
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = last;
    }
}

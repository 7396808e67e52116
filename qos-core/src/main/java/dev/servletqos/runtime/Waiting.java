package dev.servletqos.runtime;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The requests an adapter has parked and that still wait, so that a stop can answer them (503 with
 * {@code Retry-After}) instead of leaving them to the container's timeout. A {@link QosRuntime} opens one at each
 * {@link QosRuntime#start()} and closes it at {@link QosRuntime#stop()}; the adapter adds a request when it parks
 * it and removes it when the request leaves the queue. Thread-safe.
 */
public final class Waiting {

    /** A parked request, as its adapter holds it. */
    @FunctionalInterface
    public interface Waiter {

        /**
         * Nothing will grant a permit any more: if the request still waits, cancel its ticket and answer it
         * {@link dev.servletqos.Ticket#rejection()} on a container thread. Called at most once per close, from
         * the stopping thread; must not block.
         */
        void abandon();
    }

    private final Set<Waiter> waiters = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** Notes a request that parks now. An adapter checks {@link #closed()} after it, see there. */
    public void add(Waiter waiter) {
        waiters.add(waiter);
    }

    /** Forgets a request that left the queue (granted, expired, cancelled, answered). */
    public void remove(Waiter waiter) {
        waiters.remove(waiter);
    }

    /**
     * Whether {@link #close()} ran. A request that parked after reading its engine may have been added after the
     * close looped: the adapter checks this after {@link #add} and abandons the request itself.
     */
    public boolean closed() {
        return closed;
    }

    /** The requests waiting now. */
    public int size() {
        return waiters.size();
    }

    /**
     * Abandons every request waiting now ({@link Waiter#abandon()}); later adds see {@link #closed()}. Returns at
     * once, without waiting for the answers to be written. Idempotent.
     */
    public void close() {
        closed = true;
        for (Waiter w : waiters) {
            w.abandon();
        }
    }
}

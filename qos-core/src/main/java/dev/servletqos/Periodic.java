package dev.servletqos;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one seam through which the engine runs its periodic work (the expiry sweep, the control loop): each
 * adapter's {@link dev.servletqos.runtime.QosRuntime} fills it with its container's scheduler (Tomcat's utility
 * executor, Jetty's {@code Scheduler}, or a daemon thread of the runtime's own for the filter); a simulation fills
 * it with its own event queue. The engine never starts a
 * thread of its own.
 */
@FunctionalInterface
public interface Periodic {

    /**
     * Runs {@code task} every {@code period}, the first time one period from now, until the returned handle
     * is cancelled. The task must not overlap with itself; a task that throws must not stop later runs (the
     * engine's tasks catch their own failures).
     *
     * @return what stops the task; called once, from any thread
     */
    Cancellable schedule(Runnable task, Duration period);

    /**
     * The seam over a {@link ScheduledExecutorService} (Tomcat's utility executor, or one of the filter's
     * own): each task runs with a fixed delay of one period, so it never overlaps with itself.
     */
    static Periodic on(ScheduledExecutorService executor) {
        return (task, period) -> {
            long nanos = period.toNanos();
            ScheduledFuture<?> f = executor.scheduleWithFixedDelay(task, nanos, nanos, TimeUnit.NANOSECONDS);
            return () -> f.cancel(false);
        };
    }

    /**
     * This seam with every task guarded: a task that throws anything, an {@link Error} such as an
     * {@code OutOfMemoryError} included, is counted in {@code failures} and runs again at its next period. A
     * {@link ScheduledExecutorService} stops a fixed-delay task for good after one throw, which would freeze
     * capacity, rates and expiry; so the engine wraps whatever seam an adapter gives it. The first failure of a
     * burst (the failures in a row of one task) is logged with its stack trace, the rest of the burst not.
     *
     * @param name     what the log calls the seam's owner
     * @param failures counts every failed run; thread-safe
     */
    static Periodic surviving(Periodic periodic, String name, java.util.concurrent.atomic.LongAdder failures) {
        return (task, period) -> periodic.schedule(new Surviving(task, name, failures), period);
    }

    /** Stops a scheduled task. */
    @FunctionalInterface
    interface Cancellable {
        void cancel();
    }

    /** One guarded task of {@link #surviving}: never lets a throwable out. */
    final class Surviving implements Runnable {
        private static final System.Logger LOG = System.getLogger(Periodic.class.getName());
        private final Runnable task;
        private final String name;
        private final java.util.concurrent.atomic.LongAdder failures;
        /** Whether the last run failed: a burst is logged once. Runs never overlap, so a plain field would do. */
        private volatile boolean failing;

        Surviving(Runnable task, String name, java.util.concurrent.atomic.LongAdder failures) {
            this.task = task;
            this.name = name;
            this.failures = failures;
        }

        @Override
        public void run() {
            try {
                task.run();
                if (failing) {
                    failing = false;
                    LOG.log(System.Logger.Level.INFO, "servlet-qos: " + name + ": a periodic task runs again");
                }
            } catch (Throwable e) {
                failures.increment();
                if (!failing) {
                    failing = true;
                    try {
                        LOG.log(System.Logger.Level.ERROR, "servlet-qos: " + name + ": a periodic task failed; it "
                                + "runs again at its next period (further failures in a row are counted in "
                                + "qos.periodic.failures, not logged)", e);
                    } catch (Throwable ignored) {
                        // logging itself may fail under an OutOfMemoryError: the count is what is left
                    }
                }
            }
        }
    }
}

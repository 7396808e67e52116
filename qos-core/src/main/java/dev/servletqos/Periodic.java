package dev.servletqos;

import java.time.Duration;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * The one seam through which the engine runs its periodic work (the expiry sweep, the control loop): each
 * adapter fills it with its container's scheduler (Tomcat's utility executor, Jetty's {@code Scheduler}, a
 * daemon thread for the filter); a simulation fills it with its own event queue. The engine never starts a
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

    /** Stops a scheduled task. */
    @FunctionalInterface
    interface Cancellable {
        void cancel();
    }
}

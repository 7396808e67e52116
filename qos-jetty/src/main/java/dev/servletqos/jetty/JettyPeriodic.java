package dev.servletqos.jetty;

import dev.servletqos.Periodic;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The engine's {@link Periodic} seam on Jetty's server {@link Scheduler}, for {@link QosHandler}. Stateless. */
final class JettyPeriodic {

    private static final Logger LOG = LoggerFactory.getLogger(QosHandler.class);

    private JettyPeriodic() {
    }

    /**
     * The engine's {@link Periodic} seam over the server's {@link Scheduler}: each task schedules its next run
     * when it has run, so it never overlaps with itself.
     */
    static Periodic periodic(Scheduler scheduler) {
        return (task, period) -> {
            Repeating r = new Repeating(scheduler, task, period.toNanos());
            r.start();
            return r::stop;
        };
    }

    /** One periodic task of the engine on the server's scheduler. */
    private static final class Repeating implements Runnable {
        private final Scheduler scheduler;
        private final Runnable work;
        private final long periodNanos;
        private volatile boolean stopped;
        private volatile Scheduler.Task task;
        private volatile LifeCycle.Listener whenStarted;

        Repeating(Scheduler scheduler, Runnable work, long periodNanos) {
            this.scheduler = scheduler;
            this.work = work;
            this.periodNanos = periodNanos;
        }

        void start() {
            if (scheduler.isStarted()) {
                schedule();
                return;
            }
            // The server starts its scheduler before its handlers; this covers a scheduler started later.
            whenStarted = new LifeCycle.Listener() {
                @Override
                public void lifeCycleStarted(LifeCycle event) {
                    event.removeEventListener(this);
                    schedule();
                }
            };
            scheduler.addEventListener(whenStarted);
        }

        private void schedule() {
            if (!stopped) {
                Scheduler.Task t = scheduler.schedule(this, periodNanos, TimeUnit.NANOSECONDS);
                task = t;
                if (stopped) {
                    // stop() ran meanwhile and may have cancelled the previous task instead of this one
                    t.cancel();
                }
            }
        }

        @Override
        public void run() {
            try {
                work.run();
            } catch (RuntimeException e) {
                LOG.error("servlet-qos: a periodic task failed", e);
            } finally {
                schedule();
            }
        }

        void stop() {
            stopped = true;
            LifeCycle.Listener l = whenStarted;
            if (l != null) {
                scheduler.removeEventListener(l);
            }
            Scheduler.Task t = task;
            if (t != null) {
                t.cancel();
            }
        }
    }
}

package dev.servletqos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** A {@link Periodic} whose tasks run when the test says so, each in step with a fake clock. */
final class ManualPeriodic implements Periodic {

    /** One scheduled task. */
    static final class Task {
        final Runnable work;
        final Duration period;
        boolean cancelled;

        Task(Runnable work, Duration period) {
            this.work = work;
            this.period = period;
        }
    }

    final List<Task> tasks = new ArrayList<>();

    @Override
    public Cancellable schedule(Runnable task, Duration period) {
        Task t = new Task(task, period);
        tasks.add(t);
        return () -> t.cancelled = true;
    }

    /** The live tasks with this period. */
    List<Task> live(Duration period) {
        return tasks.stream().filter(t -> !t.cancelled && t.period.equals(period)).toList();
    }

    /** Advances the clock by {@code period} and runs every live task of that period once. */
    void tick(FakeClock clock, Duration period) {
        clock.advance(period);
        for (Task t : List.copyOf(tasks)) {
            if (!t.cancelled && t.period.equals(period)) {
                t.work.run();
            }
        }
    }
}

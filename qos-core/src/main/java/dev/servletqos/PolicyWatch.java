package dev.servletqos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The watch on an engine's policy file ({@code policy.watch}): while the engine is started, it looks at the file that
 * often and reloads it when its modification time or size changed. The {@link QosEngine}'s monitor guards
 * {@link #reschedule}; {@link #check} runs on the engine's periodic work.
 */
final class PolicyWatch {

    private static final System.Logger LOG = System.getLogger(QosEngine.class.getName());

    /** Reads the policy again and puts it in force ({@link QosEngine#reloadPolicy()}). */
    private final Runnable reload;
    /** The policy file, or null; and what it looked like last. */
    private volatile Path file;
    private volatile String fileSeen;
    private Periodic.Cancellable watch;
    private Duration watchEvery;

    PolicyWatch(Runnable reload) {
        this.reload = reload;
    }

    /** Watches {@code file} from now (null: none), as it looks now. */
    void watch(Path file) {
        this.file = file;
        this.fileSeen = file == null ? null : stamp(file);
    }

    /**
     * Schedules, reschedules or cancels the look at the file every {@code every} on {@code periodic} (null: the
     * engine is stopped); off when there is no file, nowhere to read the policy from ({@code reloadable} false), or
     * {@code every} is zero. Under the engine's monitor.
     */
    void reschedule(Periodic periodic, boolean reloadable, Duration every) {
        boolean on = periodic != null && file != null && reloadable && !every.isZero();
        if (on && watch != null && every.equals(watchEvery)) {
            return;
        }
        if (watch != null) {
            watch.cancel();
            watch = null;
            watchEvery = null;
        }
        if (on) {
            watchEvery = every;
            watch = periodic.schedule(this::check, every);
        }
    }

    /** One look at the policy file: reloads it when its modification time or size changed since the last look. */
    private void check() {
        Path f = file;
        if (f == null) {
            return;
        }
        String now = stamp(f);
        if (now.equals(fileSeen)) {
            return;
        }
        fileSeen = now;
        try {
            reload.run();
        } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.WARNING, "servlet-qos: " + f + " changed but was not reloaded, the policy in "
                    + "force stays: " + e.getMessage());
        }
    }

    /** What the file looks like, to notice a change: its modification time and size, or that it is missing. */
    private static String stamp(Path f) {
        try {
            return Files.getLastModifiedTime(f) + " " + Files.size(f);
        } catch (IOException e) {
            return "missing";
        }
    }
}

package dev.servletqos.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import one.profiler.AsyncProfiler;

/**
 * Profiles an {@link OverheadServer} with async-profiler over a window the script chooses (bench/profile.sh): with
 * {@code -Dbench.profile=DIR}, a daemon thread waits for the file {@code DIR/start}, starts the profiler (CPU time of
 * every thread, Java and native frames, the kernel's where allowed, sampled by {@code setitimer}), writes
 * {@code DIR/started}; then waits for {@code DIR/stop}, writes the samples as collapsed stacks per thread to
 * {@code DIR/profile.collapsed} and then {@code DIR/stopped}. async-profiler's library comes from its Maven Central
 * jar (linux-x64), extracted by its own loader. Files rather than {@code jcmd}: a window that starts after the
 * warm-up, without the attach mechanism.
 */
final class ProfilerControl {

    private ProfilerControl() {
    }

    /** Starts the control thread if {@code bench.profile} is set. */
    static void startIfAsked() {
        String dir = System.getProperty("bench.profile");
        if (dir == null) {
            return;
        }
        Path d = Path.of(dir);
        Thread t = new Thread(() -> {
            try {
                AsyncProfiler profiler = AsyncProfiler.getInstance();
                await(d.resolve("start"));
                profiler.execute("start,event=itimer,threads");
                Files.createFile(d.resolve("started"));
                await(d.resolve("stop"));
                profiler.execute("stop,file=" + d.resolve("profile.collapsed") + ",collapsed");
                Files.createFile(d.resolve("stopped"));
            } catch (Exception | UnsatisfiedLinkError e) {
                e.printStackTrace();
                System.err.println("PROFILER FAILED " + e);
            }
        }, "bench-profiler-control");
        t.setDaemon(true);
        t.start();
    }

    private static void await(Path file) throws InterruptedException {
        while (!Files.exists(file)) {
            Thread.sleep(20);
        }
    }
}

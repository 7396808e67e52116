package dev.servletqos.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * Debian's Chromium, headless, for checking pages in a real browser. {@link #require()} finds {@code chromium}
 * on the {@code PATH}; when it is missing it tries once to install the {@code chromium} package (as root with
 * {@code apt-get}, else with {@code sudo -n apt-get}) and, if that cannot be done, skips the calling test with a
 * message naming what is missing ({@link Assumptions}).
 *
 * <p>Each run is a fresh browser with a profile of its own ({@code --user-data-dir}), {@code --no-sandbox} (the
 * tests may run as root), and {@code --virtual-time-budget}: the page's timers and fetches run for that much
 * virtual time before the DOM is dumped or the screenshot taken. The browser logs every console message of the
 * page, and every error it reports there (an uncaught exception, a blocked resource, a failed request), to its
 * standard error with {@code --enable-logging=stderr --v=0}, as lines with {@code :CONSOLE}; {@link Run#console()}
 * holds them.
 */
public final class Chromium {

    private static final Object LOCK = new Object();
    /** Guarded by LOCK: the executable, or why there is none. */
    private static Path executable;
    private static String missing;

    private final Path binary;

    private Chromium(Path binary) {
        this.binary = binary;
    }

    /**
     * One browser run.
     *
     * @param output  the standard output (the DOM, for {@link #dumpDom})
     * @param console the page's console lines, as the browser logged them
     * @param log     the whole standard error
     */
    public record Run(String output, List<String> console, String log) {
    }

    /** The browser, installed if it can be; else the calling test is skipped, naming what is missing. */
    public static Chromium require() {
        synchronized (LOCK) {
            if (executable == null && missing == null) {
                locate();
            }
            Assumptions.assumeTrue(executable != null, () -> "skipped: no headless browser: " + missing);
            return new Chromium(executable);
        }
    }

    private static void locate() {
        Path found = onPath("chromium");
        if (found == null) {
            String how = install();
            found = onPath("chromium");
            if (found == null) {
                missing = "the Debian package chromium is not installed (no chromium on the PATH) and could not be"
                        + " installed: " + how + "; install it with: apt-get install chromium";
                return;
            }
        }
        executable = found;
    }

    private static Path onPath(String name) {
        String path = System.getenv("PATH");
        if (path == null) {
            return null;
        }
        for (String dir : path.split(java.io.File.pathSeparator)) {
            Path p = Path.of(dir, name);
            if (Files.isExecutable(p)) {
                return p;
            }
        }
        return null;
    }

    /** Tries to install the package; says how it went. */
    private static String install() {
        boolean root = "root".equals(System.getProperty("user.name"));
        List<String> command = new ArrayList<>();
        if (!root) {
            if (onPath("sudo") == null) {
                return "not root and no sudo";
            }
            command.addAll(List.of("sudo", "-n"));
        }
        if (onPath("apt-get") == null) {
            return "no apt-get (not Debian?)";
        }
        command.addAll(List.of("apt-get", "install", "-y", "--no-install-recommends", "chromium"));
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            if (!p.waitFor(10, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                return String.join(" ", command) + " took more than 10 minutes";
            }
            return String.join(" ", command) + " exited with " + p.exitValue();
        } catch (IOException e) {
            return String.join(" ", command) + " failed: " + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }

    /** Loads {@code url}, lets its scripts run for {@code virtualMillis} of virtual time, and dumps the DOM. */
    public Run dumpDom(String url, long virtualMillis) throws IOException, InterruptedException {
        return run(List.of("--dump-dom", "--virtual-time-budget=" + virtualMillis, url));
    }

    /** Loads {@code url}, lets its scripts run for {@code virtualMillis}, and writes a PNG of the window. */
    public Run screenshot(String url, Path png, int width, int height, long virtualMillis)
            throws IOException, InterruptedException {
        Files.createDirectories(png.toAbsolutePath().getParent());
        Files.deleteIfExists(png);
        Run r = run(List.of("--screenshot=" + png.toAbsolutePath(), "--window-size=" + width + "," + height,
                "--hide-scrollbars", "--virtual-time-budget=" + virtualMillis, url));
        if (!Files.isRegularFile(png)) {
            throw new AssertionError("chromium wrote no screenshot to " + png + "; its log:\n" + r.log());
        }
        return r;
    }

    private Run run(List<String> args) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("qos-chromium");
        Path out = profile.resolve("stdout.txt");
        Path err = profile.resolve("stderr.txt");
        try {
            List<String> command = new ArrayList<>(List.of(binary.toString(), "--headless", "--no-sandbox",
                    "--disable-gpu", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                    "--disable-background-networking", "--disable-component-update", "--disable-sync",
                    "--user-data-dir=" + profile.resolve("profile"), "--enable-logging=stderr", "--v=0"));
            command.addAll(args);
            Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("chromium did not finish within 90 s: " + command + "\n"
                        + Files.readString(err, StandardCharsets.UTF_8));
            }
            String log = Files.readString(err, StandardCharsets.UTF_8);
            if (p.exitValue() != 0) {
                throw new AssertionError("chromium exited with " + p.exitValue() + ": " + command + "\n" + log);
            }
            List<String> console = log.lines().filter(l -> l.contains(":CONSOLE")).toList();
            return new Run(Files.readString(out, StandardCharsets.UTF_8), console, log);
        } finally {
            deleteTree(profile);
        }
    }

    /** Best effort: a helper process of the browser may still be writing to its profile as it exits. */
    private static void deleteTree(Path dir) {
        try (var files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                f.toFile().delete();
            }
        } catch (IOException | java.io.UncheckedIOException e) {
            // left in the temporary directory
        }
    }
}

package dev.servletqos.cluster.redis;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.embedded.core.ExecutableProvider;

/**
 * A real redis-server for the tests, started by them: Debian's {@code /usr/bin/redis-server} where installed, else
 * the 6.2 binary embedded-redis ships; on a free port of 127.0.0.1, persistence off. It can be stopped (connections
 * refused), frozen ({@code kill -STOP}: calls hang) and thawed, and restarted empty on the same port. A server that
 * does not start fails the test with its reason: no test skips.
 */
final class TestRedis implements AutoCloseable {

    private final File executable;
    private final int port;
    private final Path dir;
    private Process process;
    private final StringBuilder output = new StringBuilder();

    TestRedis() throws IOException {
        File debian = new File("/usr/bin/redis-server");
        this.executable = debian.canExecute() ? debian : ExecutableProvider.newJarResourceProvider().get();
        try (ServerSocket s = new ServerSocket(0)) {
            this.port = s.getLocalPort();
        }
        this.dir = Files.createTempDirectory("qos-redis");
        start();
    }

    int port() {
        return port;
    }

    String uri() {
        return "redis://127.0.0.1:" + port;
    }

    /** Starts the server, empty, and waits (at most 10 s) until it accepts connections. */
    synchronized void start() throws IOException {
        ProcessBuilder pb = new ProcessBuilder(executable.getAbsolutePath(), "--port", Integer.toString(port),
                "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir.toString())
                .redirectErrorStream(true);
        process = pb.start();
        CountDownLatch ready = new CountDownLatch(1);
        Process p = process;
        Thread reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (output) {
                        output.append(line).append('\n');
                    }
                    if (line.contains("Ready to accept connections")) {
                        ready.countDown();
                    }
                }
            } catch (IOException e) {
                // the process ended
            }
        }, "test-redis-output");
        reader.setDaemon(true);
        reader.start();
        try {
            if (!ready.await(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("redis-server " + executable + " did not start on port " + port
                        + " within 10 s; its output:\n" + output());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private String output() {
        synchronized (output) {
            return output.toString();
        }
    }

    /** Stops the server: connections are refused until {@link #start()}. */
    synchronized void stop() throws InterruptedException {
        if (process != null) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            process = null;
        }
    }

    /** Freezes the server ({@code kill -STOP}): connections stay open, calls hang until their timeout. */
    void freeze() throws IOException, InterruptedException {
        signal("-STOP");
    }

    /** Thaws a frozen server ({@code kill -CONT}). */
    void thaw() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private synchronized void signal(String signal) throws IOException, InterruptedException {
        int rc = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start().waitFor();
        if (rc != 0) {
            throw new IllegalStateException("kill " + signal + " " + process.pid() + " failed: " + rc);
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (process != null) {
                signal("-CONT");
            }
            stop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while stopping redis-server", e);
        }
    }
}

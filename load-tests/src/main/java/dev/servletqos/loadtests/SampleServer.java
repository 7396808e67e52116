package dev.servletqos.loadtests;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The server under test as a child process on 127.0.0.1 (by default the sample shop jar), its output in a log
 * file. {@link #close()} stops it (and a JVM shutdown hook does, should the launcher be interrupted).
 */
public final class SampleServer implements AutoCloseable {

    private final Process process;
    private final URI baseUrl;
    private final Path log;
    private final Thread reaper;

    private SampleServer(Process process, URI baseUrl, Path log) {
        this.process = process;
        this.baseUrl = baseUrl;
        this.log = log;
        this.reaper = new Thread(this::kill, "stop " + baseUrl);
        Runtime.getRuntime().addShutdownHook(reaper);
    }

    /**
     * Starts {@code command} and waits until it answers HTTP on {@code port}.
     *
     * @param command the command line, already naming the port
     * @param port    the port it listens on, on 127.0.0.1
     * @param log     where its standard output and error go
     * @param timeout how long it may take to answer
     * @throws IOException if it cannot start, exits, or does not answer in time (the message quotes its log)
     */
    public static SampleServer start(List<String> command, int port, Path log, Duration timeout)
            throws IOException, InterruptedException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        SampleServer server = new SampleServer(p, URI.create("http://127.0.0.1:" + port), log);
        try {
            server.awaitReady(timeout);
            return server;
        } catch (IOException | InterruptedException | RuntimeException e) {
            server.close();
            throw e;
        }
    }

    /** A port nobody listens on now, on 127.0.0.1. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    public URI baseUrl() {
        return baseUrl;
    }

    public Path log() {
        return log;
    }

    /** Whether the process is still running. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The server's {@code GET /qos} answer (its JSON snapshot), or null if it gives none. */
    public String qosSnapshot() {
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(baseUrl.resolve("/qos")).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return r.statusCode() == 200 ? r.body() : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private void awaitReady(Duration timeout) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest probe = HttpRequest.newBuilder(baseUrl.resolve("/qos")).timeout(Duration.ofSeconds(2)).build();
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            if (!process.isAlive()) {
                throw new IOException("the server exited with status " + process.exitValue() + " before answering on "
                        + baseUrl + "; its log " + log + " ends with:\n" + tail());
            }
            try {
                client.send(probe, HttpResponse.BodyHandlers.discarding());
                return; // any HTTP answer: it is up
            } catch (IOException notYet) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("the server did not answer on " + baseUrl + " within " + timeout
                            + "; its log " + log + " ends with:\n" + tail(), notYet);
                }
            }
            Thread.sleep(200); // polling a condition with a deadline
        }
    }

    private String tail() {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(cannot read it: " + e + ")";
        }
    }

    private void kill() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the server and waits for it to exit. */
    @Override
    public void close() {
        kill();
        try {
            Runtime.getRuntime().removeShutdownHook(reaper);
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }
}

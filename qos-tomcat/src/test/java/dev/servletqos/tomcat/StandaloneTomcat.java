package dev.servletqos.tomcat;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import javax.management.remote.JMXServiceURL;

/**
 * A standalone Tomcat from the binary distribution, run as a child process the way an admin installs the
 * valve: a fresh {@code CATALINA_BASE} whose {@code lib/} holds {@code qos-tomcat-<version>-all.jar}, web
 * apps deployed by context files {@code conf/Catalina/localhost/<app>.xml} that carry the {@code <Valve>}
 * lines, and policy files in {@code conf/}.
 *
 * <p>The build hands over where things are through system properties (see qos-tomcat's pom): {@value
 * #DIST_PROPERTY} (the unpacked distribution, used as {@code CATALINA_HOME}), {@value #ALL_JAR_PROPERTY},
 * {@value #WEBAPPS_PROPERTY} (the fixture apps, one directory each) and {@value #WORK_PROPERTY} (under
 * {@code target/}, where each instance gets its {@code CATALINA_BASE}).
 *
 * <p>Tomcat listens on 127.0.0.1 only, on a free port, with its shutdown port disabled; all its logging
 * goes to one file, {@code <base>/catalina.out}. {@link #close()} ends the process and waits for it; a JVM
 * shutdown hook does the same if the test JVM exits first, and a Tomcat left running on the same base by a
 * test JVM that was killed outright is killed before the next start. Not thread-safe: one test thread
 * drives it.
 */
final class StandaloneTomcat implements AutoCloseable {

    static final String DIST_PROPERTY = "qos.it.tomcat-dist";
    static final String ALL_JAR_PROPERTY = "qos.it.all-jar";
    static final String WEBAPPS_PROPERTY = "qos.it.webapps";
    static final String WORK_PROPERTY = "qos.it.work";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(30);
    /** How often start-up polls the ready page; a pause between polls, not a guess at readiness. */
    private static final long POLL_MILLIS = 100;
    private static final int PORT_ATTEMPTS = 3;
    private static final int LOG_TAIL_LINES = 60;
    /** What Catalina logs once every app has been deployed and the connector is open. */
    private static final String STARTUP_DONE = "org.apache.catalina.startup.Catalina.start Server startup in";

    private final Path base;
    private final Path log;
    private final int port;
    /** The JMX remote connector's port (RMI registry and objects on one port), or 0 without one. */
    private final int jmxPort;
    private final Process process;
    private final Thread killOnExit;
    private boolean closed;

    private StandaloneTomcat(Path base, Path log, int port, int jmxPort, Process process) {
        this.base = base;
        this.log = log;
        this.port = port;
        this.jmxPort = jmxPort;
        this.process = process;
        this.killOnExit = new Thread(() -> kill(process), "kill-standalone-tomcat-" + port);
        Runtime.getRuntime().addShutdownHook(killOnExit);
    }

    /**
     * Starts describing an instance.
     *
     * @param name the name of its {@code CATALINA_BASE} directory under {@value #WORK_PROPERTY}; a
     *     directory left by an earlier run with this name is deleted
     */
    static Builder builder(String name) {
        return new Builder(name);
    }

    /** A fixture app shipped with the tests ({@code src/it-resources/webapps/<name>}). */
    static Path fixtureApp(String name) {
        Path app = requiredPath(WEBAPPS_PROPERTY).resolve(name);
        if (!Files.isDirectory(app)) {
            throw new IllegalArgumentException("no fixture app " + app);
        }
        return app;
    }

    /** {@code http://127.0.0.1:<port>} followed by {@code pathAndQuery}, which starts with {@code /}. */
    URI uri(String pathAndQuery) {
        if (!pathAndQuery.startsWith("/")) {
            throw new IllegalArgumentException("pathAndQuery must start with /: " + pathAndQuery);
        }
        return URI.create("http://127.0.0.1:" + port + pathAndQuery);
    }

    /**
     * Where a JMX client connects to this Tomcat ({@link Builder#jmxRemote()}): the JDK's own agent, on 127.0.0.1,
     * without authentication or TLS (a test machine's loopback only; see docs/operations.md for a real server).
     */
    JMXServiceURL jmxUrl() {
        if (jmxPort == 0) {
            throw new IllegalStateException("started without jmxRemote()");
        }
        try {
            return new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + jmxPort + "/jmxrmi");
        } catch (java.net.MalformedURLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** This instance's {@code CATALINA_BASE}. */
    Path base() {
        return base;
    }

    /** The last lines Tomcat logged (stdout, stderr and java.util.logging all go to one file). */
    String logTail() {
        List<String> lines = readLog().lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - LOG_TAIL_LINES), lines.size()));
    }

    /**
     * For failure messages: the first error Tomcat logged with what follows it (the cause is often far
     * above the end of the log, since Tomcat goes on deploying the other apps), then the log's tail.
     */
    String logReport() {
        List<String> lines = readLog().lines().toList();
        int tailStart = Math.max(0, lines.size() - LOG_TAIL_LINES);
        StringBuilder report = new StringBuilder();
        for (int i = 0; i < tailStart; i++) {
            if (lines.get(i).contains(" SEVERE ")) {
                List<String> excerpt = lines.subList(i, Math.min(i + 25, tailStart));
                report.append("first error in ").append(log).append(":\n")
                        .append(String.join("\n", excerpt)).append("\n...\n");
                break;
            }
        }
        return report.append(log).append(" ends with:\n").append(logTail()).toString();
    }

    private String readLog() {
        try {
            return Files.exists(log) ? new String(Files.readAllBytes(log), StandardCharsets.UTF_8) : "";
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e + ")";
        }
    }

    /** Ends Tomcat (SIGTERM, so it stops cleanly; forcibly after 30 s) and waits until it has exited. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            stop(process);
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(killOnExit);
            } catch (IllegalStateException jvmShuttingDown) {
                // The hook is running or about to: it kills the process too.
            }
        }
    }

    private static void stop(Process process) {
        process.destroy();
        boolean interrupted = false;
        try {
            if (!process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                kill(process);
            }
        } catch (InterruptedException e) {
            interrupted = true;
            kill(process);
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private static void kill(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        boolean interrupted = false;
        try {
            process.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** What to install into a fresh {@code CATALINA_BASE} before Tomcat starts. */
    static final class Builder {

        private final String name;
        private int maxThreads = 20;
        private final Map<String, Path> appSources = new LinkedHashMap<>();
        private final Map<String, String> appContexts = new LinkedHashMap<>();
        private final Map<String, String> confFiles = new LinkedHashMap<>();
        private String readyPath;
        private boolean jmxRemote;

        private Builder(String name) {
            if (!name.matches("[A-Za-z0-9_-]+")) {
                throw new IllegalArgumentException("name must match [A-Za-z0-9_-]+: " + name);
            }
            this.name = name;
        }

        /** The NIO connector's {@code maxThreads}; default 20. */
        Builder maxThreads(int maxThreads) {
            if (maxThreads < 1) {
                throw new IllegalArgumentException("maxThreads must be at least 1: " + maxThreads);
            }
            this.maxThreads = maxThreads;
            return this;
        }

        /**
         * Deploys a copy of {@code source} as {@code webapps/<app>} with the context file
         * {@code conf/Catalina/localhost/<app>.xml}, so that the app answers under {@code /<app>}.
         *
         * @param contextLines the XML written inside {@code <Context>}, typically {@code <Valve .../>}
         *     lines; empty for none
         */
        Builder webapp(String app, Path source, String... contextLines) {
            if (!app.matches("[A-Za-z0-9_-]+")) {
                throw new IllegalArgumentException("app must match [A-Za-z0-9_-]+: " + app);
            }
            appSources.put(app, Objects.requireNonNull(source, "source"));
            appContexts.put(app, String.join("\n", contextLines));
            return this;
        }

        /** Writes {@code content} to {@code conf/<fileName>} (a policy file, say). */
        Builder confFile(String fileName, String content) {
            if (!fileName.matches("[A-Za-z0-9_.-]+") || fileName.equals("server.xml")) {
                throw new IllegalArgumentException("not a file name this builder may write: " + fileName);
            }
            confFiles.put(fileName, Objects.requireNonNull(content, "content"));
            return this;
        }

        /**
         * Starts the JVM with the JDK's JMX remote agent on a free port of 127.0.0.1, as an admin does with
         * {@code CATALINA_OPTS} in {@code bin/setenv.sh} ({@link #jmxUrl()}).
         */
        Builder jmxRemote() {
            this.jmxRemote = true;
            return this;
        }

        /** A GET of this path must answer 200 before {@link #start()} returns; required. */
        Builder readyPath(String path) {
            if (!path.startsWith("/")) {
                throw new IllegalArgumentException("path must start with /: " + path);
            }
            this.readyPath = path;
            return this;
        }

        /**
         * Creates the {@code CATALINA_BASE}, starts Tomcat and waits (at most 60 s) until the ready path
         * answers 200.
         *
         * @throws IOException if Tomcat exits or does not get ready in time; the message ends with the tail
         *     of its log
         */
        StandaloneTomcat start() throws IOException {
            if (readyPath == null) {
                throw new IllegalStateException("readyPath is required");
            }
            Path home = requiredPath(DIST_PROPERTY);
            Path allJar = requiredPath(ALL_JAR_PROPERTY);
            if (!Files.isRegularFile(home.resolve("bin/bootstrap.jar"))) {
                throw new IllegalStateException(DIST_PROPERTY + " is not a Tomcat distribution: " + home);
            }
            if (!Files.isRegularFile(allJar)) {
                throw new IllegalStateException(allJar + " is missing: the package phase builds it");
            }
            Path base = requiredPath(WORK_PROPERTY).resolve(name);
            killLeftovers(base);
            createBase(home, allJar, base);
            Path log = base.resolve("catalina.out");
            for (int attempt = 1; ; attempt++) {
                int port = freePort();
                int jmxPort = jmxRemote ? freePort() : 0;
                List<String> jvm = jmxPort == 0 ? List.of() : List.of(
                        "-Dcom.sun.management.jmxremote.port=" + jmxPort,
                        "-Dcom.sun.management.jmxremote.rmi.port=" + jmxPort,
                        "-Dcom.sun.management.jmxremote.host=127.0.0.1",
                        "-Djava.rmi.server.hostname=127.0.0.1",
                        "-Dcom.sun.management.jmxremote.authenticate=false",
                        "-Dcom.sun.management.jmxremote.ssl=false");
                Files.writeString(base.resolve("conf/server.xml"), serverXml(port, maxThreads));
                StandaloneTomcat tomcat = new StandaloneTomcat(base, log, port, jmxPort, launch(home, base, log, jvm));
                boolean ready = false;
                try {
                    tomcat.awaitReady(readyPath);
                    ready = true;
                    return tomcat;
                } catch (PortTakenException e) {
                    if (attempt == PORT_ATTEMPTS) {
                        throw new IOException(e.getMessage() + " (" + attempt + " attempts)", e);
                    }
                } finally {
                    if (!ready) {
                        tomcat.close();
                    }
                }
            }
        }

        private void createBase(Path home, Path allJar, Path base) throws IOException {
            deleteRecursively(base);
            copyTree(home.resolve("conf"), base.resolve("conf"));
            for (String dir : List.of("lib", "logs", "temp", "work", "webapps", "conf/Catalina/localhost")) {
                Files.createDirectories(base.resolve(dir));
            }
            Files.copy(allJar, base.resolve("lib").resolve(allJar.getFileName()));
            // Everything to the console, which start() sends to catalina.out: one file to read on failure.
            Files.writeString(base.resolve("conf/logging.properties"), String.join("\n",
                    "handlers = java.util.logging.ConsoleHandler",
                    ".handlers = java.util.logging.ConsoleHandler",
                    ".level = INFO",
                    "java.util.logging.ConsoleHandler.level = ALL",
                    "java.util.logging.ConsoleHandler.formatter = org.apache.juli.OneLineFormatter",
                    "java.util.logging.ConsoleHandler.encoding = UTF-8",
                    ""));
            for (Map.Entry<String, String> file : confFiles.entrySet()) {
                Files.writeString(base.resolve("conf").resolve(file.getKey()), file.getValue());
            }
            for (Map.Entry<String, Path> app : appSources.entrySet()) {
                copyTree(app.getValue(), base.resolve("webapps").resolve(app.getKey()));
                Files.writeString(base.resolve("conf/Catalina/localhost").resolve(app.getKey() + ".xml"),
                        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Context>\n"
                                + appContexts.get(app.getKey()) + "\n</Context>\n");
            }
        }
    }

    private static String serverXml(int port, int maxThreads) {
        return """
                <?xml version="1.0" encoding="UTF-8"?>
                <!-- Written by StandaloneTomcat for one integration test run. -->
                <Server port="-1" shutdown="SHUTDOWN">
                  <Listener className="org.apache.catalina.startup.VersionLoggerListener"/>
                  <Service name="Catalina">
                    <Connector protocol="org.apache.coyote.http11.Http11NioProtocol"
                               address="127.0.0.1" port="%d" maxThreads="%d" connectionTimeout="20000"/>
                    <Engine name="Catalina" defaultHost="localhost">
                      <Host name="localhost" appBase="webapps" unpackWARs="false" autoDeploy="false"/>
                    </Engine>
                  </Service>
                </Server>
                """.formatted(port, maxThreads);
    }

    /** The command line of bin/catalina.sh run, with the JVM that runs the tests. */
    private static Process launch(Path home, Path base, Path log, List<String> jvmOptions) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(List.of(
                "-Xmx512m",
                "--add-opens=java.base/java.lang=ALL-UNNAMED",
                "--add-opens=java.base/java.lang.reflect=ALL-UNNAMED",
                "--add-opens=java.base/java.io=ALL-UNNAMED",
                "--add-opens=java.base/java.util=ALL-UNNAMED",
                "--add-opens=java.base/java.util.concurrent=ALL-UNNAMED",
                "--add-opens=java.rmi/sun.rmi.transport=ALL-UNNAMED",
                "--enable-native-access=ALL-UNNAMED",
                "-Djava.util.logging.manager=org.apache.juli.ClassLoaderLogManager",
                "-Djava.util.logging.config.file=" + base.resolve("conf/logging.properties"),
                // A connector that cannot bind ends the process instead of leaving it up without a port.
                "-Dorg.apache.catalina.startup.EXIT_ON_INIT_FAILURE=true",
                "-Dcatalina.home=" + home,
                "-Dcatalina.base=" + base,
                "-Djava.io.tmpdir=" + base.resolve("temp")));
        command.addAll(jvmOptions);
        command.addAll(List.of(
                "-cp", home.resolve("bin/bootstrap.jar") + java.io.File.pathSeparator
                        + home.resolve("bin/tomcat-juli.jar"),
                "org.apache.catalina.startup.Bootstrap", "start"));
        Process process = new ProcessBuilder(command)
                .directory(base.toFile())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        process.getOutputStream().close(); // Tomcat reads no input
        return process;
    }

    private void awaitReady(String readyPath) throws IOException {
        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        HttpRequest request = HttpRequest.newBuilder(uri(readyPath)).timeout(Duration.ofSeconds(10)).build();
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        String last = "no answer";
        try {
            while (true) {
                if (!process.isAlive()) {
                    if (logTail().contains("java.net.BindException")) {
                        throw new PortTakenException("port " + port + " was taken before Tomcat bound it");
                    }
                    throw new IOException("Tomcat exited with code " + process.exitValue() + " before "
                            + request.uri() + " answered 200; " + logReport());
                }
                HttpResponse<String> response = null;
                try {
                    response = client.send(request, HttpResponse.BodyHandlers.ofString());
                } catch (IOException notYet) {
                    last = notYet.toString();
                }
                if (response != null) {
                    if (response.statusCode() == 200) {
                        return;
                    }
                    last = "HTTP " + response.statusCode();
                    if (readLog().contains(STARTUP_DONE)) {
                        // Every app has been deployed and this one still does not answer: it failed to start.
                        throw new IOException("Tomcat started but " + request.uri() + " answered " + last
                                + "; " + logReport());
                    }
                }
                if (System.nanoTime() - deadline > 0) {
                    throw new IOException("Tomcat did not answer 200 on " + request.uri() + " within "
                            + START_TIMEOUT.toSeconds() + " s (last: " + last + "); " + logReport());
                }
                // Returns early if Tomcat exits, which the next round reports.
                process.waitFor(POLL_MILLIS, TimeUnit.MILLISECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new InterruptedIOException("interrupted while waiting for Tomcat to start");
        }
    }

    /** Tomcat could not bind the port found free: another process took it in between. */
    private static final class PortTakenException extends IOException {
        private static final long serialVersionUID = 1L;

        PortTakenException(String message) {
            super(message);
        }
    }

    /**
     * Kills a Tomcat that an earlier run started on this {@code CATALINA_BASE} and could not stop (its test
     * JVM was killed outright, so neither close() nor the shutdown hook ran). Matches the exact
     * {@code -Dcatalina.base} argument, so it touches no other process.
     */
    private static void killLeftovers(Path base) {
        String argument = "-Dcatalina.base=" + base;
        ProcessHandle.allProcesses()
                .filter(p -> p.info().arguments().map(args -> List.of(args).contains(argument)).orElse(false))
                .forEach(p -> {
                    p.destroyForcibly();
                    try {
                        p.onExit().get(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } catch (ExecutionException | TimeoutException e) {
                        throw new IllegalStateException("cannot kill the Tomcat left running on " + base, e);
                    }
                });
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private static Path requiredPath(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            throw new IllegalStateException("system property " + property
                    + " is not set: run the integration tests through Maven (failsafe sets it)");
        }
        return Paths.get(value).toAbsolutePath();
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path path : (Iterable<Path>) paths::iterator) {
                Path target = to.resolve(from.relativize(path).toString());
                if (Files.isDirectory(path)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(path, target, StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }

    private static void deleteRecursively(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                Files.delete(file);
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
                if (e != null) {
                    throw e;
                }
                Files.delete(dir);
                return FileVisitResult.CONTINUE;
            }
        });
    }
}

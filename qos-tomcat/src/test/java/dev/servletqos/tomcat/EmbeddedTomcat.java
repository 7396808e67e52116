package dev.servletqos.tomcat;

import dev.servletqos.EngineSnapshot;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * A real embedded Tomcat on 127.0.0.1 with the valve in front of a small test application:
 * {@code /work?ms=N} works N ms and records which class started when; {@code /fail} throws; {@code /async?ms=N}
 * goes asynchronous and completes N ms later on another thread; {@code /echo} returns the request body.
 */
final class EmbeddedTomcat implements AutoCloseable {

    /** The class of each request, in the order the application started them. */
    final List<String> started = new CopyOnWriteArrayList<>();
    final Tomcat tomcat = new Tomcat();
    final QosValve valve = new QosValve();
    private final ScheduledExecutorService appThreads = Executors.newScheduledThreadPool(2);
    private final Connector connector;

    EmbeddedTomcat(Path dir, String policy, int maxThreads) throws IOException, LifecycleException {
        Path file = dir.resolve("qos.properties");
        Files.writeString(file, policy, StandardCharsets.UTF_8);
        tomcat.setBaseDir(dir.resolve("tomcat").toString());
        tomcat.setHostname("127.0.0.1");
        connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", Integer.toString(maxThreads));
        connector.setProperty("minSpareThreads", "1");
        tomcat.setConnector(connector);
        Context ctx = tomcat.addContext("", null);
        Tomcat.addServlet(ctx, "work", new WorkServlet()).setAsyncSupported(true);
        ctx.addServletMappingDecoded("/work", "work");
        Tomcat.addServlet(ctx, "fail", new FailServlet());
        ctx.addServletMappingDecoded("/fail", "fail");
        Tomcat.addServlet(ctx, "async", new AsyncServlet()).setAsyncSupported(true);
        ctx.addServletMappingDecoded("/async", "async");
        Tomcat.addServlet(ctx, "echo", new EchoServlet());
        ctx.addServletMappingDecoded("/echo", "echo");
        valve.setPolicy(file.toString());
        ctx.getPipeline().addValve(valve);
        tomcat.start();
    }

    int port() {
        return connector.getLocalPort();
    }

    EngineSnapshot snapshot() {
        return valve.snapshot();
    }

    /** Worker threads of the connector running something now. */
    int busyThreads() {
        Executor e = connector.getProtocolHandler().getExecutor();
        return ((ThreadPoolExecutor) e).getActiveCount();
    }

    /** Waits until the condition holds, polling; fails after the timeout, saying what the engine was doing. */
    void awaitState(String what, Duration timeout, BooleanSupplier condition) {
        try {
            await(what, timeout, condition);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; engine: " + snapshot() + "; started: " + started, e);
        }
    }

    /** Waits until the condition holds, polling; fails after the timeout. */
    static void await(String what, Duration timeout, BooleanSupplier condition) {
        long end = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }

    /** Waits until nothing executes or waits: no permit or ticket leaked. */
    void awaitIdle() {
        awaitState("executing and queued back to zero", Duration.ofSeconds(20), () -> {
            EngineSnapshot s = snapshot();
            return s.executing() == 0 && s.queued() == 0;
        });
    }

    @Override
    public void close() throws LifecycleException {
        appThreads.shutdownNow();
        tomcat.stop();
        tomcat.destroy();
    }

    private final class WorkServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            started.add(String.valueOf(req.getAttribute("dev.servletqos.class")));
            sleep(Long.parseLong(req.getParameter("ms") == null ? "0" : req.getParameter("ms")));
            resp.setContentType("text/plain");
            resp.getWriter().print("ok " + req.getAttribute("dev.servletqos.class"));
        }
    }

    private static final class FailServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            throw new IllegalStateException("the application failed (on purpose)");
        }
    }

    private final class AsyncServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            started.add(String.valueOf(req.getAttribute("dev.servletqos.class")));
            long ms = Long.parseLong(req.getParameter("ms"));
            AsyncContext async = req.startAsync();
            appThreads.schedule(() -> {
                try {
                    async.getResponse().getWriter().print("async done");
                } catch (IOException ignored) {
                    // the client is gone; complete anyway
                }
                async.complete();
            }, ms, TimeUnit.MILLISECONDS);
        }
    }

    private static final class EchoServlet extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            byte[] body;
            try (InputStream in = req.getInputStream()) {
                body = in.readAllBytes();
            }
            resp.setContentType("text/plain");
            resp.getOutputStream().write(body);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}

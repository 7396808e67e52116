package dev.servletqos.e2e;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.jetty.QosHandler;
import dev.servletqos.tomcat.QosValve;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Supplier;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.ValveBase;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * One server of the end-to-end overhead benchmark ({@code bench/overhead.sh}, docs/performance.md): the same trivial
 * servlet on embedded Tomcat or Jetty, with or without a servlet-qos adapter, each container with its defaults (a
 * 200-thread pool, HTTP/1.1), listening on 127.0.0.1. Started as its own JVM, so that its CPU time and a JFR
 * recording are its own.
 *
 * <pre>java -cp ... dev.servletqos.e2e.OverheadServer VARIANT PORT [POLICY_FILE]</pre>
 *
 * VARIANT is {@code tomcat-plain}, {@code tomcat-valve}, {@code tomcat-filter}, {@code jetty-plain} or
 * {@code jetty-handler}, or {@code tomcat-work-N} (plain Tomcat with a {@link WorkValve} of N ns); PORT 0 takes a
 * free one. The policy file is read by the adapter as a user's would be. The server prints {@code READY <port>}
 * once it answers, and runs until it is killed (SIGTERM stops the container).
 *
 * <p>{@code /ok}: a session check ({@code getSession(false)}, which finds none) and "ok", the cheapest request an
 * application has. {@code /stats}: the engine's counters (plain text), for the script to show that the measured
 * requests ran, were not refused, and how many waited.
 */
public final class OverheadServer {

    private OverheadServer() {
    }

    /** The calibration variants' prefix: {@code tomcat-work-N} is plain Tomcat with a {@link WorkValve} of N ns. */
    static final String WORK = "tomcat-work-";

    static long workNanos(String variant) {
        try {
            long n = Long.parseLong(variant.substring(WORK.length()));
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // below
        }
        throw new IllegalArgumentException("variant " + variant + ": " + WORK + "N needs N >= 0, a number of ns");
    }

    /**
     * The calibration valve ({@code bench/overhead.sh --calibrate}): plain CPU work of a fixed time on every request
     * (it reads the clock until N ns have passed), then the rest of the pipeline; nothing else. What N ns of work
     * per request cost end to end on this machine, against which an adapter's own time is read.
     */
    static final class WorkValve extends ValveBase {
        private final long nanos;

        WorkValve(long nanos) {
            super(true);
            this.nanos = nanos;
        }

        @Override
        public void invoke(Request request, Response response) throws IOException, ServletException {
            long start = System.nanoTime();
            while (System.nanoTime() - start < nanos) {
                // work: the clock's reads themselves
            }
            getNext().invoke(request, response);
        }
    }

    /** The measured request: a session check and "ok". */
    static final class OkServlet extends HttpServlet {
        private static final byte[] OK = "ok".getBytes(StandardCharsets.US_ASCII);

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            req.getSession(false);
            resp.setContentType("text/plain");
            resp.setContentLength(OK.length);
            resp.getOutputStream().write(OK);
        }
    }

    /** The engine's counters per class, one line each; "no engine" on a plain server. */
    static final class StatsServlet extends HttpServlet {
        private final transient Supplier<QosEngine> engine;

        StatsServlet(Supplier<QosEngine> engine) {
            this.engine = engine;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setContentType("text/plain");
            resp.getWriter().write(describe(engine.get()));
        }
    }

    static String describe(QosEngine engine) {
        if (engine == null) {
            return "no engine\n";
        }
        EngineSnapshot s = engine.snapshot();
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT,
                "max-executing %d, executing %d, queued %d, sessions in table %d%n", s.maxExecuting(),
                s.executing(), s.queued(), s.sessions().tableSize()));
        for (ClassStats c : s.classes()) {
            b.append(String.format(Locale.ROOT,
                    "%s: entered %d, completed %d, rejected %d, expired %d, permits granted %d, new sessions %d, "
                            + "mean wait for a permit %.1f us%n",
                    c.name(), c.entered(), c.completed(), c.rejected(), c.expired(), c.grants(),
                    c.sessionsAdmitted(), c.grants() == 0 ? 0.0 : c.waitNanos() / 1e3 / c.grants()));
        }
        return b.toString();
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 2) {
            System.err.println("usage: OverheadServer tomcat-plain|tomcat-valve|tomcat-filter|tomcat-work-N|"
                    + "jetty-plain|jetty-handler PORT [POLICY_FILE]");
            System.exit(2);
        }
        String variant = args[0];
        int port = Integer.parseInt(args[1]);
        String policy = args.length > 2 ? Path.of(args[2]).toAbsolutePath().toString() : null;
        boolean adapter = !variant.endsWith("-plain") && !variant.startsWith(WORK);
        if (adapter && (policy == null || !Files.isRegularFile(Path.of(policy)))) {
            throw new IllegalArgumentException(variant + " needs a policy file, got " + policy);
        }
        ProfilerControl.startIfAsked();
        AutoCloseable server = variant.startsWith(WORK) ? tomcat(variant, port, policy) : switch (variant) {
            case "tomcat-plain", "tomcat-valve", "tomcat-filter" -> tomcat(variant, port, policy);
            case "jetty-plain", "jetty-handler" -> jetty(variant, port, policy);
            default -> throw new IllegalArgumentException("unknown variant " + variant);
        };
        // Runs until killed (the script sends SIGTERM to this JVM's pid); the hook stops the container.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                server.close();
            } catch (Exception e) {
                e.printStackTrace();
            }
        }, "overhead-server-stop"));
        Thread.currentThread().join();
    }

    private static AutoCloseable tomcat(String variant, int port, String policy) throws Exception {
        Path base = Files.createTempDirectory("overhead-tomcat");
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setHostname("127.0.0.1");
        Connector connector = new Connector();
        connector.setPort(port);
        connector.setProperty("address", "127.0.0.1");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Supplier<QosEngine> engine = () -> engineOf(context.getServletContext());
        Tomcat.addServlet(context, "ok", new OkServlet()).setAsyncSupported(true);
        context.addServletMappingDecoded("/ok", "ok");
        Tomcat.addServlet(context, "stats", new StatsServlet(engine)).setAsyncSupported(true);
        context.addServletMappingDecoded("/stats", "stats");
        if (variant.startsWith(WORK)) {
            context.getPipeline().addValve(new WorkValve(workNanos(variant)));
        } else if (variant.equals("tomcat-valve")) {
            QosValve valve = new QosValve();
            valve.setPolicy(policy);
            context.getPipeline().addValve(valve);
        } else if (variant.equals("tomcat-filter")) {
            // as a web.xml would declare it: first, for REQUEST and ASYNC (README, docs/adapters.md)
            FilterDef def = new FilterDef();
            def.setFilterName("servlet-qos");
            def.setFilterClass("dev.servletqos.servlet.QosFilter");
            def.setAsyncSupported("true");
            def.addInitParameter("policy", policy);
            context.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("servlet-qos");
            map.addURLPattern("/*");
            map.setDispatcher("REQUEST");
            map.setDispatcher("ASYNC");
            context.addFilterMapBefore(map);
        }
        tomcat.start();
        if (context.getState() != LifecycleState.STARTED) {
            tomcat.stop();
            throw new IllegalStateException("the context did not start: " + context.getState());
        }
        System.out.println("READY " + connector.getLocalPort());
        return () -> {
            tomcat.stop();
            tomcat.destroy();
        };
    }

    private static AutoCloseable jetty(String variant, int port, String policy) throws Exception {
        Server server = new Server();
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(port);
        server.addConnector(connector);
        ServletContextHandler context = new ServletContextHandler("/");
        QosHandler handler = variant.equals("jetty-handler") ? new QosHandler() : null;
        ServletHolder ok = new ServletHolder(new OkServlet());
        ok.setAsyncSupported(true);
        context.addServlet(ok, "/ok");
        ServletHolder stats = new ServletHolder(new StatsServlet(() -> handler == null ? null : handler.getEngine()));
        context.addServlet(stats, "/stats");
        if (handler != null) {
            // where the servlet-qos Jetty module puts it: in front of the context
            handler.setPolicy(policy);
            handler.setHandler(context);
            server.setHandler(handler);
        } else {
            server.setHandler(context);
        }
        server.start();
        System.out.println("READY " + connector.getLocalPort());
        return server::stop;
    }

    private static QosEngine engineOf(ServletContext context) {
        return (QosEngine) context.getAttribute(QosValve.ENGINE_ATTRIBUTE);
    }
}

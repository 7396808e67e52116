package dev.servletqos.jetty;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.servlet.QosFilter;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import dev.servletqos.testkit.SoakServlets;
import dev.servletqos.testkit.TestApp;
import dev.servletqos.testkit.TestServlets;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServlet;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.ee11.servlet.ServletHolder;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.URIUtil;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * A real Jetty server on 127.0.0.1 (HTTP/1.1 and h2c on one port, one acceptor, one selector) with an adapter
 * in front of the {@link TestApp}: either {@link QosHandler} around the application as core handlers
 * ({@link #withHandler}), or {@link QosFilter} in an ee11 servlet context with the application as servlets
 * ({@link #withFilter}).
 */
@SuppressWarnings("try") // close() throws what Server.stop() throws
final class EmbeddedJetty implements QosServer {

    /** Pool threads Jetty keeps for itself: the connector's acceptor and selector. */
    private static final int JETTY_THREADS = 2;
    /** The connector's idle timeout. */
    static final long IDLE_TIMEOUT_MILLIS = 90_000;
    /**
     * The connector's idle timeout in the soak: it bounds how long a client that stops reading holds the thread
     * writing to it, and its permit (docs/security.md, slow clients); above the soak's longest max-wait plus 1.1 s.
     */
    static final long SOAK_IDLE_TIMEOUT_MILLIS = 5_000;

    final TestApp testApp = new TestApp();
    final Server server;
    final QueuedThreadPool threads;
    final ServerConnector connector;
    /** The test application as core handlers, to wrap or to reference from Jetty XML. */
    final Handler app = new App();
    private Supplier<QosEngine> engine;
    /** What {@link #stopAdapter()} stops: the QoS handler, or the filter's servlet context. */
    private Supplier<LifeCycle> adapter = this::qos;

    /** A started server with a {@link QosHandler} reading {@code policy} from a file in {@code dir}. */
    static EmbeddedJetty withHandler(Path dir, String policy, int maxThreads) throws Exception {
        QosHandler qos = new QosHandler();
        qos.setPolicy(writePolicy(dir, policy).toString());
        EmbeddedJetty jetty = new EmbeddedJetty(qos, maxThreads);
        jetty.startServer();
        return jetty;
    }

    /** A started server with {@link QosFilter} in front of the {@link TestServlets} in an ee11 context at "/". */
    static EmbeddedJetty withFilter(Path dir, String policy, int maxThreads) throws Exception {
        return withFilter(dir, policy, maxThreads, Map.of(), context -> { });
    }

    /**
     * {@link #withFilter(Path, String, int)} with more init parameters for the QoS filter, and {@code more} to add
     * what a test needs to the context after the QoS filter (other filters, listeners).
     */
    static EmbeddedJetty withFilter(Path dir, String policy, int maxThreads, Map<String, String> initParameters,
            Consumer<ServletContextHandler> more) throws Exception {
        return withFilter(dir, policy, maxThreads, initParameters, more, false);
    }

    private static EmbeddedJetty withFilter(Path dir, String policy, int maxThreads, Map<String, String> initParameters,
            Consumer<ServletContextHandler> more, boolean soak) throws Exception {
        EmbeddedJetty jetty = new EmbeddedJetty(maxThreads);
        ServletContextHandler context = new ServletContextHandler("/");
        Map<String, HttpServlet> servlets = new LinkedHashMap<>(TestServlets.forApp(jetty.testApp));
        if (soak) {
            servlets.putAll(SoakServlets.forApp(jetty.testApp));
        }
        for (Map.Entry<String, HttpServlet> s : servlets.entrySet()) {
            ServletHolder holder = new ServletHolder(s.getValue());
            holder.setAsyncSupported(true);
            context.addServlet(holder, s.getKey());
        }
        context.addEventListener(new TestServlets.AttributeTrap());
        QosFilter filter = new QosFilter();
        FilterHolder holder = new FilterHolder(filter);
        holder.setAsyncSupported(true);
        holder.setInitParameter("policy", writePolicy(dir, policy).toString());
        initParameters.forEach(holder::setInitParameter);
        context.addFilter(holder, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
        more.accept(context);
        jetty.server.setHandler(context);
        jetty.engine = filter::getEngine;
        jetty.adapter = () -> context;
        if (soak) {
            jetty.connector.setIdleTimeout(SOAK_IDLE_TIMEOUT_MILLIS);
        }
        jetty.startServer();
        return jetty;
    }

    /**
     * {@link #withFilter(Path, String, int)} with the {@link SoakServlets} beside the test application and the soak's
     * idle timeout.
     */
    static EmbeddedJetty withFilterForSoak(Path dir, String policy, int maxThreads) throws Exception {
        return withFilter(dir, policy, maxThreads, Map.of(), context -> { }, true);
    }

    /**
     * A started server with a {@link QosHandler} in front of an ee11 servlet context at "/" that has the
     * {@link TestServlets} and the {@link SoakServlets}: the handler where the {@code servlet-qos} module puts it, in
     * front of a web application; with the soak's idle timeout.
     */
    static EmbeddedJetty withHandlerForSoak(Path dir, String policy, int maxThreads) throws Exception {
        QosHandler qos = new QosHandler();
        qos.setPolicy(writePolicy(dir, policy).toString());
        EmbeddedJetty jetty = new EmbeddedJetty(maxThreads);
        ServletContextHandler context = new ServletContextHandler("/");
        Map<String, HttpServlet> servlets = new LinkedHashMap<>(TestServlets.forApp(jetty.testApp));
        servlets.putAll(SoakServlets.forApp(jetty.testApp));
        for (Map.Entry<String, HttpServlet> s : servlets.entrySet()) {
            ServletHolder holder = new ServletHolder(s.getValue());
            holder.setAsyncSupported(true);
            context.addServlet(holder, s.getKey());
        }
        qos.setHandler(context);
        jetty.server.setHandler(qos);
        jetty.connector.setIdleTimeout(SOAK_IDLE_TIMEOUT_MILLIS);
        jetty.startServer();
        return jetty;
    }

    private static Path writePolicy(Path dir, String policy) throws Exception {
        Path file = dir.resolve("qos.properties");
        Files.writeString(file, policy, StandardCharsets.UTF_8);
        return file;
    }

    /**
     * An unstarted server with the given handler wrapped around the test application, and the
     * {@link TestApp attribute trap} in front of it.
     */
    EmbeddedJetty(QosHandler qos, int maxThreads) {
        this(maxThreads);
        qos.setHandler(app);
        server.setHandler(new AttributeTrap(qos));
    }

    /**
     * An unstarted server with the bare test application, for a handler inserted later (Jetty XML).
     *
     * @param maxThreads pool threads for running requests, on top of the acceptor and the selector
     */
    EmbeddedJetty(int maxThreads) {
        threads = new QueuedThreadPool(maxThreads + JETTY_THREADS, 2);
        threads.setName("jetty-test");
        // No pre-started spare threads: they come and go on their own and would blur the busy count.
        threads.setReservedThreads(0);
        server = new Server(threads);
        HttpConfiguration config = new HttpConfiguration();
        connector = new ServerConnector(server, 1, 1, new HttpConnectionFactory(config),
                new HTTP2CServerConnectionFactory(config));
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        // Above the longest max-wait any test uses (60 s): QosHandler refuses to start otherwise.
        connector.setIdleTimeout(IDLE_TIMEOUT_MILLIS);
        server.addConnector(connector);
        server.setHandler(app);
        engine = () -> qos() == null ? null : qos().getEngine();
    }

    @Override
    public QosEngine engine() {
        return engine.get();
    }

    void startServer() throws Exception {
        try {
            server.start();
        } catch (Exception e) {
            close();
            throw e;
        }
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    /** The server's QoS handler, wherever it was put; null with the filter. */
    QosHandler qos() {
        return server.getDescendant(QosHandler.class);
    }

    @Override
    public EngineSnapshot snapshot() {
        QosEngine e = engine.get();
        return e == null ? null : e.snapshot();
    }

    /**
     * Pool threads running tasks now, less those leased for good (the acceptor and the selector): the
     * pool's {@code getBusyThreads() - getLeasedThreads()}, reserved threads being off.
     */
    @Override
    public int busyWorkerThreads() {
        return threads.getUtilizedThreads();
    }

    @Override
    public List<String> startedOrder() {
        return testApp.started();
    }

    /** Waits until the condition holds; on failure says what the engine and the application were doing. */
    void awaitState(String what, Duration timeout, BooleanSupplier condition) {
        try {
            AdapterBehaviourSuite.await(what, timeout, condition);
        } catch (AssertionError e) {
            throw new AssertionError(e.getMessage() + "; busy worker threads: " + busyWorkerThreads()
                    + "; engine: " + snapshot() + "; started: " + startedOrder(), e);
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
    public void stopAdapter() throws Exception {
        adapter.get().stop();
    }

    /** Stops the server and the application's threads. */
    @Override
    public void close() throws Exception {
        try {
            server.stop();
        } finally {
            testApp.close();
        }
    }

    /** The {@link TestApp attribute trap} for core handlers: wraps the request in front of the adapter. */
    private static final class AttributeTrap extends Handler.Wrapper {

        AttributeTrap(Handler handler) {
            super(handler);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            String trapped = request.getHeaders().get(TestApp.TRAP_HEADER);
            if (trapped == null) {
                return super.handle(request, response, callback);
            }
            return super.handle(new Request.Wrapper(request) {
                @Override
                public Object setAttribute(String name, Object value) {
                    if (name.equals(trapped)) {
                        throw new IllegalStateException("setting " + name + " failed (on purpose)");
                    }
                    return super.setAttribute(name, value);
                }
            }, response, callback);
        }
    }

    /** The {@link TestApp} endpoints as one core handler. */
    private final class App extends Handler.Abstract {

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            Object cls = request.getAttribute(TestApp.CLASS_ATTRIBUTE);
            Fields.Field ms = Request.extractQueryParameters(request).get("ms");
            long millis = TestApp.millis(ms == null ? null : ms.getValue());
            String path = Request.getPathInContext(request);
            if (path.startsWith(TestApp.IMAGES + "/") || path.startsWith(TestApp.DEGRADED + "/")) {
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
                // the file a resource handler would look up: the path decoded (Jetty keeps some escapes in it)
                Content.Sink.write(response, true, "file " + URIUtil.decodePath(path), callback);
                return true;
            }
            switch (path) {
                case TestApp.WORK:
                    testApp.recordStart(cls);
                    TestApp.work(millis);
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
                    Content.Sink.write(response, true, "ok " + cls, callback);
                    return true;
                case TestApp.FAIL:
                    throw new IllegalStateException("the application failed (on purpose)");
                case TestApp.ASYNC:
                    testApp.recordStart(cls);
                    testApp.later(millis, () -> {
                        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
                        Content.Sink.write(response, true, "async done", callback);
                    });
                    return true;
                case TestApp.LEVEL:
                    TestApp.work(millis);
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
                    Content.Sink.write(response, true, "level " + ContentLevels.level(request) + " of "
                            + ContentLevels.levels(request), callback);
                    return true;
                case TestApp.HEALTH:
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
                    Content.Sink.write(response, true, "healthy " + cls, callback);
                    return true;
                case TestApp.EVENTS:
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/event-stream;charset=utf-8");
                    Content.Sink.write(response, false, "data: open\n\n", Callback.from(
                            () -> testApp.later(millis, () -> Content.Sink.write(response, true, "data: bye\n\n",
                                    callback)), callback::failed));
                    return true;
                case TestApp.ECHO:
                    String body = Content.Source.asString(request, StandardCharsets.UTF_8);
                    response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
                    Content.Sink.write(response, true, body, callback);
                    return true;
                default:
                    return false;
            }
        }
    }
}

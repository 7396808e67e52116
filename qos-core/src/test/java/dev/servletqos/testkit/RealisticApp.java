package dev.servletqos.testkit;

import dev.servletqos.Attributes;
import dev.servletqos.QosEngine;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A small web application of the kind servlet-qos protects, unlike the sample shop, for {@link RealismSuite}: a
 * login, pages whose cost is a back end modelled as a fair semaphore of {@link #BACKEND_SLOTS} slots held
 * {@link #BACKEND_MILLIS} ms each (a database pool: {@link #backendCallsPerSecond()} calls a second however many
 * threads the container has), a gallery page with {@value #ASSETS} small assets, a health probe, a server-sent
 * event stream and a JSON API. Mount each servlet of {@link #servlets()} at its path, {@code asyncSupported = true},
 * at the root context. Thread-safe.
 *
 * <dl>
 *   <dt>{@code GET /login?user=U&tier=T}</dt>
 *   <dd>One back-end call; sets the application's own session cookie {@value #APP_SESSION} and, for
 *       {@code tier=premium}, the engine's signed tier cookie (README step 4).</dd>
 *   <dt>{@code GET /page/N}</dt><dd>One back-end call; HTML.</dd>
 *   <dt>{@code GET /gallery}</dt><dd>HTML naming {@value #ASSETS} assets {@code /asset/I.png}, from a cache (no back-end
 *       call, so that a browser's page under overload costs the back end only its login).</dd>
 *   <dt>{@code GET /asset/*}</dt><dd>A small static file, no back end.</dd>
 *   <dt>{@code GET /health}</dt><dd>{@code ok}, no work.</dd>
 *   <dt>{@code GET /api/quote}</dt><dd>A small JSON answer from a cache, no back end.</dd>
 *   <dt>{@code GET /events}</dt><dd>A server-sent event stream (asynchronous): an event at once, then one a second,
 *       open until the client goes away.</dd>
 * </dl>
 * Every answer carries {@value #CLASS_HEADER}: the service class the adapter gave the request
 * ({@code dev.servletqos.class}, {@code none} without an adapter). The application counts the requests of each of
 * its sessions that execute at once ({@link #maxConcurrent(String)}).
 */
public final class RealisticApp implements AutoCloseable {

    /** Back-end slots (a connection pool). */
    public static final int BACKEND_SLOTS = 5;
    /** How long one back-end call holds its slot, in ms. */
    public static final int BACKEND_MILLIS = 50;
    /** Assets of the gallery page. */
    public static final int ASSETS = 30;
    /** The application's own session cookie (its value: the session id). */
    public static final String APP_SESSION = "APPSESSION";
    /** The response header naming the request's service class. */
    public static final String CLASS_HEADER = "X-Served-Class";

    private final Semaphore backend = new Semaphore(BACKEND_SLOTS, true);
    private final Supplier<QosEngine> engine;
    private final Map<String, AtomicInteger> executing = new ConcurrentHashMap<>();
    private final Map<String, AtomicInteger> maxExecuting = new ConcurrentHashMap<>();
    private final Set<AsyncContext> streams = ConcurrentHashMap.newKeySet();
    private final AtomicLong events = new AtomicLong();
    private final AtomicInteger running = new AtomicInteger();
    private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "realistic-app-events");
        t.setDaemon(true);
        t.setContextClassLoader(RealisticApp.class.getClassLoader());
        return t;
    });

    /**
     * @param engine the adapter's engine where the servlet context does not publish it (the Jetty handler in front
     *               of a context publishes it on the server); may return null (no adapter: no tier cookie issued)
     */
    public RealisticApp(Supplier<QosEngine> engine) {
        this.engine = engine;
        ticker.scheduleWithFixedDelay(this::tick, 1, 1, TimeUnit.SECONDS);
    }

    /** Back-end calls a second at most: the application's capacity. */
    public static double backendCallsPerSecond() {
        return BACKEND_SLOTS * 1000.0 / BACKEND_MILLIS;
    }

    /** The servlets by mapping. */
    public Map<String, HttpServlet> servlets() {
        Map<String, HttpServlet> m = new LinkedHashMap<>();
        m.put("/login", new Servlet(this::login));
        m.put("/page/*", new Servlet(this::page));
        m.put("/gallery", new Servlet(this::gallery));
        m.put("/asset/*", new Servlet((q, r) -> write(r, "image/png", "PNG " + q.getPathInfo())));
        m.put("/health", new Servlet((q, r) -> write(r, "text/plain", "ok")));
        m.put("/api/*", new Servlet((q, r) -> write(r, "application/json", "{\"quote\":42.0}")));
        m.put("/events", new Servlet(this::events));
        return m;
    }

    /** The most requests of this application session that executed at once, so far. */
    public int maxConcurrent(String appSession) {
        AtomicInteger m = maxExecuting.get(appSession);
        return m == null ? 0 : m.get();
    }

    /** Requests in the application's code now (an open event stream is not one: its request thread returned). */
    public int running() {
        return running.get();
    }

    /** Event streams open now. */
    public int openStreams() {
        return streams.size();
    }

    @Override
    public void close() {
        ticker.shutdownNow();
        for (AsyncContext a : streams) {
            try {
                a.complete();
            } catch (RuntimeException ignored) {
                // already completed by the container
            }
        }
    }

    private void login(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        backendCall();
        String user = req.getParameter("user");
        Cookie session = new Cookie(APP_SESSION, UUID.randomUUID().toString());
        session.setPath("/");
        resp.addCookie(session);
        QosEngine e = engine(req);
        if ("premium".equals(req.getParameter("tier")) && e != null && user != null) {
            resp.addHeader("Set-Cookie", e.tierCookies().setCookieHeader("premium", user));
        }
        write(resp, "text/html", "<html><body>welcome " + user + "</body></html>");
    }

    private void page(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        backendCall();
        write(resp, "text/html", "<html><body>page " + req.getPathInfo() + "</body></html>");
    }

    private void gallery(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        StringBuilder b = new StringBuilder("<html><body>");
        for (int i = 0; i < ASSETS; i++) {
            b.append("<img src=\"/asset/").append(i).append(".png\">");
        }
        write(resp, "text/html", b.append("</body></html>").toString());
    }

    private void events(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        resp.setContentType("text/event-stream");
        resp.setHeader("Cache-Control", "no-cache");
        AsyncContext async = req.startAsync();
        async.setTimeout(0);
        async.addListener(new AsyncListener() {
            @Override
            public void onComplete(AsyncEvent event) {
                streams.remove(async);
            }

            @Override
            public void onTimeout(AsyncEvent event) {
                streams.remove(async);
            }

            @Override
            public void onError(AsyncEvent event) {
                streams.remove(async);
            }

            @Override
            public void onStartAsync(AsyncEvent event) {
            }
        });
        // the first event before the ticker sees the stream: a response's output stream takes one writer at a time,
        // and two at once (this thread and the ticker's) made the write throw, which ended a stream now and then
        send(async, "open");
        streams.add(async);
    }

    private void tick() {
        long n = events.incrementAndGet();
        for (AsyncContext a : streams) {
            send(a, "tick " + n);
        }
    }

    private void send(AsyncContext a, String data) {
        try {
            synchronized (a) { // one writer at a time on a stream
                ServletOutputStream out = a.getResponse().getOutputStream();
                out.write(("data: " + data + "\n\n").getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (IOException | RuntimeException gone) {
            streams.remove(a);
            try {
                a.complete();
            } catch (RuntimeException ignored) {
                // completed already
            }
        }
    }

    private QosEngine engine(HttpServletRequest req) {
        Object e = req.getServletContext().getAttribute(Attributes.ENGINE);
        return e instanceof QosEngine q ? q : engine.get();
    }

    private void backendCall() {
        try {
            backend.acquire();
            try {
                Thread.sleep(BACKEND_MILLIS);
            } finally {
                backend.release();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void write(HttpServletResponse resp, String type, String body) throws IOException {
        resp.setContentType(type + ";charset=utf-8");
        resp.getWriter().print(body);
    }

    private static String appSession(HttpServletRequest req) {
        Cookie[] cookies = req.getCookies();
        if (cookies != null) {
            for (Cookie c : cookies) {
                if (APP_SESSION.equals(c.getName())) {
                    return c.getValue();
                }
            }
        }
        return null;
    }

    private interface Handler {
        void handle(HttpServletRequest req, HttpServletResponse resp) throws IOException;
    }

    /** One endpoint: labels the answer with the class and counts the session's requests executing at once. */
    private final class Servlet extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient Handler handler;

        Servlet(Handler handler) {
            this.handler = handler;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Object cls = req.getAttribute(Attributes.CLASS);
            resp.setHeader(CLASS_HEADER, cls == null ? "none" : cls.toString());
            String session = appSession(req);
            running.incrementAndGet();
            try {
                if (session == null) {
                    handler.handle(req, resp);
                    return;
                }
                int now = executing.computeIfAbsent(session, s -> new AtomicInteger()).incrementAndGet();
                maxExecuting.computeIfAbsent(session, s -> new AtomicInteger()).accumulateAndGet(now, Math::max);
                try {
                    handler.handle(req, resp);
                } finally {
                    executing.get(session).decrementAndGet();
                }
            } finally {
                running.decrementAndGet();
            }
        }
    }
}

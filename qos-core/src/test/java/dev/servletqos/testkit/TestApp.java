package dev.servletqos.testkit;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The application behind the adapter under test, as a contract every {@link AdapterBehaviourSuite} subclass
 * mounts on its container, at the root of the server (context path {@code ""}). Servlet containers mount
 * {@link TestServlets}; a container without servlets (Jetty core {@code Handler}s) implements the same
 * endpoints itself, using this class for the started order and the delayed completions.
 *
 * <p>The endpoints, all answering {@code 200} with {@code Content-Type: text/plain} unless stated:
 * <dl>
 *   <dt>{@value #WORK} {@code ?ms=N} (GET)</dt>
 *   <dd>First {@link #recordStart records} the request's service class, read from the request attribute
 *       {@value #CLASS_ATTRIBUTE} that the adapter set (the string {@code "null"} if it is missing), then works N
 *       milliseconds (0 when {@code ms} is absent) by sleeping on the request's thread, then answers the body
 *       {@code "ok " + class}, for example {@code ok premium}.</dd>
 *   <dt>{@value #FAIL} (GET)</dt>
 *   <dd>Throws an unchecked exception out of the application; the container answers 500 as it usually does.</dd>
 *   <dt>{@value #ASYNC} {@code ?ms=N} (GET)</dt>
 *   <dd>Records the class like {@value #WORK}, then goes asynchronous (the request's thread returns to the
 *       container without completing the response) and completes N ms later on one of this class's own
 *       threads ({@link #later}) with the body {@code async done}.</dd>
 *   <dt>{@value #ECHO} (POST)</dt>
 *   <dd>Reads the whole request body and answers it unchanged. Records nothing.</dd>
 *   <dt>{@value #LEVEL} {@code ?ms=N} (GET)</dt>
 *   <dd>Works N ms like {@value #WORK}, then answers {@code "level " + level + " of " + levels} from the request
 *       attributes {@value #LEVEL_ATTRIBUTE} and {@value #LEVELS_ATTRIBUTE} the adapter set, read through the
 *       adapter's public API ({@code ContentLevels}); for example {@code level 1 of 2}. Records nothing.</dd>
 *   <dt>{@value #HEALTH} (GET)</dt>
 *   <dd>A load balancer's probe: answers {@code "healthy " + class} at once ({@code healthy null} for a request
 *       an exempt rule let bypass QoS, which is in no class). Records nothing.</dd>
 *   <dt>{@value #EVENTS} {@code ?ms=N} (GET)</dt>
 *   <dd>A server-sent events stream: goes asynchronous, answers {@code Content-Type: text/event-stream} with the
 *       event {@code data: open} flushed at once, stays open N ms, then sends {@code data: bye} and completes on
 *       one of this class's threads. Records nothing.</dd>
 *   <dt>{@value #IMAGES} and {@value #DEGRADED} (GET, every path under them)</dt>
 *   <dd>Static content: answers {@code "file " + path}, the decoded path within the application the request was served
 *       from ({@code /img/pic.png}, or {@code /degraded/img/pic.png} when the adapter served it from the degraded
 *       tree). Servlets are mapped to {@code /img/*} and {@code /degraded/*}. Records nothing.</dd>
 * </dl>
 * Every endpoint must support asynchronous processing (servlets: {@code asyncSupported = true}), so that an
 * adapter that is a filter can suspend requests in front of it.
 *
 * <p>The <em>attribute trap</em>: on a request with the header {@value #TRAP_HEADER}, setting the request
 * attribute that the header names throws an unchecked exception out of {@code setAttribute}, as an application's
 * failing {@code ServletRequestAttributeListener} does. Servlet containers register
 * {@link TestServlets.AttributeTrap} as a listener of the context (Tomcat logs and swallows a listener's
 * exception, Jetty lets it out); a container without servlets wraps the request in front of the adapter.
 * Thread-safe.
 */
public final class TestApp implements AutoCloseable {

    public static final String WORK = "/work";
    public static final String FAIL = "/fail";
    public static final String ASYNC = "/async";
    public static final String ECHO = "/echo";
    public static final String LEVEL = "/level";
    /** A probe's endpoint, and a server-sent events stream's. */
    public static final String HEALTH = "/health";
    public static final String EVENTS = "/events";
    /** The full tree of the static content, and the tree of its lighter level ({@code content.1.prefix}). */
    public static final String IMAGES = "/img";
    public static final String DEGRADED = "/degraded";
    /** The request attributes with the content level and the number of levels ({@code dev.servletqos.Attributes}). */
    public static final String LEVEL_ATTRIBUTE = "dev.servletqos.level";
    public static final String LEVELS_ATTRIBUTE = "dev.servletqos.levels";
    /** Names the request attribute whose setting throws (see the attribute trap above). */
    public static final String TRAP_HEADER = "X-Trap-Attribute";
    /** The request attribute with the service class (the value of {@code Responses.CLASS_ATTRIBUTE}). */
    public static final String CLASS_ATTRIBUTE = "dev.servletqos.class";

    private final List<String> started = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService appThreads = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "test-app-async");
        t.setDaemon(true);
        // Not the web application's loader (inherited from the request thread that first schedules), so that
        // containers do not report these threads as leaked by the application.
        t.setContextClassLoader(TestApp.class.getClassLoader());
        return t;
    });

    /** Records that the application started a request of this class (a null class is recorded as "null"). */
    public void recordStart(Object serviceClass) {
        started.add(String.valueOf(serviceClass));
    }

    /** The classes of the requests started by {@value #WORK} and {@value #ASYNC}, in start order; live view. */
    public List<String> started() {
        return Collections.unmodifiableList(started);
    }

    /** Runs a task on the application's own threads after {@code ms} milliseconds (completing async requests). */
    public void later(long ms, Runnable task) {
        appThreads.schedule(task, ms, TimeUnit.MILLISECONDS);
    }

    /** Parses the {@code ms} query parameter; absent means 0. */
    public static long millis(String ms) {
        return ms == null ? 0 : Long.parseLong(ms);
    }

    /** Simulated work on the request's thread. */
    public static void work(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the application's threads. */
    @Override
    public void close() {
        appThreads.shutdownNow();
    }
}

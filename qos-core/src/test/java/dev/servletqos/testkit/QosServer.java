package dev.servletqos.testkit;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import java.util.List;

/**
 * A running container with one servlet-qos adapter in front of the {@link TestApp test application}, listening on
 * 127.0.0.1: what {@link AdapterBehaviourSuite} needs to drive and observe an adapter. One instance per test;
 * the suite closes it after the test, also when the test failed.
 */
@SuppressWarnings("try") // close() may throw anything the container's stop throws
public interface QosServer extends AutoCloseable {

    /** The HTTP/1.1 port the server listens on, on 127.0.0.1. */
    int port();

    /** The adapter's engine state now (never null once started). */
    EngineSnapshot snapshot();

    /** The running engine (its settings, control status). */
    QosEngine engine();

    /**
     * Threads of the pool that runs requests which are busy right now. Threads the container keeps busy for
     * good (Jetty's acceptors and selectors) are not counted: with no request in the server this is 0. The
     * suite reads it while many requests are parked to prove that a waiting request holds no thread. Tomcat:
     * the connector executor's {@code getActiveCount()}; Jetty: the {@code QueuedThreadPool}'s
     * {@code getBusyThreads() - getLeasedThreads()} (with reserved threads off).
     */
    int busyWorkerThreads();

    /**
     * The service class of every request the application started, in the order it started them (see
     * {@link TestApp#started()}); a live, thread-safe view.
     */
    List<String> startedOrder();

    /**
     * Stops the adapter alone, as an undeploy or a reconfiguration would, while the server and its connector keep
     * running: the valve's or the filter's context ({@code Context.stop()}, {@code ServletContextHandler.stop()}),
     * or the Jetty handler. The engine that was running stays readable through the reference the caller kept.
     */
    void stopAdapter() throws Exception;

    /** Stops the server and everything it started (threads, the test application's scheduler). */
    @Override
    void close() throws Exception;
}

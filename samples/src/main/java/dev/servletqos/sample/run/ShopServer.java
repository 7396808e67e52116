package dev.servletqos.sample.run;

import dev.servletqos.QosEngine;

/** A running shop on an embedded container. */
public interface ShopServer extends AutoCloseable {

    /** The port it listens on (127.0.0.1). */
    int port();

    /** The QoS engine, or null with QoS off. */
    QosEngine engine();

    /** Pages the application has served since start (all statuses). */
    long pagesServed();

    /** One line: container, QoS on or off, threads. */
    String describe();

    /** Stops the container and frees its resources. */
    @Override
    void close();
}

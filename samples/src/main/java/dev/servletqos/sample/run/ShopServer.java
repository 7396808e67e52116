package dev.servletqos.sample.run;

import dev.servletqos.QosEngine;
import dev.servletqos.sample.Backend;

/** A running shop on an embedded container. */
public interface ShopServer extends AutoCloseable {

    /** The port it listens on (127.0.0.1). */
    int port();

    /** The QoS engine, or null with QoS off. */
    QosEngine engine();

    /** The shop's back-end speed knob: a factor on its back-end waits, changeable while it serves. */
    Backend backend();

    /** Pages the application has served since start (all statuses). */
    long pagesServed();

    /** One line: container, QoS on or off, threads. */
    String describe();

    /** Stops the container and frees its resources. */
    @Override
    void close();
}

package dev.servletqos.boot;

import dev.servletqos.jetty.QosHandler;
import dev.servletqos.runtime.QosRuntime;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.eclipse.jetty.server.Server;
import org.springframework.boot.jetty.JettyServerCustomizer;

/**
 * Puts {@link QosHandler} over the starter's runtime in front of everything Boot's Jetty server handles (the web
 * application and Boot's own wrappers, such as compression): a request that waits is held before the servlet
 * layer, holding no thread, and reaches the application as an ordinary REQUEST dispatch.
 *
 * <p>Customizes one server, the first: a second one (a separate management port) is left without QoS.
 * Thread-safe.
 */
final class HandlerCustomizer implements JettyServerCustomizer {

    private static final Log LOG = LogFactory.getLog(HandlerCustomizer.class);

    private final QosRuntime runtime;
    private final AtomicBoolean used = new AtomicBoolean();

    HandlerCustomizer(QosRuntime runtime) {
        this.runtime = runtime;
    }

    @Override
    public void customize(Server server) {
        if (!used.compareAndSet(false, true)) {
            LOG.info("servlet-qos: a second Jetty server (the management port) is not under QoS");
            return;
        }
        server.setHandler(new QosHandler(runtime, server.getHandler()));
    }
}

package dev.servletqos.sample.run;

import dev.servletqos.QosEngine;
import dev.servletqos.jetty.QosHandler;
import dev.servletqos.jetty.QosStatusHandler;
import dev.servletqos.sample.Backend;
import dev.servletqos.sample.Shop;
import java.io.IOException;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The shop on embedded Jetty 12 (EE 11 servlets), on 127.0.0.1. QoS on: {@link QosHandler} inserted in the
 * servlet context (in front of its session and servlet handlers; it publishes its engine on the context). The
 * thread pool has max-executing threads for requests (plus {@value ShopConfig#QOS_THREAD_HEADROOM} headroom
 * with QoS on, as on Tomcat) and two more for the connector's acceptor and selector; QoS off: no handler and
 * exactly max-executing threads for requests. The QoS status page is {@link QosStatusHandler} at
 * {@value Shop#STATUS_PATH}, in front of the context (QoS never queues it).
 */
public final class JettyShop implements ShopServer {

    /** Threads the connector leases from the pool: one acceptor, one selector. */
    private static final int CONNECTOR_THREADS = 2;

    private final Server server;
    private final ServerConnector connector;
    private final ServletContextHandler context;
    private final QosHandler qos;
    private final ShopConfig config;

    private JettyShop(ShopConfig config) throws Exception {
        this.config = config;
        int threads = config.workerThreads() + CONNECTOR_THREADS;
        QueuedThreadPool pool = new QueuedThreadPool(threads, threads);
        pool.setName("shop");
        pool.setReservedThreads(0);
        server = new Server(pool);
        connector = new ServerConnector(server, 1, 1);
        connector.setHost("127.0.0.1");
        connector.setPort(config.port());
        connector.setAcceptQueueSize(100);
        server.addConnector(connector);
        context = new ServletContextHandler("/", ServletContextHandler.SESSIONS);
        var tierCookies = Shop.tierCookies(config.policy());
        context.addServletContainerInitializer((classes, sc) -> Shop.register(sc, config.costs(), tierCookies));
        if (config.qos()) {
            qos = new QosHandler(config.policy());
            context.insertHandler(qos);
        } else {
            qos = null;
        }
        // the status page in front of the context, so that QoS never queues or refuses it
        QosHandler running = qos;
        QosStatusHandler status = new QosStatusHandler(() -> running == null ? null : running.getEngine());
        status.setPath(Shop.STATUS_PATH);
        server.setHandler(new Handler.Sequence(status, context));
        try {
            server.start();
        } catch (Exception e) {
            server.stop();
            throw e;
        }
    }

    /**
     * Starts the shop.
     *
     * @throws IOException if the port cannot be bound
     */
    public static JettyShop start(ShopConfig config) throws IOException {
        try {
            return new JettyShop(config);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IOException("Jetty did not start: " + e.getMessage(), e);
        }
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public QosEngine engine() {
        return qos == null ? null : qos.getEngine();
    }

    @Override
    public Backend backend() {
        return Shop.backend(context.getServletContext());
    }

    @Override
    public long pagesServed() {
        return Shop.pagesServed(context.getServletContext());
    }

    @Override
    public String describe() {
        return "Jetty, QoS " + (config.qos() ? "on (QosHandler)" : "off") + ", thread pool "
                + config.workerThreads() + " for requests + " + CONNECTOR_THREADS + " for the connector";
    }

    @Override
    public void close() {
        try {
            server.stop();
        } catch (Exception e) {
            throw new IllegalStateException("Jetty did not stop cleanly", e);
        }
    }
}

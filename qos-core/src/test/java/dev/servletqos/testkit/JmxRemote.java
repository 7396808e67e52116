package dev.servletqos.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.NoSuchObjectException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.Map;
import javax.management.MBeanServer;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;

/**
 * A real JMX remote connection for tests: an RMI registry and an RMI connector server on 127.0.0.1, a free port,
 * in front of an MBean server, and a client connected to it with {@link JMXConnectorFactory} as jconsole would be
 * ({@code service:jmx:rmi:///jndi/rmi://127.0.0.1:PORT/jmxrmi}). Whatever a test reads or writes through
 * {@link #connection()} is serialised over RMI: the client sees open types and JDK exceptions only.
 */
public final class JmxRemote implements AutoCloseable {

    private final Registry registry;
    private final JMXConnectorServer connectorServer;
    private final JMXConnector connector;
    private final JMXServiceURL url;

    private JmxRemote(Registry registry, JMXConnectorServer connectorServer, JMXConnector connector,
                      JMXServiceURL url) {
        this.registry = registry;
        this.connectorServer = connectorServer;
        this.connector = connector;
        this.url = url;
    }

    /** Starts the registry and the connector server in front of {@code server}, and connects to it. */
    public static JmxRemote start(MBeanServer server) throws IOException {
        // the stubs the registry hands out must name the loopback address, not whatever the host name resolves to
        System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Registry registry = LocateRegistry.createRegistry(port);
        JMXConnectorServer cs = null;
        try {
            JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
            cs = JMXConnectorServerFactory.newJMXConnectorServer(url, Map.of(), server);
            cs.start();
            JMXConnector c = JMXConnectorFactory.connect(url, Map.of());
            return new JmxRemote(registry, cs, c, url);
        } catch (IOException | RuntimeException e) {
            if (cs != null) {
                cs.stop();
            }
            UnicastRemoteObject.unexportObject(registry, true);
            throw e;
        }
    }

    /** The client's connection, over RMI. */
    public MBeanServerConnection connection() throws IOException {
        return connector.getMBeanServerConnection();
    }

    /** The address a JMX client connects to. */
    public JMXServiceURL url() {
        return url;
    }

    @Override
    public void close() throws IOException {
        try {
            connector.close();
        } finally {
            try {
                connectorServer.stop();
            } finally {
                try {
                    UnicastRemoteObject.unexportObject(registry, true);
                } catch (NoSuchObjectException gone) {
                    // already unexported
                }
            }
        }
    }
}

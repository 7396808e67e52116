package dev.servletqos.sample.run;

import dev.servletqos.QosEngine;
import dev.servletqos.sample.Backend;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.Shop;
import dev.servletqos.tomcat.QosValve;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.core.StandardContext;
import org.apache.catalina.startup.Tomcat;

/**
 * The shop on embedded Tomcat, on 127.0.0.1. QoS on: {@link QosValve} on the context's pipeline and
 * {@code maxThreads} = max-executing + {@value ShopConfig#QOS_THREAD_HEADROOM}. QoS off: no valve and
 * {@code maxThreads} = max-executing, {@code acceptCount} 100 (Tomcat's default), the stock setup the
 * comparison is fair against. Sessions use Tomcat's standard manager ({@code JSESSIONID}). The QoS status
 * page is the servlet at {@value Shop#STATUS_PATH}, behind the valve (a request like any other).
 */
public final class TomcatShop implements ShopServer {

    private final Tomcat tomcat;
    private final Connector connector;
    private final Context context;
    private final QosValve valve;
    private final Path baseDir;
    private final ShopConfig config;

    private TomcatShop(ShopConfig config) throws IOException, LifecycleException {
        if (config.qos() && config.policyFile() == null && !config.policy().equals(SamplePolicy.load(null))) {
            // the valve reads a file, as from server.xml: a policy built in code would be silently replaced
            throw new IllegalArgumentException("the Tomcat shop reads its policy from a file: give the file of"
                    + " a policy that is not the bundled default");
        }
        this.config = config;
        this.baseDir = Files.createTempDirectory("qos-sample-tomcat");
        tomcat = new Tomcat();
        tomcat.setBaseDir(baseDir.toString());
        connector = new Connector();
        connector.setPort(config.port());
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", Integer.toString(config.workerThreads()));
        connector.setProperty("minSpareThreads", Integer.toString(config.workerThreads()));
        connector.setProperty("acceptCount", "100");
        tomcat.setConnector(connector);
        context = tomcat.addContext("", null);
        if (context instanceof StandardContext sc) {
            // the shop leaks nothing; these checks only print warnings without --add-opens
            sc.setClearReferencesThreadLocals(false);
            sc.setClearReferencesRmiTargets(false);
        }
        var tierCookies = Shop.tierCookies(config.policy());
        context.addServletContainerInitializer((classes, sc) -> {
            Shop.register(sc, config.costs(), tierCookies);
            Shop.registerStatusPage(sc);
        }, null);
        if (config.qos()) {
            valve = new QosValve();
            Path file = config.policyFile();
            if (file == null) {
                file = SamplePolicy.write(SamplePolicy.RESOURCE, baseDir);
            }
            valve.setPolicy(file.toAbsolutePath().toString());
            context.getPipeline().addValve(valve);
        } else {
            valve = null;
        }
        tomcat.start();
        if (connector.getState() != LifecycleState.STARTED || connector.getLocalPort() <= 0) {
            tomcat.stop();
            tomcat.destroy();
            throw new IOException("Tomcat could not listen on 127.0.0.1:" + config.port() + " (port in use?)");
        }
    }

    /**
     * Starts the shop.
     *
     * @throws IOException if the port cannot be bound or the base directory not created
     * @throws LifecycleException if Tomcat fails to start (a bad policy names the key and value)
     */
    public static TomcatShop start(ShopConfig config) throws IOException, LifecycleException {
        return new TomcatShop(config);
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    @Override
    public QosEngine engine() {
        return valve == null ? null : valve.getEngine();
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
        return "Tomcat, QoS " + (config.qos() ? "on (QosValve)" : "off") + ", maxThreads " + config.workerThreads()
                + ", acceptCount 100";
    }

    @Override
    public void close() {
        try {
            tomcat.stop();
            tomcat.destroy();
        } catch (LifecycleException e) {
            throw new IllegalStateException("Tomcat did not stop cleanly", e);
        } finally {
            deleteTree(baseDir);
        }
    }

    static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }
}

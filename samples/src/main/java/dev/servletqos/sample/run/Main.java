package dev.servletqos.sample.run;

import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.demo.Demo;
import dev.servletqos.sample.demo.Identify;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * {@code java -jar qos-sample.jar [--container tomcat|jetty] [--port 8080] [--qos on|off] [--policy FILE]
 * [--demo]}: serves the sample shop on 127.0.0.1 until stopped, or runs the overload demo. Exit status 2 for
 * bad options or a bad policy, 1 when the server cannot start.
 */
public final class Main {

    /** Strong references, so that the log levels set for the demo stay set. */
    private static final Logger[] QUIET = {Logger.getLogger("org.apache"), Logger.getLogger("org.eclipse.jetty")};
    /**
     * Warns, with a stack trace, about every request still running when a context stops: with QoS off the
     * demo stops Tomcat while its queue still holds requests whose clients gave up long ago.
     */
    private static final Logger STOP_WARNINGS = Logger.getLogger("org.apache.catalina.loader.WebappClassLoaderBase");

    private Main() {
    }

    public static void main(String[] args) throws InterruptedException {
        Options o;
        QosPolicy policy;
        QosPolicy compared = null;
        Path comparedFile = null;
        String comparedName = null;
        try {
            o = Options.parse(args);
            if (o == null) {
                System.out.print(Options.USAGE);
                return;
            }
            policy = SamplePolicy.load(o.policy());
            if (o.compare() != null) {
                boolean tuned = o.compare().equals(Options.TUNED);
                comparedFile = tuned ? SamplePolicy.writeTuned(o.out()) : Path.of(o.compare());
                comparedName = tuned ? Options.TUNED : label(comparedFile);
                compared = SamplePolicy.load(comparedFile);
            }
        } catch (PolicyException e) {
            System.err.println("bad policy: " + e.getMessage());
            System.exit(2);
            return;
        } catch (IOException e) {
            System.err.println("cannot write the hand-tuned policy into " + e.getMessage());
            System.exit(1);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.print(Options.USAGE);
            System.exit(2);
            return;
        }
        ShopConfig config = new ShopConfig(o.qos(), o.port(), policy, o.policy(), Costs.scaled(o.scale()));
        try {
            if (o.identify() > 0) {
                for (Logger l : QUIET) {
                    l.setLevel(Level.WARNING);
                }
                double capacity = o.capacity() > 0 ? o.capacity() : Demo.nominalCapacity(config);
                Identify.run(o.container(), config, capacity, o.identify(), o.identifyLoad(), System.out);
                return;
            }
            if (o.demo()) {
                for (Logger l : QUIET) {
                    l.setLevel(Level.WARNING);
                }
                STOP_WARNINGS.setLevel(Level.SEVERE);
                ShopConfig shop = config.withPort(o.portGiven() ? o.port() : 0);
                Demo.Comparison comparison = compared == null ? null : new Demo.Comparison(comparedName,
                        new ShopConfig(true, shop.port(), compared, comparedFile, shop.costs()));
                boolean runOn = !o.qosGiven() || o.qos();
                Demo.Comparison noDegradation = null;
                if (runOn && o.noDegradationRun()
                        && policy.control().degradation().law() != ControlPolicy.DegradationLaw.NONE) {
                    Path file = SamplePolicy.writeWithoutDegradation(o.policy(), o.out());
                    noDegradation = new Demo.Comparison(Demo.NO_DEGRADATION,
                            new ShopConfig(true, shop.port(), SamplePolicy.load(file), file, shop.costs()));
                }
                Demo.run(new Demo.Settings(o.container(), shop, o.profile(), o.capacity(), runOn,
                        !o.qosGiven() || !o.qos(), o.out(), Demo.DEFAULT_WARMUP, comparison, noDegradation),
                        System.out);
                return;
            }
            serve(o, config);
        } catch (IOException e) {
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }

    /** The compared run's name: its file's, never "on" or "off" (those name the other runs). */
    static String label(Path file) {
        String name = file.getFileName().toString();
        return name.equals("on") || name.equals("off") ? "compared " + name : name;
    }

    private static void serve(Options o, ShopConfig config) throws IOException, InterruptedException {
        ShopServer server = Containers.start(o.container(), config);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            stopped.countDown();
        }, "qos-sample-shutdown"));
        String base = "http://127.0.0.1:" + server.port();
        System.out.println("servlet-qos sample shop: " + server.describe());
        System.out.println("  " + base + "/login?tier=premium   " + base + "/browse   " + base + "/item?id=7");
        System.out.println("  " + base + "/qos   " + base + "/metrics   (Ctrl-C stops)");
        System.out.println("  back end twice as slow: curl -X POST '" + base + "/admin/backend?factor=2'");
        stopped.await();
    }
}

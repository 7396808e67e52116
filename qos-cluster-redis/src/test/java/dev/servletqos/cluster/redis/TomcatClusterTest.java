package dev.servletqos.cluster.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.QosEngine;
import dev.servletqos.tomcat.QosValve;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three embedded Tomcats, each with the {@link QosValve} reading a policy file with {@code cluster.redis}, sharing one
 * real Redis, over real HTTP from one client address (127.0.0.1): the valves find qos-cluster-redis on the class
 * path, the cluster lists three nodes, a class's cluster session rate holds over the three, and once one Tomcat
 * stops the others list two.
 */
class TomcatClusterTest {

    @TempDir
    Path dir;

    /** A new session per request (no cookie kept), 30 a second over the cluster for the class. */
    private static String policy(String redis, int node) {
        return "classes = basic\n"
                + "max-executing = 50\n"
                + "class.basic.cluster-session-rate = 30\n"
                + "cluster.redis = " + redis + "\n"
                + "cluster.node-id = tomcat-" + node + "\n"
                + "cluster.period = 200ms\n";
    }

    @Test
    void threeTomcatsShareTheClassCapAndListEachOther() throws Exception {
        try (TestRedis redis = new TestRedis()) {
            List<Tomcat> tomcats = new ArrayList<>();
            List<QosValve> valves = new ArrayList<>();
            try {
                for (int i = 1; i <= 3; i++) {
                    Path policy = dir.resolve("qos-" + i + ".properties");
                    Files.writeString(policy, policy(redis.uri(), i));
                    QosValve valve = new QosValve();
                    valve.setPolicy(policy.toString());
                    valves.add(valve);
                    tomcats.add(tomcat(dir.resolve("tomcat-" + i), valve));
                }
                awaitNodes(valves, 3);
                HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
                // 100 new sessions a second round-robin over the three for 4 s; the first second fills the buckets
                int ok = 0;
                int refused = 0;
                long start = System.nanoTime();
                long counted = start + 1_000_000_000L;
                for (int i = 0; i < 400; i++) {
                    long due = start + i * 10_000_000L;
                    while (System.nanoTime() < due) {
                        Thread.onSpinWait(); // pacing the load
                    }
                    int port = port(tomcats.get(i % 3));
                    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port
                            + "/")).header("Accept", "text/html").build(), HttpResponse.BodyHandlers.ofString());
                    assertTrue(r.statusCode() == 200 || r.statusCode() == 503, "served or refused, never a failure: "
                            + r.statusCode());
                    if (System.nanoTime() >= counted) {
                        ok += r.statusCode() == 200 ? 1 : 0;
                        refused += r.statusCode() == 503 ? 1 : 0;
                    }
                }
                double seconds = (System.nanoTime() - counted) / 1e9;
                double rate = ok / seconds;
                System.out.printf("three Tomcats: %d served, %d refused in %.1f s: %.1f new sessions/s (cap 30)%n",
                        ok, refused, seconds, rate);
                assertTrue(rate <= 30 * 1.1 + 3 * 30 * 0.2 / seconds, "the cap of 30/s holds over the three Tomcats "
                        + "(within 10 %, and one period's leases): " + rate);
                assertTrue(rate >= 30 * 0.8, "and the cluster admits what the cap allows: " + rate);
                tomcats.get(2).stop();
                tomcats.get(2).destroy();
                tomcats.remove(2);
                valves.remove(2);
                awaitNodes(valves, 2);
            } finally {
                for (Tomcat t : tomcats) {
                    t.stop();
                    t.destroy();
                }
            }
        }
    }

    private static int port(Tomcat t) {
        return t.getConnector().getLocalPort();
    }

    /** Waits (at most 10 s) until every valve's engine lists {@code n} nodes. */
    private static void awaitNodes(List<QosValve> valves, int n) {
        long t0 = System.nanoTime();
        while (!valves.stream().allMatch(v -> {
            QosEngine e = v.getRuntime().engine();
            return e.cluster() != null && !e.cluster().status().localOnly() && e.cluster().status().nodes() == n;
        })) {
            if (System.nanoTime() - t0 > Duration.ofSeconds(10).toNanos()) {
                throw new AssertionError("the Tomcats did not list " + n + " nodes within 10 s: " + valves.stream()
                        .map(v -> String.valueOf(v.getRuntime().engine().cluster().status())).toList());
            }
            Thread.onSpinWait();
        }
    }

    private static Tomcat tomcat(Path base, QosValve valve) throws LifecycleException {
        Tomcat tomcat = new Tomcat();
        tomcat.setBaseDir(base.toString());
        tomcat.setHostname("127.0.0.1");
        Connector connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", "60");
        tomcat.setConnector(connector);
        Context context = tomcat.addContext("", null);
        Tomcat.addServlet(context, "page", new HttpServlet() {
            @Override
            protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
                resp.setContentType("text/plain");
                resp.getWriter().write("ok");
            }
        });
        context.addServletMappingDecoded("/", "page");
        context.getPipeline().addValve(valve);
        tomcat.start();
        return tomcat;
    }
}

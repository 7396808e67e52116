package dev.servletqos.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.Settings;
import dev.servletqos.control.ClassSample;
import dev.servletqos.control.Sample;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The control loop closed over real HTTP on a real container: two classes under a relative delay target, load
 * from closed-loop clients, the engine's controller running on the container's scheduler. Subclasses say how
 * to start their adapter, as for {@link AdapterBehaviourSuite}.
 */
public abstract class ControlLoopSuite {

    /**
     * 16 permits split 8/8 under fixed capacity; basic should wait 4 times as long as premium. Premium's new sessions
     * are not limited ({@code session-rate = 0}): the clients' {@code CookieManager} sends the admission cookie back in
     * the RFC 2965 form ({@code $Version="1", QOSSESSION="..."}), which the engine does not take, so every request is a
     * new session, and the highest class's default session rate (50/s, issue 11) would refuse most of premium's.
     */
    protected static final String POLICY = AdapterBehaviourSuite.CLASSES + """
            scheduling = fixed-capacity
            max-executing = 16
            class.premium.budget = 8
            class.basic.budget = 8
            class.premium.delay-target = 100ms
            class.basic.delay-target = 400ms
            class.premium.max-wait = 20s
            class.basic.max-wait = 20s
            class.premium.max-queue = 1000
            class.basic.max-queue = 1000
            control.mode = relative
            control.period = 250ms
            class.premium.session-rate = 0
            """;

    private static final int CLIENTS_PER_CLASS = 20;
    private static final int WORK_MILLIS = 50;

    @TempDir
    protected Path dir;

    /** Starts the adapter under test with this policy on a fresh container. */
    protected abstract QosServer start(Path dir, String policyText, int maxThreads) throws Exception;

    @Test
    protected void relativeControlMovesTheBudgetsTowardTheDelayRatio() throws Exception {
        QosServer server = start(dir, POLICY, 2 * CLIENTS_PER_CLASS + 20);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong failures = new AtomicLong();
        ExecutorService clients = Executors.newFixedThreadPool(2 * CLIENTS_PER_CLASS);
        try {
            for (int i = 0; i < 2 * CLIENTS_PER_CLASS; i++) {
                boolean premium = i % 2 == 0;
                clients.execute(() -> load(server.port(), premium, stop, failures));
            }
            // equal budgets, equal populations: equal delays at first; premium must get more permits
            long start = server.engine().controlStatus().periods();
            AdapterBehaviourSuite.await("premium's budget above basic's", Duration.ofSeconds(30), () -> {
                EngineSnapshot s = server.snapshot();
                return s.get("premium").budget() > s.get("basic").budget();
            });
            long periods = server.engine().controlStatus().periods() - start;
            assertEquals(Settings.Source.CONTROLLER, server.snapshot().settings().source());
            assertTrue(periods <= 10, "the budgets moved the right way within a few periods: " + periods);

            // then, over the next few seconds of load, the measured ratio approaches the target of 4
            AdapterBehaviourSuite.await("settling", Duration.ofSeconds(30),
                    () -> server.engine().controlStatus().periods() - start >= periods + 8);
            EngineSnapshot from = server.snapshot();
            AdapterBehaviourSuite.await("400 basic requests served", Duration.ofSeconds(60),
                    () -> server.snapshot().get("basic").grants() - from.get("basic").grants() >= 400);
            Sample window = Sample.between(from, server.snapshot(), Double.NaN);
            ClassSample premium = window.get("premium");
            ClassSample basic = window.get("basic");
            double ratio = basic.meanWait() / premium.meanWait();
            System.out.printf(java.util.Locale.ROOT, "%s: budgets moved after %d periods; then premium waited %.0f ms,"
                            + " basic %.0f ms: ratio %.2f (target 4), budgets %d/%d%n", getClass().getSimpleName(),
                    periods, premium.meanWait() * 1e3, basic.meanWait() * 1e3, ratio, premium.budget(),
                    basic.budget());
            assertTrue(ratio > 2.5 && ratio < 6.5, "the delay ratio approaches 4 from 1: " + ratio);
            assertEquals(0, failures.get(), "every request was served");
        } finally {
            stop.set(true);
            clients.shutdown();
            assertTrue(clients.awaitTermination(30, TimeUnit.SECONDS));
            AdapterBehaviourSuite.await("executing and queued back to zero", Duration.ofSeconds(30), () -> {
                EngineSnapshot s = server.snapshot();
                return s.executing() == 0 && s.queued() == 0;
            });
            for (ClassStats c : server.snapshot().classes()) {
                assertTrue(c.reconciles(), c.toString());
            }
            server.close();
        }
    }

    /** One closed-loop client: a request, its answer, the next request; its own cookies (one session). */
    private static void load(int port, boolean premium, AtomicBoolean stop, AtomicLong failures) {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .cookieHandler(new CookieManager()).connectTimeout(Duration.ofSeconds(10)).build();
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/work?ms="
                + WORK_MILLIS)).timeout(Duration.ofSeconds(30)).setHeader("Accept", "text/html"); // a browser
        if (premium) {
            b.header("X-Tier", "premium");
        }
        HttpRequest request = b.build();
        while (!stop.get()) {
            try {
                int status = client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode();
                if (status != 200) {
                    failures.incrementAndGet();
                }
            } catch (java.io.IOException e) {
                failures.incrementAndGet();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}

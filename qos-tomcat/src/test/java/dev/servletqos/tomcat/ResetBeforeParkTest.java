package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.TestApp;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.startup.Tomcat;
import org.apache.catalina.valves.ValveBase;
import org.eclipse.jetty.http2.api.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An HTTP/2 client resets the stream of a request while the thread that parks it has not yet returned: the request
 * is cancelled, its connection goes on, and the next requests, on any connection, are served. On Tomcat 11.0.24 that
 * takes the adapter completing the parked request when told of the reset: Tomcat itself leaves it asynchronous, fails
 * the connection and hands the request's objects, never recycled, to the next stream, which is answered 500
 * ({@link TomcatResetBeforeAsyncTest} shows that without servlet-qos). Here the reset is made to arrive at that
 * moment: a valve in front of the adapter holds the request, the client resets its stream, and the valve lets the
 * request on once Tomcat has seen the reset.
 */
class ResetBeforeParkTest {

    private static final String POLICY = """
            classes = premium, basic
            default-class = basic
            max-executing = 1
            class.premium.max-wait = 10s
            class.basic.max-wait = 10s
            """;
    private static final int FOLLOWING = 10;

    @TempDir
    Path dir;

    private EmbeddedTomcat server;
    /** Released by the test: the request to {@value #HOLD} runs, holding the only permit, until then. */
    private final CountDownLatch release = new CountDownLatch(1);
    private static final String HOLD = "/hold";
    /** Counted down when the request to reset has reached the valve in front of the adapter. */
    private final CountDownLatch held = new CountDownLatch(1);

    @AfterEach
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void withTheValve() throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, POLICY);
        server = new EmbeddedTomcat(dir, 16, true, ctx -> {
            holdServlet(ctx);
            ctx.getPipeline().addValve(new HoldUntilReset(held));
            QosValve valve = new QosValve();
            valve.setPolicy(file.toString());
            ctx.getPipeline().addValve(valve);
        });
        resetWhileBeingParked();
    }

    @Test
    void withTheFilter() throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, POLICY);
        server = new EmbeddedTomcat(dir, 16, true, ctx -> {
            holdServlet(ctx);
            ctx.getPipeline().addValve(new HoldUntilReset(held));
            EmbeddedTomcat.addQosFilter(ctx, Map.of("policy", file.toString()));
        });
        resetWhileBeingParked();
    }

    private void holdServlet(Context ctx) {
        Tomcat.addServlet(ctx, "hold", new Hold(release)).setAsyncSupported(true);
        ctx.addServletMappingDecoded(HOLD, "hold");
    }

    private void resetWhileBeingParked() throws Exception {
        try (H2cProbe probe = new H2cProbe(server.port())) {
            CompletableFuture<H2cProbe.Answer> running = probe.connect().send(HOLD);
            AdapterBehaviourSuite.await("one running", Duration.ofSeconds(10),
                    () -> server.snapshot().executing() == 1);
            H2cProbe.Connection resetting = probe.connect();
            Stream stream = resetting.open(TestApp.WORK + "?" + HoldUntilReset.QUERY);
            assertTrue(held.await(10, TimeUnit.SECONDS), "the request reached the valve in front of the adapter");
            resetting.reset(stream);
            try {
                AdapterBehaviourSuite.await("the reset request cancelled", Duration.ofSeconds(10),
                        () -> server.snapshot().get("basic").cancelled() == 1);
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + ": " + server.snapshot(), e);
            } finally {
                release.countDown();
            }
            assertEquals(200, running.get(10, TimeUnit.SECONDS).status());

            // At once, so that they take every Request/Response pair in Tomcat's HTTP/2 pool (a stack), the one of the
            // reset request too.
            H2cProbe.Connection other = probe.connect();
            List<CompletableFuture<H2cProbe.Answer>> following = new ArrayList<>();
            for (int i = 0; i < FOLLOWING; i++) {
                following.add(other.send(TestApp.WORK + "?ms=50"));
            }
            List<Integer> statuses = new ArrayList<>();
            for (CompletableFuture<H2cProbe.Answer> f : following) {
                statuses.add(f.get(20, TimeUnit.SECONDS).status());
            }
            assertEquals(Collections.nCopies(FOLLOWING, 200), statuses, "the requests after the reset one");
            assertFalse(resetting.goAway.isDone(), "the connection of the reset stream ended, GOAWAY error code "
                    + resetting.goAway.getNow(null));
        }
        AdapterBehaviourSuite.await("idle", Duration.ofSeconds(10),
                () -> server.snapshot().executing() == 0 && server.snapshot().queued() == 0);
        ClassStats basic = server.snapshot().get("basic");
        assertEquals(1, basic.cancelled(), basic.toString());
        assertTrue(basic.reconciles(), basic.toString());
    }

    /** Answers 200 once the test releases it (20 s at most). */
    private static final class Hold extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient CountDownLatch release;

        Hold(CountDownLatch release) {
            this.release = release;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException {
            try {
                if (!release.await(20, TimeUnit.SECONDS)) {
                    throw new ServletException("not released");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ServletException(e);
            }
        }
    }

    /** Holds the request whose query string is {@value #QUERY} until Tomcat has seen its client reset the stream. */
    private static final class HoldUntilReset extends ValveBase {
        static final String QUERY = "hold-until-reset";
        private final CountDownLatch held;

        HoldUntilReset(CountDownLatch held) {
            super(true);
            this.held = held;
        }

        @Override
        public void invoke(Request request, Response response) throws IOException, ServletException {
            if (QUERY.equals(request.getQueryString())) {
                held.countDown();
                TomcatResetBeforeAsyncTest.awaitReset(request);
            }
            getNext().invoke(request, response);
        }
    }
}

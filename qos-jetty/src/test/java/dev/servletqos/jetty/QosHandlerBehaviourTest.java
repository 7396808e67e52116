package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.ClassStats;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The behaviour every adapter must show, against {@link QosHandler} on a real Jetty server. */
class QosHandlerBehaviourTest extends AdapterBehaviourSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withHandler(dir, policyText, maxThreads);
    }

    /** A request the wrapped handler does not take is answered 404 by the handler and counted declined. */
    @Override
    protected boolean countsUnhandledAsDeclined() {
        return true;
    }

    /**
     * Issue 11, finding 3, over HTTP: with no reserve in the policy, a flood of basic requests leaves premium a
     * permit, and a premium request is served while every basic request still runs or waits.
     */
    @Test
    void aPremiumRequestIsServedAtOnceThroughAFloodOfBasicRequests() throws Exception {
        server = EmbeddedJetty.withHandler(dir, CLASSES + "max-executing = 4\nclass.basic.max-wait = 60s\n",
                MAX_THREADS);
        List<CompletableFuture<HttpResponse<String>>> basic = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            basic.add(send(request("/work?ms=2500").build()));
        }
        awaitState("basic runs 3 and 3 wait", Duration.ofSeconds(20), () -> {
            ClassStats b = server.snapshot().get("basic");
            return b.executing() == 3 && b.queued() == 3;
        });

        HttpResponse<String> premium = get(request("/work").header("X-Tier", "premium"));
        assertEquals(200, premium.statusCode());
        assertEquals("ok premium", premium.body());
        ClassStats b = server.snapshot().get("basic");
        assertEquals(0, b.completed(), "premium was served before any basic request gave its permit back: " + b);
        assertEquals(3, b.executing(), "basic never ran on premium's permit: " + b);
        for (CompletableFuture<HttpResponse<String>> f : basic) {
            assertEquals(200, f.get().statusCode());
        }
    }
}

package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.servlet.QosFilter;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpURI;
import org.eclipse.jetty.http.HttpVersion;
import org.eclipse.jetty.http.MetaData;
import org.eclipse.jetty.http2.api.Session;
import org.eclipse.jetty.http2.api.Stream;
import org.eclipse.jetty.http2.client.HTTP2Client;
import org.eclipse.jetty.http2.frames.HeadersFrame;
import org.eclipse.jetty.http2.frames.SettingsFrame;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every adapter must show, against the portable {@link QosFilter} in a Jetty 12 ee11
 * {@code ServletContextHandler}: the filter's own container test on Jetty (the valve's module runs it on
 * Tomcat), plus what needs Jetty's h2c connector.
 */
class FilterOnJettyBehaviourTest extends AdapterBehaviourSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedJetty.withFilter(dir, policyText, maxThreads);
    }

    /**
     * A refusal is written on a container thread of its own, never on the thread that expired the request: an
     * HTTP/2 client that grants no flow-control window takes the 503's headers but never its body, and would hold
     * that thread (the engine's expiry sweep, or another request's) until it leaves. Another request that waits
     * meanwhile is still answered at its maximum wait.
     */
    @Test
    void aClientThatReadsNothingHoldsUpNoOtherRequestsRefusal() throws Exception {
        server = start(dir, CLASSES + "max-executing = 1\nclass.basic.max-wait = 1s\n", MAX_THREADS);
        CompletableFuture<HttpResponse<String>> running = send(request("/async?ms=6000").build());
        awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        HTTP2Client h2 = new HTTP2Client();
        h2.start();
        try {
            Session session = h2.connect(new InetSocketAddress("127.0.0.1", server.port()), new Session.Listener() {
                @Override
                public Map<Integer, Integer> onPreface(Session s) {
                    return Map.of(SettingsFrame.INITIAL_WINDOW_SIZE, 0);
                }
            }).get(10, TimeUnit.SECONDS);
            CompletableFuture<Integer> stalledStatus = new CompletableFuture<>();
            MetaData.Request get = new MetaData.Request("GET",
                    HttpURI.from("http://127.0.0.1:" + server.port() + "/work"), HttpVersion.HTTP_2, HttpFields.EMPTY);
            session.newStream(new HeadersFrame(get, null, true), new Stream.Listener() {
                @Override
                public void onHeaders(Stream stream, HeadersFrame frame) {
                    stalledStatus.complete(((MetaData.Response) frame.getMetaData()).getStatus());
                }
            }).get(10, TimeUnit.SECONDS);
            assertEquals(503, stalledStatus.get(10, TimeUnit.SECONDS), "the stalled stream expired");

            long sentAt = System.nanoTime();
            HttpResponse<String> next = send(request("/work").build()).get(20, TimeUnit.SECONDS);
            long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentAt);
            assertEquals(503, next.statusCode(), "answered at its 1 s maximum wait, not when the permit came free "
                    + "after " + millis + " ms");
            assertTrue(millis < 3000, "answered " + millis + " ms after it was sent, max-wait 1 s");
            assertEquals(2, server.snapshot().get("basic").expired());
        } finally {
            h2.stop();
        }
        assertEquals(200, running.get().statusCode());
    }
}

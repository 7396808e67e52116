package dev.servletqos.jetty;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.servlet.QosFilter;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee11.servlet.FilterHolder;
import org.eclipse.jetty.ee11.servlet.FilterMapping;
import org.eclipse.jetty.ee11.servlet.ServletContextHandler;
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
     * Issue 11, finding 4: a filter mapped after the QoS filter for REQUEST only would not see a request that waited
     * (it is resumed as an ASYNC dispatch), so the filter refuses to start, naming it and the fix; a filter mapped
     * for ASYNC too, or one mapped before the QoS filter (it saw the request before it waited), is fine.
     */
    @Test
    void aLaterFilterMappedForRequestsOnlyStopsTheStartNamingItAndTheFix() {
        Exception e = assertThrows(Exception.class, () -> EmbeddedJetty.withFilter(dir, CLASSES, MAX_THREADS, Map.of(),
                context -> {
                    context.addFilter(new FilterHolder(new PassThrough()), "/*",
                            EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
                    FilterHolder auth = new FilterHolder(new PassThrough());
                    auth.setName("auth");
                    context.addFilter(auth, "/*", EnumSet.of(DispatcherType.REQUEST));
                }).close());
        StringBuilder m = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            m.append(t.getMessage()).append('\n');
        }
        assertTrue(m.toString().contains("[auth]"), m.toString());
        assertTrue(m.toString().contains("<dispatcher>ASYNC</dispatcher>"), m.toString());
        assertTrue(m.toString().contains("allowRequestOnlyFilters"), m.toString());
    }

    @Test
    void allowedTheFilterStartsWithALaterRequestOnlyFilter() throws Exception {
        server = EmbeddedJetty.withFilter(dir, CLASSES, MAX_THREADS, Map.of("allowRequestOnlyFilters", "true"),
                context -> context.addFilter(new FilterHolder(new PassThrough()), "/*",
                        EnumSet.of(DispatcherType.REQUEST)));
        assertEquals("ok basic", client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    @Test
    void filtersBeforeTheQosFilterOrMappedForAsyncAreFine() throws Exception {
        server = EmbeddedJetty.withFilter(dir, CLASSES, MAX_THREADS, Map.of(), context -> {
            context.getServletHandler().prependFilterMapping(mapping(context, "early-auth", DispatcherType.REQUEST));
            context.addFilter(new FilterHolder(new PassThrough()), "/*",
                    EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
            context.addFilter(new FilterHolder(new PassThrough()), "/*", EnumSet.of(DispatcherType.ERROR));
        });
        assertEquals("ok basic", client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    private static FilterMapping mapping(ServletContextHandler context, String name, DispatcherType type) {
        FilterHolder holder = new FilterHolder(new PassThrough());
        holder.setName(name);
        context.getServletHandler().addFilter(holder);
        FilterMapping m = new FilterMapping();
        m.setFilterName(name);
        m.setPathSpec("/*");
        m.setDispatcherTypes(EnumSet.of(type));
        return m;
    }

    /** A filter that does nothing. */
    public static final class PassThrough implements Filter {
        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            chain.doFilter(request, response);
        }
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

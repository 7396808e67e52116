package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.testkit.AdapterBehaviourSuite;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.tomcat.util.IntrospectionUtils;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, finding 4: a request that waited is resumed as an ASYNC dispatch, so a filter mapped for REQUEST only
 * (a security filter, say) would be skipped exactly when the server is loaded. The valve refuses to start while
 * such a filter is mapped, naming it and the fix, unless its {@code allowRequestOnlyFilters} attribute says that
 * is intended; on a real embedded Tomcat.
 */
class FiltersSkippedOnResumeTest {

    private static final String POLICY = "classes = premium, basic\ndefault-class = basic\nmax-executing = 1\n";

    @TempDir
    Path dir;

    private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

    private EmbeddedTomcat start(boolean allow, Consumer<Context> filters) throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, POLICY);
        return new EmbeddedTomcat(dir, 10, ctx -> {
            QosValve valve = new QosValve();
            // as server.xml sets an attribute
            assertTrue(IntrospectionUtils.setProperty(valve, "policy", file.toString()));
            if (allow) {
                assertTrue(IntrospectionUtils.setProperty(valve, "allowRequestOnlyFilters", "true"),
                        "the valve has the attribute allowRequestOnlyFilters");
            }
            ctx.getPipeline().addValve(valve);
            filters.accept(ctx);
        });
    }

    /** The messages of the exception and its causes, one a line. */
    private static String messages(Throwable e) {
        StringBuilder b = new StringBuilder();
        for (Throwable t = e; t != null; t = t.getCause()) {
            b.append(t.getMessage()).append('\n');
        }
        return b.toString();
    }

    @Test
    void aFilterMappedForRequestsOnlyStopsTheStartNamingItAndTheFix() {
        LifecycleException e = assertThrows(LifecycleException.class, () -> start(false, ctx -> {
            addFilter(ctx, "auth", new Recording(), "REQUEST");
            addFilter(ctx, "audit", new Recording(), "REQUEST");
            addFilter(ctx, "tenant", new Recording(), "REQUEST", "ASYNC");
        }).close());
        String m = messages(e);
        assertTrue(m.contains("[audit, auth]"), m);
        assertTrue(!m.contains("tenant"), "a filter mapped for ASYNC too is fine: " + m);
        assertTrue(m.contains("<dispatcher>ASYNC</dispatcher>"), "the fix: " + m);
        assertTrue(m.contains("allowRequestOnlyFilters=\"true\""), "the way out: " + m);
    }

    /** Spring Boot, ServletContainerInitializers and listeners add their filters after the valve has started. */
    @Test
    void aFilterAddedByAListenerIsCheckedToo() {
        LifecycleException e = assertThrows(LifecycleException.class, () -> start(false,
                ctx -> ctx.addApplicationListener(AddsRequestOnlyFilter.class.getName())).close());
        assertTrue(messages(e).contains("[programmatic-auth]"), messages(e));
    }

    @Test
    void filtersMappedForAsyncOrNotForRequestsAtAllAreFine() throws Exception {
        try (AutoCloseableTomcat t = new AutoCloseableTomcat(start(false, ctx -> {
            addFilter(ctx, "tenant", new Recording(), "REQUEST", "ASYNC");
            addFilter(ctx, "errors", new Recording(), "ERROR");
            addFilter(ctx, "forwards", new Recording(), "FORWARD", "INCLUDE");
        }))) {
            assertEquals(200, get(t.tomcat, "/work").statusCode());
        }
    }

    /** Allowed: the application starts, and a request that waited skips the REQUEST-only filter, as documented. */
    @Test
    void allowedTheValveStartsAndAWaitingRequestSkipsTheFilter() throws Exception {
        Recording auth = new Recording();
        try (AutoCloseableTomcat t = new AutoCloseableTomcat(start(true,
                ctx -> addFilter(ctx, "auth", auth, "REQUEST")))) {
            CompletableFuture<HttpResponse<String>> blocker = client.sendAsync(request(t.tomcat, "/work?ms=500"),
                    HttpResponse.BodyHandlers.ofString());
            AdapterBehaviourSuite.await("one running", Duration.ofSeconds(10),
                    () -> t.tomcat.snapshot().executing() == 1);
            CompletableFuture<HttpResponse<String>> waited = client.sendAsync(request(t.tomcat, "/work"),
                    HttpResponse.BodyHandlers.ofString());
            AdapterBehaviourSuite.await("one waiting", Duration.ofSeconds(10), () -> t.tomcat.snapshot().queued() == 1);
            assertEquals(200, blocker.get().statusCode());
            assertEquals(200, waited.get().statusCode());
            assertEquals(List.of(DispatcherType.REQUEST), auth.seen, "the filter saw only the request that ran at once");
        }
    }

    private HttpResponse<String> get(EmbeddedTomcat tomcat, String path) throws Exception {
        return client.send(request(tomcat, path), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest request(EmbeddedTomcat tomcat, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + tomcat.port() + path))
                .timeout(Duration.ofSeconds(30)).build();
    }

    private static void addFilter(Context ctx, String name, Filter filter, String... dispatchers) {
        FilterDef def = new FilterDef();
        def.setFilterName(name);
        def.setFilter(filter);
        def.setFilterClass(filter.getClass().getName());
        def.setAsyncSupported("true");
        ctx.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName(name);
        map.addURLPattern("/*");
        for (String d : dispatchers) {
            map.setDispatcher(d);
        }
        ctx.addFilterMap(map);
    }

    /** Registers a filter for REQUEST only the way an application does at start-up (Spring Boot, a listener). */
    public static final class AddsRequestOnlyFilter implements ServletContextListener {
        @Override
        public void contextInitialized(ServletContextEvent event) {
            FilterRegistration.Dynamic r = event.getServletContext().addFilter("programmatic-auth", new Recording());
            r.setAsyncSupported(true);
            r.addMappingForUrlPatterns(EnumSet.of(DispatcherType.REQUEST), true, "/*");
        }
    }

    /** Records the dispatch type of every request that reaches it. */
    static final class Recording implements Filter {
        final List<DispatcherType> seen = new CopyOnWriteArrayList<>();

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            seen.add(request.getDispatcherType());
            chain.doFilter(request, response);
        }
    }

    /** Closes the embedded Tomcat after waiting for its engine to drain. */
    private record AutoCloseableTomcat(EmbeddedTomcat tomcat) implements AutoCloseable {
        @Override
        public void close() throws LifecycleException {
            try {
                AdapterBehaviourSuite.await("idle", Duration.ofSeconds(20),
                        () -> tomcat.snapshot().executing() == 0 && tomcat.snapshot().queued() == 0);
            } finally {
                tomcat.close();
            }
        }
    }
}

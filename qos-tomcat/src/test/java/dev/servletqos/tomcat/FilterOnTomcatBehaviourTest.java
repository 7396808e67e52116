package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import dev.servletqos.servlet.QosFilter;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.core.StandardContext;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.junit.jupiter.api.Test;

/**
 * The adapter behaviour suite against the portable {@link QosFilter} on embedded Tomcat, plus what only the filter
 * does: its init parameters, where it finds its policy, and the ASYNC dispatch its users must know about.
 */
class FilterOnTomcatBehaviourTest extends AdapterBehaviourSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedTomcat.withFilter(dir, policyText, maxThreads);
    }

    /** Tomcat's Context waits its unloadDelay for asynchronous requests (waiting ones are) before destroy(). */
    @Override
    protected Duration stopGrace() {
        return Duration.ofMillis(((StandardContext) ((EmbeddedTomcat) server).context).getUnloadDelay());
    }

    @Test
    void aResumedRequestReachesLaterFiltersAsAnAsyncDispatch() throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, CLASSES + "max-executing = 1\n");
        RecordingFilter requestOnly = new RecordingFilter();
        RecordingFilter requestAndAsync = new RecordingFilter();
        server = new EmbeddedTomcat(dir, MAX_THREADS, ctx -> {
            EmbeddedTomcat.addQosFilter(ctx, Map.of("policy", file.toString()));
            addFilter(ctx, "request-only", requestOnly, "REQUEST");
            addFilter(ctx, "request-and-async", requestAndAsync, "REQUEST", "ASYNC");
        });
        CompletableFuture<HttpResponse<String>> blocker = send(request("/work?ms=500").build());
        awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        CompletableFuture<HttpResponse<String>> parked = send(request("/work").build());
        awaitState("one parked", Duration.ofSeconds(10), () -> server.snapshot().queued() == 1);
        assertEquals("ok basic", blocker.get().body());
        assertEquals("ok basic", parked.get().body());

        assertEquals(List.of(DispatcherType.REQUEST, DispatcherType.ASYNC), requestAndAsync.seen,
                "a filter mapped for REQUEST and ASYNC sees both requests, the resumed one as ASYNC");
        assertEquals(List.of(DispatcherType.REQUEST), requestOnly.seen,
                "a filter mapped for REQUEST only does not see the request that waited");
    }

    @Test
    void aRelativePolicyIsReadFromTheApplicationsRootAndInitParamsOverrideIt() throws Exception {
        Path webapp = Files.createDirectories(dir.resolve("webapp").resolve("WEB-INF")).getParent();
        Files.writeString(webapp.resolve("WEB-INF/qos.properties"), CLASSES + "max-executing = 3\n",
                StandardCharsets.UTF_8);
        server = new EmbeddedTomcat(dir, MAX_THREADS, ctx -> {
            ctx.setDocBase(webapp.toString());
            EmbeddedTomcat.addQosFilter(ctx, Map.of("policy", "WEB-INF/qos.properties", "maxExecuting", "4",
                    "defaultClass", "premium"));
        });
        assertEquals(4, server.snapshot().maxExecuting());
        assertEquals("ok premium", client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).body());
    }

    @Test
    void aClassPathPolicyIsReadWithTheApplicationsClassLoader() throws Exception {
        Path classes = Files.createDirectories(dir.resolve("classes"));
        Files.writeString(classes.resolve("qos.properties"), CLASSES + "max-executing = 5\nscheduling = weighted\n",
                StandardCharsets.UTF_8);
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                getClass().getClassLoader())) {
            server = new EmbeddedTomcat(dir, MAX_THREADS, ctx -> {
                ctx.setParentClassLoader(loader);
                EmbeddedTomcat.addQosFilter(ctx, Map.of("policy", "classpath:qos.properties"));
            });
            assertEquals(5, server.snapshot().maxExecuting());
            assertEquals("weighted", server.snapshot().scheduling().key());
            assertEquals("ok premium", client.send(request("/work").header("X-Tier", "premium").build(),
                    HttpResponse.BodyHandlers.ofString()).body());
        }
    }

    /** A policy built in code, no file and no init parameter: what an embedding application gives the filter. */
    @Test
    void aPolicyBuiltInCodeAdmitsRequestsAndServesTheirClasses() throws Exception {
        QosPolicy policy = QosPolicy.builder()
                .addClass(ClassPolicy.named("gold").withBudget(2))
                .addClass(ClassPolicy.named("rest").withBudget(2))
                .maxExecuting(4)
                .addRule(Rule.header("gold", "X-Tier", "gold").asTrusted())
                .build();
        QosFilter filter = new QosFilter(policy);
        server = new EmbeddedTomcat(dir, MAX_THREADS, ctx -> {
            FilterDef def = new FilterDef();
            def.setFilterName("servlet-qos");
            def.setFilter(filter);
            def.setAsyncSupported("true");
            ctx.addFilterDef(def);
            FilterMap map = new FilterMap();
            map.setFilterName("servlet-qos");
            map.addURLPattern("/*");
            map.setDispatcher("REQUEST");
            map.setDispatcher("ASYNC");
            ctx.addFilterMapBefore(map);
        });
        assertEquals("ok gold", client.send(request("/work").header("X-Tier", "gold").build(),
                HttpResponse.BodyHandlers.ofString()).body());
        assertEquals("ok rest", client.send(request("/work").build(), HttpResponse.BodyHandlers.ofString()).body());
        assertSame(policy, filter.getEngine().policy());
        awaitState("one served in each class", Duration.ofSeconds(10),
                () -> server.snapshot().get("gold").completed() == 1 && server.snapshot().get("rest").completed() == 1);
    }

    @Test
    void aBadPolicyKeepsTheApplicationFromStarting() throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, CLASSES + "class.basic.budget = lots\n");
        assertThrows(LifecycleException.class, () -> new EmbeddedTomcat(dir, MAX_THREADS,
                ctx -> EmbeddedTomcat.addQosFilter(ctx, Map.of("policy", file.toString()))).close());
    }

    @Test
    void initNamesTheBadKeyAndValue() throws Exception {
        server = start(dir, CLASSES, MAX_THREADS);
        ServletContext context = ((EmbeddedTomcat) server).context.getServletContext();
        Path file = EmbeddedTomcat.writePolicy(dir, CLASSES + "class.basic.budget = lots\n");
        Path good = Files.writeString(dir.resolve("good.properties"), CLASSES, StandardCharsets.UTF_8);

        assertInitFails(context, Map.of("policy", file.toString()), "class.basic.budget = lots");
        assertInitFails(context, Map.of("policy", good.toString(), "maxExecuting", "lots"), "maxExecuting = lots");
        assertInitFails(context, Map.of("policy", good.toString(), "maxExecutng", "4"), "init-param maxExecutng");
        assertInitFails(context, Map.of("policy", good.toString(), "scheduling", "lottery"), "scheduling = lottery");
        assertInitFails(context, Map.of("policy", dir.resolve("nowhere.properties").toString()),
                "nowhere.properties");
        assertInitFails(context, Map.of("policy", "classpath:nowhere/qos.properties"),
                "classpath:nowhere/qos.properties");
        assertInitFails(context, Map.of(), "init-param policy");
    }

    private static void assertInitFails(ServletContext context, Map<String, String> params, String expected) {
        QosFilter filter = new QosFilter();
        ServletException e = assertThrows(ServletException.class, () -> filter.init(config(context, params)),
                params.toString());
        assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
    }

    private static FilterConfig config(ServletContext context, Map<String, String> params) {
        return new FilterConfig() {
            @Override
            public String getFilterName() {
                return "servlet-qos-under-test";
            }

            @Override
            public ServletContext getServletContext() {
                return context;
            }

            @Override
            public String getInitParameter(String name) {
                return params.get(name);
            }

            @Override
            public Enumeration<String> getInitParameterNames() {
                return Collections.enumeration(params.keySet());
            }
        };
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
        map.addURLPattern("/work");
        for (String d : dispatchers) {
            map.setDispatcher(d);
        }
        ctx.addFilterMap(map);
    }

    /** Records the dispatch type of every request that reaches it. */
    private static final class RecordingFilter implements Filter {
        final List<DispatcherType> seen = new CopyOnWriteArrayList<>();

        @Override
        public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
                throws IOException, ServletException {
            seen.add(request.getDispatcherType());
            chain.doFilter(request, response);
        }
    }
}

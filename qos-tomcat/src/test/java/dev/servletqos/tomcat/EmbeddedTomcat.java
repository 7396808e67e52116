package dev.servletqos.tomcat;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.testkit.QosServer;
import dev.servletqos.testkit.SoakServlets;
import dev.servletqos.testkit.TestApp;
import dev.servletqos.testkit.TestServlets;
import jakarta.servlet.http.HttpServlet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.coyote.http2.Http2Protocol;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;

/**
 * A real embedded Tomcat on 127.0.0.1 with the {@link TestApp} at the root context and one servlet-qos adapter in
 * front of it: the {@link QosValve} ({@link #withValve}) or the portable {@code QosFilter} ({@link #withFilter}).
 */
final class EmbeddedTomcat implements QosServer {

    /** The filter's name in the context, and its class. */
    static final String FILTER_NAME = "servlet-qos";
    static final String FILTER_CLASS = "dev.servletqos.servlet.QosFilter";

    final Tomcat tomcat = new Tomcat();
    final TestApp app = new TestApp();
    final Context context;
    private final Connector connector;

    /**
     * Starts Tomcat with the test application; {@code install} adds the adapter (and anything else a test needs)
     * to the context before it starts. If the context fails to start, Tomcat is stopped again and the
     * {@link LifecycleException} says why.
     */
    EmbeddedTomcat(Path dir, int maxThreads, Consumer<Context> install) throws LifecycleException {
        this(dir, maxThreads, false, install);
    }

    /**
     * {@link #EmbeddedTomcat(Path, int, Consumer)}, with {@code h2c} also HTTP/2 on the connector
     * ({@code Http2Protocol} as its upgrade protocol: upgraded from HTTP/1.1, or with prior knowledge), a 5 s connection
     * timeout and the {@link SoakServlets} beside the test application, as {@code FaultInjectionSoakSuite} needs.
     */
    EmbeddedTomcat(Path dir, int maxThreads, boolean h2c, Consumer<Context> install) throws LifecycleException {
        tomcat.setBaseDir(dir.resolve("tomcat").toString());
        tomcat.setHostname("127.0.0.1");
        connector = new Connector();
        connector.setPort(0);
        connector.setProperty("address", "127.0.0.1");
        connector.setProperty("maxThreads", Integer.toString(maxThreads));
        connector.setProperty("minSpareThreads", "1");
        if (h2c) {
            // Bounds how long a client that stops reading holds the thread writing to it, and its permit
            // (docs/security.md, slow clients); Tomcat's default is 20 s.
            connector.setProperty("connectionTimeout", "5000");
            Http2Protocol h2 = new Http2Protocol();
            // The soak resets streams on purpose, many on one connection: Tomcat's protection against rapid resets
            // (CVE-2023-44487) would close the connection with ENHANCE_YOUR_CALM, failing the other streams on it.
            // Both factors: with the count factor 0 a connection starts at an overhead of 0, and the first reset
            // received (the reset factor, 50 by default) is already over the limit.
            h2.setOverheadCountFactor(0);
            h2.setOverheadResetFactor(0);
            connector.addUpgradeProtocol(h2);
        }
        tomcat.setConnector(connector);
        context = tomcat.addContext("", null);
        Map<String, HttpServlet> servlets = new LinkedHashMap<>(TestServlets.forApp(app));
        if (h2c) {
            servlets.putAll(SoakServlets.forApp(app));
        }
        for (Map.Entry<String, HttpServlet> e : servlets.entrySet()) {
            String name = e.getKey().substring(1);
            Tomcat.addServlet(context, name, e.getValue()).setAsyncSupported(true);
            context.addServletMappingDecoded(e.getKey(), name);
        }
        context.addApplicationListener(TestServlets.AttributeTrap.class.getName());
        install.accept(context);
        try {
            tomcat.start();
            if (context.getState() != LifecycleState.STARTED) {
                throw new LifecycleException("the context did not start: " + context.getState());
            }
        } catch (LifecycleException | RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Tomcat with the valve configured by {@code policyText}, written to {@code dir/qos.properties}. */
    static EmbeddedTomcat withValve(Path dir, String policyText, int maxThreads)
            throws IOException, LifecycleException {
        Path file = writePolicy(dir, policyText);
        return new EmbeddedTomcat(dir, maxThreads, ctx -> {
            QosValve valve = new QosValve();
            valve.setPolicy(file.toString());
            ctx.getPipeline().addValve(valve);
        });
    }

    /** {@link #withValve}, with h2c and the soak's servlets (see the four-argument constructor). */
    static EmbeddedTomcat withValveForSoak(Path dir, String policyText, int maxThreads)
            throws IOException, LifecycleException {
        Path file = writePolicy(dir, policyText);
        return new EmbeddedTomcat(dir, maxThreads, true, ctx -> {
            QosValve valve = new QosValve();
            valve.setPolicy(file.toString());
            ctx.getPipeline().addValve(valve);
        });
    }

    /** {@link #withFilter}, with h2c and the soak's servlets (see the four-argument constructor). */
    static EmbeddedTomcat withFilterForSoak(Path dir, String policyText, int maxThreads)
            throws IOException, LifecycleException {
        Path file = writePolicy(dir, policyText);
        return new EmbeddedTomcat(dir, maxThreads, true,
                ctx -> addQosFilter(ctx, Map.of("policy", file.toString())));
    }

    /** Tomcat with the filter configured by {@code policyText}, mapped first to /* for REQUEST and ASYNC. */
    static EmbeddedTomcat withFilter(Path dir, String policyText, int maxThreads)
            throws IOException, LifecycleException {
        Path file = writePolicy(dir, policyText);
        return new EmbeddedTomcat(dir, maxThreads, ctx -> addQosFilter(ctx, Map.of("policy", file.toString())));
    }

    /** Adds the filter the way a web.xml would, ahead of any other filter mapping, for REQUEST and ASYNC. */
    static void addQosFilter(Context ctx, Map<String, String> initParams) {
        FilterDef def = new FilterDef();
        def.setFilterName(FILTER_NAME);
        def.setFilterClass(FILTER_CLASS);
        def.setAsyncSupported("true");
        initParams.forEach(def::addInitParameter);
        ctx.addFilterDef(def);
        FilterMap map = new FilterMap();
        map.setFilterName(FILTER_NAME);
        map.addURLPattern("/*");
        map.setDispatcher("REQUEST");
        map.setDispatcher("ASYNC");
        ctx.addFilterMapBefore(map);
    }

    static Path writePolicy(Path dir, String policyText) throws IOException {
        return Files.writeString(dir.resolve("qos.properties"), policyText, StandardCharsets.UTF_8);
    }

    @Override
    public int port() {
        return connector.getLocalPort();
    }

    /** The engine the adapter published in the servlet context (valve and filter use the same attribute). */
    @Override
    public QosEngine engine() {
        return (QosEngine) context.getServletContext().getAttribute(QosEngine.class.getName());
    }

    @Override
    public EngineSnapshot snapshot() {
        return engine().snapshot();
    }

    @Override
    public int busyWorkerThreads() {
        Executor e = connector.getProtocolHandler().getExecutor();
        return ((ThreadPoolExecutor) e).getActiveCount();
    }

    @Override
    public List<String> startedOrder() {
        return app.started();
    }

    /** Stops the context, which stops the valve or the filter in it; Tomcat and its connector keep running. */
    @Override
    public void stopAdapter() throws LifecycleException {
        context.stop();
    }

    @Override
    public void close() throws LifecycleException {
        try {
            tomcat.stop();
            tomcat.destroy();
        } finally {
            app.close();
        }
    }
}

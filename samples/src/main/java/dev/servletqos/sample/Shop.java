package dev.servletqos.sample;

import dev.servletqos.QosEngine;
import dev.servletqos.TierCookies;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.servlet.QosStatusServlet;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The sample shop: registers its pages on a servlet context. Used by the embedded runners (through a
 * {@link jakarta.servlet.ServletContainerInitializer}) and, in the WAR, by {@link ShopListener}.
 *
 * <p>Pages: {@code /login?tier=premium|basic}, {@code /browse}, {@code /item?id=N}, {@code /img/NAME},
 * {@code POST /checkout}, {@code /metrics} (Prometheus), {@code /qos} (JSON snapshot of the engine),
 * {@code /qos/status} (the QoS status page, this machine only, mapped by {@link #registerStatusPage} or the
 * Jetty runner),
 * {@code /admin/backend} (the back-end speed knob, {@link Backend}; this machine only) and {@code /} (an
 * index). Their costs are in the shop's workload description ({@link dev.servletqos.workload.ShopWorkload}),
 * spent by {@link Costs} at the {@link Backend}'s speed.
 *
 * <p>The shop finds the QoS engine, when there is one, in the servlet context attribute
 * {@code dev.servletqos.QosEngine} (where the Tomcat valve and the Jetty handler publish it) and issues tier
 * cookies with the engine's secret. Without an engine (QoS off) it uses the {@link TierCookies} in
 * {@value #TIER_COOKIES_ATTRIBUTE}, built from the same policy so that the cookies are the same.
 */
public final class Shop {

    /** Where the shop maps the QoS status page (the servlet on Tomcat, the handler on Jetty). */
    public static final String STATUS_PATH = "/qos/status";
    /** Where the adapters publish their engine. */
    public static final String ENGINE_ATTRIBUTE = QosEngine.class.getName();
    /** The tier cookie codec used when no engine is present. */
    public static final String TIER_COOKIES_ATTRIBUTE = "dev.servletqos.sample.tierCookies";
    static final String COSTS_ATTRIBUTE = "dev.servletqos.sample.costs";
    static final String BACKEND_ATTRIBUTE = "dev.servletqos.sample.backend";
    static final String CATALOG_ATTRIBUTE = "dev.servletqos.sample.catalog";
    static final String METRICS_ATTRIBUTE = "dev.servletqos.sample.metrics";
    private static final String REGISTERED_ATTRIBUTE = "dev.servletqos.sample.registered";

    private Shop() {
    }

    /**
     * Registers the shop's servlets on {@code context} (once; a second call does nothing).
     *
     * @param costs       the cost model
     * @param tierCookies the codec for tier cookies when no engine is published (QoS off); built from the
     *                    policy so that on and off issue the same cookies
     */
    public static void register(ServletContext context, Costs costs, TierCookies tierCookies) {
        if (context.getAttribute(REGISTERED_ATTRIBUTE) != null) {
            return;
        }
        context.setAttribute(REGISTERED_ATTRIBUTE, Boolean.TRUE);
        context.setAttribute(COSTS_ATTRIBUTE, costs);
        context.setAttribute(BACKEND_ATTRIBUTE, new Backend());
        context.setAttribute(CATALOG_ATTRIBUTE, new Catalog());
        context.setAttribute(TIER_COOKIES_ATTRIBUTE, tierCookies);
        context.setAttribute(METRICS_ATTRIBUTE, new ShopMetrics());
        add(context, "index", new ShopServlets.Index(), "");
        add(context, "login", new ShopServlets.Login(), "/login");
        add(context, "browse", new ShopServlets.Browse(), "/browse");
        add(context, "item", new ShopServlets.Item(), "/item");
        add(context, "img", new ShopServlets.Image(), "/img/*");
        add(context, "checkout", new ShopServlets.Checkout(), "/checkout");
        add(context, "metrics", new MetricsServlet(), "/metrics");
        add(context, "qos", new QosServlet(), "/qos");
        add(context, "admin-backend", new BackendServlet(), "/admin/backend");
    }

    /**
     * Maps the QoS status page ({@link QosStatusServlet}, this machine only) at {@value #STATUS_PATH}: the
     * Tomcat runner and the WAR call it; the Jetty runner puts {@code QosStatusHandler} in front of the
     * context instead.
     */
    public static void registerStatusPage(ServletContext context) {
        add(context, "qos-status", new QosStatusServlet(), STATUS_PATH);
    }

    private static void add(ServletContext context, String name, HttpServlet servlet, String mapping) {
        ServletRegistration.Dynamic r = context.addServlet(name, servlet);
        // the QoS adapters park a request with startAsync before it reaches the servlet
        r.setAsyncSupported(true);
        r.addMapping(mapping);
    }

    /** The tier cookie codec for a policy: its secret, or a random one of this JVM when it has none. */
    public static TierCookies tierCookies(QosPolicy policy) {
        return TierCookies.forPolicy(policy, dev.servletqos.Clock.system());
    }

    /** Pages the shop on this context has served since start (all statuses); 0 before registration. */
    public static long pagesServed(ServletContext context) {
        return context.getAttribute(METRICS_ATTRIBUTE) instanceof ShopMetrics m ? m.served() : 0;
    }

    /**
     * The back-end speed knob of the shop on this context (a factor on its back-end waits, changeable while it
     * serves); null before registration.
     */
    public static Backend backend(ServletContext context) {
        return context.getAttribute(BACKEND_ATTRIBUTE) instanceof Backend b ? b : null;
    }

    /** The engine published on this context, or null when QoS is off. */
    static QosEngine engine(ServletContext context) {
        return context.getAttribute(ENGINE_ATTRIBUTE) instanceof QosEngine e ? e : null;
    }

    /** The codec for tier cookies: the engine's, else the shop's own. */
    static TierCookies tierCookies(ServletContext context) {
        QosEngine e = engine(context);
        return e != null ? e.tierCookies() : (TierCookies) context.getAttribute(TIER_COOKIES_ATTRIBUTE);
    }

    /** Writes a whole response that no cache may keep: status, content type, length, body (UTF-8). */
    static void write(HttpServletResponse resp, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        resp.setStatus(status);
        resp.setContentType(type);
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(bytes.length);
        resp.getOutputStream().write(bytes);
    }
}

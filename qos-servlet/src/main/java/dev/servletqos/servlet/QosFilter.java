package dev.servletqos.servlet;

import dev.servletqos.Attributes;
import dev.servletqos.QosEngine;
import dev.servletqos.Ticket;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.runtime.AdapterSettings;
import dev.servletqos.runtime.QosRuntime;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Server-side quality of service for one web application in any Servlet 6 container (Tomcat, Jetty ee10/ee11,
 * ...), with the same engine and policy file as the Tomcat valve and the Jetty handler. Declare it
 * {@code asyncSupported}, map it first, to {@code /*}, for the {@code REQUEST} and {@code ASYNC} dispatcher
 * types:
 * <pre>{@code
 * <filter>
 *   <filter-name>servlet-qos</filter-name>
 *   <filter-class>dev.servletqos.servlet.QosFilter</filter-class>
 *   <async-supported>true</async-supported>
 *   <init-param><param-name>policy</param-name><param-value>WEB-INF/qos.properties</param-value></init-param>
 * </filter>
 * <filter-mapping>
 *   <filter-name>servlet-qos</filter-name>
 *   <url-pattern>/*</url-pattern>
 *   <dispatcher>REQUEST</dispatcher>
 *   <dispatcher>ASYNC</dispatcher>
 * </filter-mapping>
 * }</pre>
 *
 * <p>A request that must wait is suspended with {@code startAsync()} and its thread goes back to the pool; when
 * a permit is granted it is resumed with {@code AsyncContext.dispatch()}, so it reaches the filters after this
 * one and the application as an {@code ASYNC} dispatch: filters that must see every request need
 * {@code ASYNC} in their mapping too (Spring's {@code OncePerRequestFilter} skips async dispatches unless
 * {@code shouldNotFilterAsyncDispatch()} returns false). The permit is released when the request completes,
 * also when the application itself went asynchronous. Only {@code REQUEST} dispatches enter the engine;
 * a request already holding a permit (resumed, or dispatched again by the application) passes straight through.
 *
 * <p>Init parameters:
 * <ul>
 *   <li>{@code policy} (required): the policy file. An absolute path; a relative path, resolved against the web
 *       application's root directory ({@code ServletContext.getRealPath("/")}), or against the working directory
 *       when the application is not unpacked on disk; or {@code classpath:name}, a resource of the web
 *       application's class loader (for example {@code classpath:qos.properties} from
 *       {@code WEB-INF/classes}).</li>
 *   <li>{@code maxExecuting}, {@code scheduling}, {@code defaultClass}: override the file's
 *       {@code max-executing}, {@code scheduling} and {@code default-class}, as the setters of the same names do
 *       ({@link AdapterSettings}: the same meaning on every adapter).</li>
 *   <li>{@code allowRequestOnlyFilters}: {@code true} lets the application start while filters after this one
 *       are mapped for {@code REQUEST} but not {@code ASYNC} dispatches (below); default {@code false}.</li>
 * </ul>
 * A request that waited reaches the filters after this one as an {@code ASYNC} dispatch, so a filter mapped for
 * {@code REQUEST} only (a security filter, say) would be skipped exactly when the server is loaded. Where the
 * container lets a filter read the other filters' mappings (Jetty 12's ee10 and ee11 servlet contexts), {@link #init}
 * fails while such a filter is mapped after this one, naming it and the fix, unless
 * {@code allowRequestOnlyFilters} is true; elsewhere (Tomcat: use the valve, which checks) it logs that it could not
 * check.
 * An unknown init parameter or a bad policy fails {@link #init} with a message naming the key and the value,
 * so the application does not start unprotected. The engine is published as the servlet context attribute
 * {@value #ENGINE_ATTRIBUTE} (tier cookies, management). Keep {@code max-executing} below the container's
 * request threads with some headroom: a resumed request runs as a new container task.
 *
 * <p>From code (an embedding application, a test): {@code new QosFilter(policy)} with a {@link QosPolicy}, or
 * {@code new QosFilter(runtime)} with a {@link QosRuntime}; the {@code policy} init parameter is then not used.
 *
 * <p>JMX: the engine's beans ({@link QosMBeans}) are registered on the platform MBean server, in the domain
 * {@value QosMBeans#DOMAIN}, under the engine id of the application's context path ({@code /} at the root), and
 * unregistered by {@link #destroy()}.
 */
public class QosFilter implements Filter {

    /** Servlet context attribute under which the filter publishes its engine (the same as the valve's). */
    public static final String ENGINE_ATTRIBUTE = Attributes.ENGINE;
    /** Prefix of a {@code policy} init parameter naming a class path resource. */
    public static final String CLASSPATH_PREFIX = "classpath:";

    private static final String TICKET_ATTRIBUTE = "dev.servletqos.ticket";

    private final AdapterSettings settings;
    /** The runtime requests enter; null before {@link #init} and after {@link #destroy}. */
    private volatile QosRuntime runtime;
    private ServletContext servletContext;

    /** A filter to be given its policy file by the init parameter {@code policy} (web.xml). */
    public QosFilter() {
        this(new AdapterSettings());
    }

    /** A filter with a policy built in code: a new engine on it at each init. */
    public QosFilter(QosPolicy policy) {
        this(new AdapterSettings(policy));
    }

    /** A filter over a runtime built in code, started by {@link #init} and stopped by {@link #destroy}. */
    public QosFilter(QosRuntime runtime) {
        this(new AdapterSettings(runtime));
    }

    private QosFilter(AdapterSettings settings) {
        this.settings = settings;
    }

    /** See {@link AdapterSettings#setMaxExecuting}: overrides the policy's, and changes a running engine at once. */
    public void setMaxExecuting(int maxExecuting) {
        settings.setMaxExecuting(maxExecuting);
    }

    public int getMaxExecuting() {
        return settings.getMaxExecuting();
    }

    /** Overrides the policy's {@code scheduling} (strict-priority, weighted, ...) from the next start or reload. */
    public void setScheduling(String scheduling) {
        settings.setScheduling(scheduling);
    }

    public String getScheduling() {
        return settings.getScheduling();
    }

    /** Overrides the policy's {@code default-class} from the next start or reload. */
    public void setDefaultClass(String defaultClass) {
        settings.setDefaultClass(defaultClass);
    }

    public String getDefaultClass() {
        return settings.getDefaultClass();
    }

    @Override
    public void init(FilterConfig config) throws ServletException {
        servletContext = config.getServletContext();
        QosRuntime r;
        try {
            FilterParameters params = new FilterParameters(config, settings.inCode());
            if (params.maxExecuting != null) {
                settings.setMaxExecuting(params.maxExecuting);
            }
            if (params.scheduling != null) {
                settings.setScheduling(params.scheduling);
            }
            if (params.defaultClass != null) {
                settings.setDefaultClass(params.defaultClass);
            }
            // JMX reloadPolicy (and policy.watch) read it again, with the init-params and the application's loader
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            ClassLoader app = loader != null ? loader : QosFilter.class.getClassLoader();
            ServletContext context = servletContext;
            r = settings.open(b -> b.policyReader(o -> params.read(o, context, app), params.watchedFile(context),
                    "policy " + params.policy), b -> b.engineId(context.getContextPath()).log(QosRuntime.Log.of(context::log, m -> context.log("WARNING: " + m))));
            FilterMappings.checkLaterFiltersSeeResumedRequests(config, params.allowRequestOnlyFilters);
        } catch (PolicyException ex) {
            throw new ServletException("servlet-qos filter " + config.getFilterName() + ": bad policy: "
                    + ex.getMessage(), ex);
        }
        if (servletContext.getAttribute(ENGINE_ATTRIBUTE) != null) {
            servletContext.log("servlet-qos: WARNING: another adapter already published an engine in this "
                    + "context; requests now pass two QoS gates. Install one adapter per application.");
        }
        servletContext.setAttribute(ENGINE_ATTRIBUTE, r.engine());
        settings.start(r);
        runtime = r;
    }

    /**
     * Withdraws the runtime (later requests pass straight through) and stops it: every waiting request is answered
     * 503 with {@code Retry-After} at once, the beans are withdrawn, the engine and its expiry thread stop.
     */
    @Override
    public void destroy() {
        runtime = null;
        QosRuntime r = settings.stop();
        if (servletContext != null && r != null && servletContext.getAttribute(ENGINE_ATTRIBUTE) == r.engine()) {
            servletContext.removeAttribute(ENGINE_ATTRIBUTE);
        }
    }

    /** The running runtime, or null before {@link #init} and after {@link #destroy}. */
    public QosRuntime getRuntime() {
        return runtime;
    }

    /** The running engine, or null before {@link #init} and after {@link #destroy}. */
    public QosEngine getEngine() {
        QosRuntime r = runtime;
        return r == null ? null : r.engine();
    }

    /** The engine's JMX beans while running, or null (before {@link #init}, after {@link #destroy}, or refused). */
    public QosMBeans getMBeans() {
        QosRuntime r = runtime;
        return r == null ? null : r.mbeans();
    }

    @Override
    public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
            throws IOException, ServletException {
        Object marked = req.getAttribute(TICKET_ATTRIBUTE);
        if (marked != null && req instanceof HttpServletRequest request
                && res instanceof HttpServletResponse response) {
            // A resumed request (our own ASYNC dispatch) or one the application dispatched again holds its
            // permit already; a resumed one whose content comes from its level's tree goes there.
            String forward = ServletTickets.takeForward(marked);
            ServletTickets.passAgain(marked, request, response, forward != null
                    ? () -> ServletTickets.forward(req.getServletContext(), req, res, forward)
                    : () -> chain.doFilter(request, response));
            return;
        }
        QosRuntime r = runtime;
        if (r == null || marked != null || req.getDispatcherType() != DispatcherType.REQUEST
                || !(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            // Only a request arriving from the client enters the engine.
            chain.doFilter(req, res);
            return;
        }
        QosEngine e = r.engine();
        ServletRequestView view = new ServletRequestView(request);
        Ticket ticket = e.enter(view);
        // A filter runs in a chain that ends in a servlet: a dispatch of the request's path finds that servlet again.
        ServletTickets.serve(r.waiting(), ticket, ServletTickets.contentForward(e, ticket, view), true, request,
                response, m -> ServletTickets.setAttribute(request, TICKET_ATTRIBUTE, m),
                () -> chain.doFilter(request, response),
                path -> ServletTickets.forward(request.getServletContext(), request, response, path),
                () -> ServletTickets.contentLength(response), null);
    }
}

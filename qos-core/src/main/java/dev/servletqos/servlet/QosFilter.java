package dev.servletqos.servlet;

import dev.servletqos.Attributes;
import dev.servletqos.Periodic;
import dev.servletqos.QosEngine;
import dev.servletqos.Ticket;
import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
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
import java.lang.management.ManagementFactory;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

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
 *       {@code max-executing}, {@code scheduling} and {@code default-class}.</li>
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
    private static final List<String> INIT_PARAMETERS = List.of("policy", "maxExecuting", "scheduling",
            "defaultClass", "allowRequestOnlyFilters");
    private static final System.Logger log = System.getLogger(QosFilter.class.getName());

    private volatile QosEngine engine;
    private volatile ServletTickets.Waiting waiting;
    private ServletContext servletContext;
    private ScheduledExecutorService sweeper;
    private volatile Thread sweeperThread;
    private volatile QosMBeans beans;

    @Override
    public void init(FilterConfig config) throws ServletException {
        servletContext = config.getServletContext();
        QosPolicy policy;
        QosEngine e;
        try {
            policy = loadPolicy(config);
            e = QosEngine.create(policy);
            // JMX reloadPolicy (and policy.watch) read it again, with the init-params and the application's loader
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            ClassLoader app = loader != null ? loader : QosFilter.class.getClassLoader();
            e.reloadFrom(() -> loadPolicy(config, app), policyFile(config));
            checkLaterFiltersSeeResumedRequests(config);
        } catch (PolicyException ex) {
            throw new ServletException("servlet-qos filter " + config.getFilterName() + ": bad policy: "
                    + ex.getMessage(), ex);
        }
        if (servletContext.getAttribute(ENGINE_ATTRIBUTE) != null) {
            servletContext.log("servlet-qos: WARNING: another adapter already published an engine in this "
                    + "context; requests now pass two QoS gates. Install one adapter per application.");
        }
        servletContext.setAttribute(ENGINE_ATTRIBUTE, e);
        sweeper = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "servlet-qos-expiry");
            t.setDaemon(true);
            sweeperThread = t;
            return t;
        });
        e.start(Periodic.on(sweeper));
        waiting = new ServletTickets.Waiting();
        engine = e;
        beans = QosMBeans.registerOrWarn(e, ManagementFactory.getPlatformMBeanServer(), QosMBeans.DOMAIN,
                servletContext.getContextPath(), m -> servletContext.log("servlet-qos: WARNING: " + m));
        servletContext.log("servlet-qos: " + policy.classes().size() + " classes, " + policy.scheduling().key()
                + ", max-executing " + policy.maxExecuting() + " (policy " + config.getInitParameter("policy")
                + ")");
    }

    /**
     * Withdraws the engine (later requests pass straight through), answers every waiting request 503 with
     * {@code Retry-After} at once, stops the engine and its expiry thread.
     */
    @Override
    public void destroy() {
        QosEngine e = engine;
        engine = null;
        QosMBeans.close(beans);
        beans = null;
        ServletTickets.Waiting w = waiting;
        if (w != null) {
            w.close();
        }
        if (e != null) {
            e.stop();
        }
        if (sweeper != null) {
            sweeper.shutdownNow();
            Thread t = sweeperThread;
            try {
                // so that the container does not find the thread alive when it checks the application for leaks
                if (t != null) {
                    t.join(1_000);
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            sweeper = null;
            sweeperThread = null;
        }
        if (servletContext != null && e != null && servletContext.getAttribute(ENGINE_ATTRIBUTE) == e) {
            servletContext.removeAttribute(ENGINE_ATTRIBUTE);
        }
    }

    /** The running engine, or null before {@link #init} and after {@link #destroy}. */
    public QosEngine getEngine() {
        return engine;
    }

    /** The engine's JMX beans while running, or null (before {@link #init}, after {@link #destroy}, or refused). */
    public QosMBeans getMBeans() {
        return beans;
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
        QosEngine e = engine;
        if (e == null || marked != null || req.getDispatcherType() != DispatcherType.REQUEST
                || !(req instanceof HttpServletRequest request) || !(res instanceof HttpServletResponse response)) {
            // Only a request arriving from the client enters the engine.
            chain.doFilter(req, res);
            return;
        }
        ServletRequestView view = new ServletRequestView(request);
        Ticket ticket = e.enter(view);
        // A filter runs in a chain that ends in a servlet: a dispatch of the request's path finds that servlet again.
        ServletTickets.serve(waiting, ticket, ServletTickets.contentForward(e, ticket, view), true, request, response,
                m -> ServletTickets.setAttribute(request, TICKET_ATTRIBUTE, m),
                () -> chain.doFilter(request, response),
                path -> ServletTickets.forward(request.getServletContext(), request, response, path),
                () -> ServletTickets.contentLength(response));
    }

    /**
     * Fails while a filter mapped after this one sees REQUEST but not ASYNC dispatches, unless allowed.
     *
     * @throws PolicyException naming the filters and the fix
     */
    private void checkLaterFiltersSeeResumedRequests(FilterConfig config) {
        String allow = config.getInitParameter("allowRequestOnlyFilters");
        if (allow != null && !allow.trim().equals("true") && !allow.trim().equals("false")) {
            throw new PolicyException("init-param allowRequestOnlyFilters", allow, "must be true or false");
        }
        boolean allowed = allow != null && allow.trim().equals("true");
        List<String> skipped = FilterMappings.requestOnlyAfter(config.getServletContext(), config.getFilterName());
        if (skipped == null) {
            if (!allowed) {
                servletContext.log("servlet-qos: this container does not let the filter read the other filters' "
                        + "mappings; make sure every filter mapped after " + config.getFilterName() + " has ASYNC "
                        + "among its dispatcher types: a request that waited reaches it as an ASYNC dispatch "
                        + "(on Tomcat, the QosValve checks this)");
            }
            return;
        }
        if (skipped.isEmpty()) {
            return;
        }
        String problem = "the filters " + skipped + " are mapped after " + config.getFilterName() + " for REQUEST "
                + "dispatches but not for ASYNC ones; a request that waited for a permit reaches them as an ASYNC "
                + "dispatch and would skip them, exactly when the server is loaded";
        if (allowed) {
            servletContext.log("servlet-qos: " + problem + "; allowed by allowRequestOnlyFilters = true");
            return;
        }
        throw new PolicyException("init-param allowRequestOnlyFilters", "false", problem + ". Add "
                + "<dispatcher>ASYNC</dispatcher> to their <filter-mapping> (DispatcherType.ASYNC in "
                + "addFilter/addMappingForUrlPatterns or @WebFilter(dispatcherTypes)), or, if skipping them is "
                + "harmless, set the init parameter allowRequestOnlyFilters to true");
    }

    private static QosPolicy loadPolicy(FilterConfig config) {
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        return loadPolicy(config, loader != null ? loader : QosFilter.class.getClassLoader());
    }

    /** The policy file for policy.watch: null for a class-path resource. */
    private static Path policyFile(FilterConfig config) {
        String policy = config.getInitParameter("policy").trim();
        return policy.startsWith(CLASSPATH_PREFIX) ? null : resolve(policy, config.getServletContext());
    }

    /** Reads the policy; {@code loader} finds a {@code classpath:} one (the application's, also on a JMX thread). */
    private static QosPolicy loadPolicy(FilterConfig config, ClassLoader loader) {
        for (String name : Collections.list(config.getInitParameterNames())) {
            if (!INIT_PARAMETERS.contains(name)) {
                throw new PolicyException("init-param " + name, config.getInitParameter(name),
                        "unknown; the filter knows " + String.join(", ", INIT_PARAMETERS));
            }
        }
        String policy = config.getInitParameter("policy");
        if (policy == null || policy.isBlank()) {
            throw new PolicyException("init-param policy", String.valueOf(policy), "required: a policy file "
                    + "(absolute, or relative to the web application's root directory) or classpath:name");
        }
        policy = policy.trim();
        String maxExecuting = config.getInitParameter("maxExecuting");
        if (maxExecuting != null && !maxExecuting.trim().matches("[0-9]{1,9}")) {
            throw new PolicyException("init-param maxExecuting", maxExecuting, "not a non-negative integer");
        }
        Map<String, String> overrides = PolicyParser.adapterOverrides(maxExecuting,
                config.getInitParameter("scheduling"), config.getInitParameter("defaultClass"));
        if (policy.startsWith(CLASSPATH_PREFIX)) {
            String name = policy.substring(CLASSPATH_PREFIX.length());
            name = name.startsWith("/") ? name.substring(1) : name;
            URL url = loader.getResource(name);
            if (url == null) {
                throw new PolicyException("init-param policy", policy,
                        "no such resource on the web application's class path");
            }
            try {
                return PolicyParser.read(url.openStream(), policy, overrides);
            } catch (IOException ex) {
                throw new PolicyException("init-param policy", policy, "cannot read it: " + ex);
            }
        }
        Path file = resolve(policy, config.getServletContext());
        if (!Files.isRegularFile(file)) {
            throw new PolicyException("init-param policy", policy, "no such file: " + file);
        }
        return PolicyParser.load(file, overrides);
    }

    /** An absolute path as is; a relative one against the application's root directory, else the working dir. */
    private static Path resolve(String policy, ServletContext context) {
        Path file = Path.of(policy);
        if (file.isAbsolute()) {
            return file;
        }
        String root = context.getRealPath("/");
        return (root != null ? Path.of(root).resolve(file) : file).toAbsolutePath().normalize();
    }
}

package dev.servletqos.boot;

import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.tomcat.QosValve;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.catalina.Context;
import org.apache.catalina.Lifecycle;
import org.apache.tomcat.util.descriptor.web.FilterMap;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.boot.tomcat.TomcatContextCustomizer;

/**
 * Puts {@link QosValve} over the starter's runtime in the pipeline of the application's Tomcat Context, and warns
 * at startup about filters mapped without the ASYNC dispatcher type (a plain {@code Filter} bean is mapped for
 * REQUEST only), which a request that waited would skip.
 *
 * <p>Customizes one Context, the first: a second one (a separate management server, whose Context Boot may
 * customize with the application's customizers) is left without QoS, as Actuator on its own port should be.
 * Thread-safe.
 */
final class ValveCustomizer implements TomcatContextCustomizer {

    private static final Log LOG = LogFactory.getLog(ValveCustomizer.class);
    private static final String WEBSOCKET_FILTER = "org.apache.tomcat.websocket.server.WsFilter";

    private final QosRuntime runtime;
    private final boolean allowRequestOnlyFilters;
    private final AtomicBoolean used = new AtomicBoolean();

    ValveCustomizer(QosRuntime runtime, boolean allowRequestOnlyFilters) {
        this.runtime = runtime;
        this.allowRequestOnlyFilters = allowRequestOnlyFilters;
    }

    @Override
    public void customize(Context context) {
        if (!used.compareAndSet(false, true)) {
            LOG.info("servlet-qos: the Tomcat context '" + context.getName() + "' of a second server (the management "
                    + "port) is not under QoS");
            return;
        }
        QosValve valve = new QosValve(runtime);
        valve.setAllowRequestOnlyFilters(allowRequestOnlyFilters);
        context.getPipeline().addValve(valve);
        if (allowRequestOnlyFilters) {
            // Boot adds its filters while the Context starts: they are all known at its START event
            context.addLifecycleListener(event -> {
                if (Lifecycle.START_EVENT.equals(event.getType())) {
                    warnAboutRequestOnlyFilters(context);
                }
            });
        }
    }

    private static void warnAboutRequestOnlyFilters(Context context) {
        Set<String> skipped = requestOnlyFilters(context);
        if (!skipped.isEmpty()) {
            LOG.warn("servlet-qos: the filters " + skipped + " are registered without the ASYNC dispatcher type: "
                    + "a request that waited for a permit reaches the application as an ASYNC dispatch and skips "
                    + "them. Spring Boot maps a plain Filter bean for REQUEST only: register it with a "
                    + "FilterRegistrationBean and call setDispatcherTypes(DispatcherType.REQUEST, "
                    + "DispatcherType.ASYNC, DispatcherType.ERROR), or extend OncePerRequestFilter and override "
                    + "shouldNotFilterAsyncDispatch() to return false. servlet-qos.request-only-filters=fail makes "
                    + "this fail startup instead.");
        }
    }

    /** The filters mapped for REQUEST but not ASYNC dispatches, Tomcat's WebSocket filter aside; sorted. */
    static Set<String> requestOnlyFilters(Context context) {
        Set<String> skipped = new TreeSet<>();
        for (FilterMap m : context.findFilterMaps()) {
            int dispatches = m.getDispatcherMapping();
            var def = context.findFilterDef(m.getFilterName());
            if ((dispatches & FilterMap.REQUEST) != 0 && (dispatches & FilterMap.ASYNC) == 0
                    && (def == null || !WEBSOCKET_FILTER.equals(def.getFilterClass()))) {
                skipped.add(m.getFilterName());
            }
        }
        return skipped;
    }
}

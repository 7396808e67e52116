package dev.servletqos.servlet;

import dev.servletqos.policy.PolicyException;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Which filters are mapped after the QoS filter for REQUEST dispatches but not ASYNC ones, read from the
 * container where it says: the Servlet API lets no filter read another's dispatcher types, but Jetty 12's ee10 and
 * ee11 servlet contexts do through public methods ({@code getContextHandler().getServletHandler()
 * .getFilterMappings()}, each with {@code getFilterName()} and {@code appliesTo(DispatcherType)}), called here by
 * reflection so that qos-core needs no Jetty. Stateless.
 */
final class FilterMappings {

    private FilterMappings() {
    }

    /**
     * Fails while a filter mapped after the QoS filter sees REQUEST but not ASYNC dispatches, unless allowed; logs
     * where the container does not say.
     *
     * @throws PolicyException naming the filters and the fix
     */
    static void checkLaterFiltersSeeResumedRequests(FilterConfig config, boolean allowed) {
        ServletContext servletContext = config.getServletContext();
        List<String> skipped = requestOnlyAfter(servletContext, config.getFilterName());
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

    /**
     * The names of the filters mapped after {@code self} (in mapping order) that apply to REQUEST but not to ASYNC
     * dispatches, sorted; null when the container does not say.
     */
    static List<String> requestOnlyAfter(ServletContext context, String self) {
        Object[] mappings;
        try {
            Object handler = call(context, "getContextHandler");
            Object servletHandler = call(handler, "getServletHandler");
            mappings = (Object[]) call(servletHandler, "getFilterMappings");
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
        if (mappings == null) {
            return List.of();
        }
        try {
            int first = mappings.length;
            for (int i = 0; i < mappings.length; i++) {
                if (self.equals(call(mappings[i], "getFilterName"))) {
                    first = i;
                    break;
                }
            }
            TreeSet<String> skipped = new TreeSet<>();
            for (int i = first + 1; i < mappings.length; i++) {
                Object m = mappings[i];
                Method applies = m.getClass().getMethod("appliesTo", DispatcherType.class);
                String name = (String) call(m, "getFilterName");
                if (!self.equals(name) && Boolean.TRUE.equals(applies.invoke(m, DispatcherType.REQUEST))
                        && !Boolean.TRUE.equals(applies.invoke(m, DispatcherType.ASYNC))) {
                    skipped.add(name);
                }
            }
            return new ArrayList<>(skipped);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static Object call(Object target, String method) throws ReflectiveOperationException {
        return target.getClass().getMethod(method).invoke(target);
    }
}

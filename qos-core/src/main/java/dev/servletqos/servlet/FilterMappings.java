package dev.servletqos.servlet;

import jakarta.servlet.DispatcherType;
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

package dev.servletqos.boot;

import java.util.ArrayList;
import java.util.List;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Actuator's paths on the application's port, which the starter exempts from admission by default: health, the
 * Prometheus scrape and the {@code qos} endpoint are answered under any load, before any queue, so that overload
 * never hides the numbers that describe it nor takes the node out of its load balancer.
 */
final class ActuatorPaths {

    private static final String ENDPOINT = "org.springframework.boot.actuate.endpoint.annotation.Endpoint";

    private ActuatorPaths() {
    }

    /**
     * The path patterns of Actuator's base path ({@code management.endpoints.web.base-path}, default
     * {@code /actuator}) and everything under it, as the engine sees paths: within the application on Tomcat and
     * with the filter, from the server's root on Jetty (where the handler stands in front of the context), so both
     * forms when {@code server.servlet.context-path} is set. Empty without Actuator, or when Actuator has a port of
     * its own (not under QoS at all).
     */
    static List<String> of(Environment env) {
        if (!ClassUtils.isPresent(ENDPOINT, ActuatorPaths.class.getClassLoader())) {
            return List.of();
        }
        // Boot's rule (ManagementPortType): a port of its own unless unset or equal to a non-zero server port
        Integer management = env.getProperty("management.server.port", Integer.class);
        Integer server = env.getProperty("server.port", Integer.class);
        boolean samePort = management == null || (server == null && management == 8080)
                || (management != 0 && management.equals(server));
        if (!samePort) {
            return List.of();
        }
        String base = trimmed(env.getProperty("management.endpoints.web.base-path", "/actuator"));
        String context = trimmed(env.getProperty("server.servlet.context-path", ""));
        List<String> paths = new ArrayList<>();
        add(paths, base);
        if (!context.isEmpty()) {
            add(paths, context + base);
        }
        return paths;
    }

    private static void add(List<String> paths, String base) {
        if (base.isEmpty()) {
            // Actuator at the root: only its own endpoints, not the whole application
            paths.add("/health");
            paths.add("/health/**");
            paths.add("/prometheus");
            paths.add("/qos");
            paths.add("/qos/**");
            return;
        }
        paths.add(base);
        paths.add(base + "/**");
    }

    /** Without a trailing slash, with a leading one; empty for the root. */
    private static String trimmed(String path) {
        String p = path.trim();
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return p.isEmpty() || p.startsWith("/") ? p : "/" + p;
    }
}

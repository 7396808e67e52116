package dev.servletqos.servlet;

import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.ServletContext;
import java.io.IOException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * The {@link QosFilter}'s init parameters, read and checked once at init, and its policy file or class-path resource,
 * read at init and at each reload. Messages name the init parameter and the value. Immutable.
 */
final class FilterParameters {

    static final List<String> NAMES = List.of("policy", "maxExecuting", "scheduling", "defaultClass",
            "allowRequestOnlyFilters");

    /** The {@code policy} parameter, trimmed, or null when the policy was given in code. */
    final String policy;
    final Integer maxExecuting;
    final String scheduling;
    final String defaultClass;
    final boolean allowRequestOnlyFilters;

    /**
     * @param policyInCode whether the filter was given a policy or a runtime in code: then {@code policy} is not
     *                     required
     * @throws PolicyException naming an unknown or bad init parameter
     */
    FilterParameters(FilterConfig config, boolean policyInCode) {
        for (String name : Collections.list(config.getInitParameterNames())) {
            if (!NAMES.contains(name)) {
                throw new PolicyException("init-param " + name, config.getInitParameter(name),
                        "unknown; the filter knows " + String.join(", ", NAMES));
            }
        }
        String p = config.getInitParameter("policy");
        if (!policyInCode && (p == null || p.isBlank())) {
            throw new PolicyException("init-param policy", String.valueOf(p), "required: a policy file "
                    + "(absolute, or relative to the web application's root directory) or classpath:name");
        }
        this.policy = policyInCode || p == null ? null : p.trim();
        String m = config.getInitParameter("maxExecuting");
        if (m != null && !m.trim().matches("[0-9]{1,9}")) {
            throw new PolicyException("init-param maxExecuting", m, "not a non-negative integer");
        }
        this.maxExecuting = m == null ? null : Integer.valueOf(m.trim());
        this.scheduling = config.getInitParameter("scheduling");
        this.defaultClass = config.getInitParameter("defaultClass");
        String allow = config.getInitParameter("allowRequestOnlyFilters");
        if (allow != null && !allow.trim().equals("true") && !allow.trim().equals("false")) {
            throw new PolicyException("init-param allowRequestOnlyFilters", allow, "must be true or false");
        }
        this.allowRequestOnlyFilters = allow != null && allow.trim().equals("true");
    }

    /** The policy file for policy.watch: null for a class-path resource. */
    Path watchedFile(ServletContext context) {
        return policy.startsWith(QosFilter.CLASSPATH_PREFIX) ? null : resolve(policy, context);
    }

    /**
     * Reads the policy with the overrides; {@code loader} finds a {@code classpath:} one (the application's, also
     * on a JMX thread).
     */
    QosPolicy read(Map<String, String> overrides, ServletContext context, ClassLoader loader) {
        if (policy.startsWith(QosFilter.CLASSPATH_PREFIX)) {
            String name = policy.substring(QosFilter.CLASSPATH_PREFIX.length());
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
        Path file = resolve(policy, context);
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

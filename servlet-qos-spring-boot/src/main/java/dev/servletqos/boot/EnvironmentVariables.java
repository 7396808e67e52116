package dev.servletqos.boot;

import dev.servletqos.policy.PolicyException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.env.StandardEnvironment;

/**
 * Policy keys set as environment variables ({@code SERVLET_QOS_MAX_EXECUTING=12}). Spring finds such a variable for
 * a property name it knows, but binding the prefix as a map cannot tell which underscores were dots and which were
 * dashes, so the variables are looked up here for every fixed key of the key table (as the configuration metadata
 * the build generates from it lists them). A {@code SERVLET_QOS_} variable that still maps to no key (a key with a
 * class name or rule number in it, or a typo) fails startup rather than being ignored.
 */
final class EnvironmentVariables {

    private static final String PREFIX = "SERVLET_QOS_";
    private static final String METADATA = "META-INF/additional-spring-configuration-metadata.json";
    /** A fixed key in the metadata: a name under the prefix whose type is not a map (a named section). */
    private static final Pattern FIXED = Pattern.compile(
            "\"name\": \"servlet-qos\\.([^\"]+)\",\\s*\"type\": \"(?!java\\.util\\.Map)");

    private EnvironmentVariables() {
    }

    /**
     * Adds to {@code keys} the fixed policy keys an environment variable sets and no other property does.
     *
     * @param ownKeys the starter's own keys (not policy keys), which the variables may also set
     * @throws PolicyException naming a {@code SERVLET_QOS_} variable that maps to no key
     */
    static void addTo(Map<String, String> keys, Environment environment, Set<String> ownKeys) {
        Binder binder = Binder.get(environment);
        for (String key : fixedKeys()) {
            if (!keys.containsKey(key)) {
                binder.bind(PolicySource.PREFIX + "." + key, String.class).ifBound(v -> keys.put(key, v));
            }
        }
        for (String variable : variables(environment)) {
            String suffix = variable.substring(PREFIX.length());
            boolean known = keys.keySet().stream().anyMatch(k -> envForm(k).equals(suffix))
                    || ownKeys.stream().anyMatch(k -> envForm(k).equals(suffix));
            if (!known) {
                throw new PolicyException("the environment variable " + variable + " sets no servlet-qos key: "
                        + "a key with a class name or a number in it (class.<name>.*, rule.<n>.*, ...) cannot be "
                        + "written as a variable. Write the key in the application's properties with the variable "
                        + "as its value, e.g. servlet-qos.class.premium.budget = ${" + variable + "}, and rename the "
                        + "variable so that it does not start with " + PREFIX);
            }
        }
    }

    /** {@code max-executing} as its variable's suffix: {@code MAX_EXECUTING}. */
    private static String envForm(String key) {
        return key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** The names of the environment's variables that start with {@value #PREFIX}. */
    private static List<String> variables(Environment environment) {
        List<String> names = new ArrayList<>();
        if (environment instanceof ConfigurableEnvironment env) {
            PropertySource<?> source = env.getPropertySources()
                    .get(StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME);
            if (source instanceof EnumerablePropertySource<?> variables) {
                for (String name : variables.getPropertyNames()) {
                    if (name.startsWith(PREFIX)) {
                        names.add(name);
                    }
                }
            }
        }
        return names;
    }

    /** The fixed policy keys, from the metadata generated from the key table (SpringMetadataTest). */
    static List<String> fixedKeys() {
        List<String> keys = new ArrayList<>();
        try {
            Enumeration<URL> files = EnvironmentVariables.class.getClassLoader().getResources(METADATA);
            while (files.hasMoreElements()) {
                try (InputStream in = files.nextElement().openStream()) {
                    Matcher m = FIXED.matcher(new String(in.readAllBytes(), StandardCharsets.UTF_8));
                    while (m.find()) {
                        keys.add(m.group(1));
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + METADATA, e);
        }
        return keys;
    }
}

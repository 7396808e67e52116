package dev.servletqos.boot;

import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.runtime.QosRuntime;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.Environment;
import org.springframework.core.env.PropertySource;
import org.springframework.core.io.Resource;
import org.springframework.core.io.ResourceLoader;

/**
 * Where the starter's policy comes from: the {@code servlet-qos.*} properties that are policy keys (every key of
 * docs/configuration.md, under the prefix), over an optional policy file ({@code servlet-qos.policy}), plus the
 * exemption of Actuator's paths. The properties are handed to {@link PolicyParser} as they are, so that one parser
 * checks them and a bad value fails naming its key; {@link PolicyFailureAnalyzer} puts the prefix back in front.
 *
 * <p>Read once at startup (the properties) and at each reload (the file). Thread-safe once built.
 */
final class PolicySource {

    /** The prefix of every property the starter reads. */
    static final String PREFIX = "servlet-qos";

    /** Where the parser's messages say the keys came from; {@link PolicyFailureAnalyzer} recognises it. */
    static final String ORIGIN = "servlet-qos.* properties";

    /**
     * The exempt rule number the starter uses for Actuator's paths: high, so that the rules a policy numbers itself
     * keep theirs. Exempt rules are all tried before anything else; their order does not matter.
     */
    static final int ACTUATOR_EXEMPT_RULE = 999_999_999;

    /** The starter's own keys under the prefix ({@link QosProperties}); never policy keys. */
    private static final Set<String> OWN_KEYS = Set.of("enabled", "adapter", "policy", "exempt-actuator",
            "request-only-filters");
    private static final String OWN_PREFIX = "jmx.";
    /** The starter's own keys as environment variables may set them. */
    private static final Set<String> OWN_VARIABLES = Set.of("enabled", "adapter", "policy", "exempt-actuator",
            "request-only-filters", "jmx.enabled", "jmx.domain");

    /** A list element as YAML and indexed properties bind into a map: {@code classes.0} (or {@code classes[0]}). */
    private static final Pattern INDEXED = Pattern.compile("(.+?)(?:\\[(\\d+)]|\\.(\\d+))");

    /** The policy file's references to the environment and system properties, which Spring would resolve first. */
    private static final Pattern PARSER_REFERENCE = Pattern.compile("\\$\\{(env|sys):([^}]*)}");

    private final Map<String, String> keys;
    private final Resource file;
    private final String location;

    private PolicySource(Map<String, String> keys, Resource file, String location) {
        this.keys = keys;
        this.file = file;
        this.location = location;
    }

    /**
     * The policy keys of {@code environment} and the policy file its {@code servlet-qos.policy} names, if any.
     *
     * @param exemptPaths paths to exempt from admission (Actuator's), or empty
     * @throws PolicyException if the file named does not exist
     */
    static PolicySource of(Environment environment, ResourceLoader resources, String policy,
                           List<String> exemptPaths) {
        Map<String, String> keys = policyKeys(environment);
        if (!exemptPaths.isEmpty()) {
            String rule = "exempt." + ACTUATOR_EXEMPT_RULE + ".paths";
            keys.putIfAbsent(rule, String.join(", ", exemptPaths));
        }
        Resource file = null;
        if (policy != null && !policy.isBlank()) {
            file = resources.getResource(policy.trim());
            if (!file.exists()) {
                throw new PolicyException("policy", policy, "no such resource (a location such as "
                        + "classpath:qos.properties or file:/etc/servlet-qos/qos.properties)");
            }
        }
        return new PolicySource(keys, file, policy);
    }

    /** The {@code servlet-qos.*} properties that are policy keys, without the prefix, lists joined by commas. */
    static Map<String, String> policyKeys(Environment environment) {
        refuseParserReferences(environment);
        Map<String, String> bound = Binder.get(environment)
                .bind(PREFIX, Bindable.mapOf(String.class, String.class)).orElse(Map.of());
        Map<String, String> keys = new TreeMap<>();
        Map<String, TreeMap<Integer, String>> lists = new TreeMap<>();
        for (Map.Entry<String, String> e : bound.entrySet()) {
            String key = e.getKey();
            if (OWN_KEYS.contains(key) || key.startsWith(OWN_PREFIX)) {
                continue;
            }
            Matcher m = INDEXED.matcher(key);
            if (m.matches()) {
                String index = m.group(2) != null ? m.group(2) : m.group(3);
                lists.computeIfAbsent(m.group(1), k -> new TreeMap<>()).put(Integer.valueOf(index), e.getValue());
            } else {
                keys.put(key, e.getValue() == null ? "" : e.getValue());
            }
        }
        lists.forEach((k, v) -> keys.put(k, String.join(", ", v.values())));
        EnvironmentVariables.addTo(keys, environment, OWN_VARIABLES);
        return keys;
    }

    /**
     * Fails on a value written {@code ${env:NAME}} (the policy file's syntax for secrets): Spring resolves it first,
     * as the property {@code env} with the default {@code NAME}, so the parser would get the text {@code NAME} as
     * the value, a secret everyone knows.
     *
     * @throws PolicyException naming the key and the Spring form to write instead
     */
    private static void refuseParserReferences(Environment environment) {
        if (!(environment instanceof ConfigurableEnvironment env)) {
            return;
        }
        for (PropertySource<?> source : env.getPropertySources()) {
            if (!(source instanceof EnumerablePropertySource<?> names)) {
                continue;
            }
            for (String name : names.getPropertyNames()) {
                if (!name.startsWith(PREFIX + ".")) {
                    continue;
                }
                Object raw = names.getProperty(name);
                Matcher m = raw == null ? null : PARSER_REFERENCE.matcher(raw.toString());
                if (m != null && m.find()) {
                    throw new PolicyException(name.substring(PREFIX.length() + 1), raw.toString(), "Spring reads "
                            + "${" + m.group(1) + ":" + m.group(2) + "} as the property '" + m.group(1)
                            + "' with the default '" + m.group(2) + "': write ${" + m.group(2) + "} (an environment "
                            + "variable or any Spring property) instead");
                }
            }
        }
    }

    /** Gives {@code builder} this policy: re-read (the file) at each reload, with the runtime's overrides. */
    QosRuntime.Builder applyTo(QosRuntime.Builder builder) {
        Path watch = watchable();
        String origin = file == null ? "policy from " + ORIGIN : "policy " + location + " under " + ORIGIN;
        return builder.policyReader(this::read, watch, origin);
    }

    /** The policy now: the file's keys, then the properties', then the runtime's overrides. */
    QosPolicy read(Map<String, String> overrides) {
        Map<String, String> merged = new LinkedHashMap<>(keys);
        merged.putAll(overrides);
        if (file == null) {
            Properties props = new Properties();
            props.putAll(merged);
            return PolicyParser.parse(props, ORIGIN);
        }
        try (InputStream in = file.getInputStream()) {
            return PolicyParser.read(in, location, merged);
        } catch (IOException e) {
            throw new PolicyException("policy", location, "cannot be read: " + e);
        }
    }

    /** The policy file on the file system, for {@code policy.watch}; null for a class path resource or none. */
    private Path watchable() {
        if (file == null || !file.isFile()) {
            return null;
        }
        try {
            return file.getFile().toPath();
        } catch (IOException e) {
            return null;
        }
    }
}

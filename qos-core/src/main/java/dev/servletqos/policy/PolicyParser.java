package dev.servletqos.policy;

import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads a {@link QosPolicy} from a Java properties file. Every key, its type, default, unit and range is
 * described once, in the key table ({@code PolicyKeys}), which {@code docs/configuration.md} follows; only
 * {@code classes} is required.
 *
 * <p>The parser only turns text into values and reports what does not parse: keys not in the table (with the
 * nearest valid key when there is an obvious one), keys of classes not listed in {@code classes}, malformed
 * numbers, durations, booleans, names and enums. Ranges and cross-references are checked by
 * {@link QosPolicy.Builder#build()}; its {@link PolicyException} is rethrown with the source prepended. Every message has the form
 * {@code source: key = value: reason}; the values of secret keys ({@code tier-cookie.secret},
 * {@code tier-cookie.previous-secret}) are shown as {@code (hidden)}.
 *
 * <p>Value syntax: values are trimmed; integers are optional {@code -} and decimal digits; decimals add an
 * optional {@code .digits}; booleans are {@code true} or {@code false}; durations are a whole number with a
 * unit ({@code 250ms}, {@code 5s}, {@code 10m}, {@code 2h}, {@code 30d}) or ISO-8601 ({@code PT5S}); lists
 * are comma-separated. A whole value of the form {@code ${env:NAME}} or {@code ${sys:NAME}} is replaced by
 * the environment variable or system property NAME, meant for secrets that do not belong in the file.
 *
 * <p>Stateless and thread-safe.
 */
public final class PolicyParser {

    /** Keys whose values are hidden in messages and used untrimmed. */
    private static final Set<String> SECRET_KEYS = secretKeys();
    private static final String HIDDEN = "(hidden)";
    private static final String UNSET = "(unset)";

    private static final Pattern RULE_NUMBER = Pattern.compile("[1-9][0-9]{0,8}");
    private static final Pattern CONTENT_LEVEL = Pattern.compile("[1-9][0-9]?");
    private static final Pattern REFERENCE = Pattern.compile("\\$\\{(env|sys):([A-Za-z0-9_.\\-]+)}");

    /** Resolves {@code env:NAME} and {@code sys:NAME} against the real environment and system properties. */
    private static final Function<String, String> SYSTEM_VARIABLES = ref -> ref.startsWith("env:")
            ? System.getenv(ref.substring(4))
            : System.getProperty(ref.substring(4));

    private final String source;
    private final Function<String, String> variables;
    /** Trimmed keys to trimmed, not yet resolved values, sorted so that the first error is always the same. */
    private final Map<String, String> raw = new TreeMap<>();

    private PolicyParser(String source, Function<String, String> variables) {
        this.source = source;
        this.variables = variables;
    }

    /**
     * Reads and parses a policy file (UTF-8 properties).
     *
     * @throws PolicyException if the file cannot be read (the message names the path and the reason), a key
     *                         appears twice, or the policy is invalid
     */
    public static QosPolicy load(Path file) {
        return load(file, Map.of(), SYSTEM_VARIABLES);
    }

    /**
     * Reads a policy file and parses it with some keys replaced by {@code overrides} (what an adapter's own
     * configuration, such as a valve attribute or a filter init-param, sets over the file).
     *
     * @throws PolicyException as {@link #load(Path)}
     */
    public static QosPolicy load(Path file, Map<String, String> overrides) {
        return load(file, overrides, SYSTEM_VARIABLES);
    }

    /** {@link #load(Path)} with {@code ${env:..}} and {@code ${sys:..}} resolved by {@code variables}. */
    static QosPolicy load(Path file, Function<String, String> variables) {
        return load(file, Map.of(), variables);
    }

    private static QosPolicy load(Path file, Map<String, String> overrides, Function<String, String> variables) {
        Properties props = PolicyFiles.read(file.toString(),
                () -> Files.newBufferedReader(file, StandardCharsets.UTF_8));
        return parse(withOverrides(props, overrides), file.toString(), variables);
    }

    /**
     * Reads policy properties from a stream (UTF-8; e.g. a class path resource) and parses them with
     * {@code overrides} applied; the stream is closed.
     *
     * @param source where the stream comes from, for messages
     * @throws PolicyException as {@link #load(Path)}
     */
    public static QosPolicy read(InputStream in, String source, Map<String, String> overrides) {
        Properties props = PolicyFiles.read(source, () -> new InputStreamReader(in, StandardCharsets.UTF_8));
        return parse(withOverrides(props, overrides), source, SYSTEM_VARIABLES);
    }

    /**
     * The overrides every adapter offers over the file (the valve's attributes, the filter's init-params, the
     * Jetty handler's setters), under their policy keys; null values are left out.
     *
     * @param maxExecuting for {@code max-executing}, or null
     * @param scheduling   for {@code scheduling}, or null
     * @param defaultClass for {@code default-class}, or null
     */
    public static Map<String, String> adapterOverrides(Object maxExecuting, String scheduling, String defaultClass) {
        Map<String, String> m = new HashMap<>();
        if (maxExecuting != null) {
            m.put("max-executing", maxExecuting.toString().trim());
        }
        if (scheduling != null) {
            m.put("scheduling", scheduling);
        }
        if (defaultClass != null) {
            m.put("default-class", defaultClass);
        }
        return m;
    }

    private static Properties withOverrides(Properties fromFile, Map<String, String> overrides) {
        if (overrides.isEmpty()) {
            return fromFile;
        }
        Properties merged = new Properties();
        merged.putAll(fromFile);
        overrides.forEach((k, v) -> {
            if (v != null) {
                merged.setProperty(k, v.trim());
            }
        });
        return merged;
    }

    /**
     * Parses policy properties.
     *
     * @param props  the keys and values; non-string entries are an error
     * @param source where they came from (a file name), prepended to error messages; may be null
     * @throws PolicyException naming the source, key, value and reason of the first problem found
     */
    public static QosPolicy parse(Properties props, String source) {
        return parse(props, source, SYSTEM_VARIABLES);
    }

    /**
     * {@link #parse(Properties, String)} with references resolved by {@code variables}, which is given
     * {@code env:NAME} or {@code sys:NAME} and returns the value or null when it is not set. The seam lets
     * tests supply secrets without touching the real environment.
     */
    static QosPolicy parse(Properties props, String source, Function<String, String> variables) {
        PolicyParser p = new PolicyParser(source, variables);
        for (Map.Entry<Object, Object> e : props.entrySet()) {
            if (!(e.getKey() instanceof String) || !(e.getValue() instanceof String)) {
                throw p.error(String.valueOf(e.getKey()), "(not a string)", "keys and values must be strings");
            }
        }
        for (String key : props.stringPropertyNames()) {
            p.raw.put(key.trim(), props.getProperty(key).trim());
        }
        return p.parse();
    }

    private QosPolicy parse() {
        if (!raw.containsKey(PolicyKeys.CLASSES.name())) {
            throw error(PolicyKeys.CLASSES.name(), UNSET, "required: the service classes, highest priority first,"
                    + " e.g. classes = premium, basic");
        }
        List<String> classNames = parsed(PolicyKeys.CLASSES);
        for (String name : classNames) {
            try {
                ClassPolicy.named(name);
            } catch (IllegalArgumentException e) {
                throw error(PolicyKeys.CLASSES.name(), raw.get(PolicyKeys.CLASSES.name()), e.getMessage());
            }
        }
        TreeSet<Integer> ruleNumbers = new TreeSet<>();
        TreeSet<Integer> contentLevels = new TreeSet<>();
        TreeSet<String> bucketNames = new TreeSet<>();
        TreeSet<String> vhostNames = new TreeSet<>();
        TreeSet<Integer> exemptNumbers = new TreeSet<>();
        for (String key : raw.keySet()) {
            if (exemptNumber(key, exemptNumbers)
                    || named(key, PolicyKeys.BUCKET, "bucket.", bucketNames, BucketPolicy::named)
                    || named(key, PolicyKeys.VHOST, "vhost.", vhostNames, VirtualServerPolicy::named)
                    || inSection(key, PolicyKeys.BUCKETS) || inSection(key, PolicyKeys.VHOSTS)) {
                continue;
            }
            checkKey(key, classNames, ruleNumbers, contentLevels);
        }

        QosPolicy.Builder b = applyAll(PolicyKeys.GLOBAL, null, QosPolicy.builder());
        b.cookies(applyAll(PolicyKeys.SESSION_COOKIE, null, applyAll(PolicyKeys.TIER_COOKIE, null,
                CookiePolicy.DEFAULTS)));
        b.sessionTable(applyAll(PolicyKeys.SESSION_TABLE, null, SessionTablePolicy.DEFAULTS));
        b.admission(applyAll(PolicyKeys.ADMISSION, null, AdmissionLimits.DEFAULTS));
        ContentPolicy content = applyAll(PolicyKeys.CONTENT_PATHS, null, ContentPolicy.NONE);
        b.streams(applyAll(PolicyKeys.STREAMS, null, StreamsPolicy.DEFAULTS));
        b.cluster(applyAll(PolicyKeys.CLUSTER, null, ClusterPolicy.DEFAULTS));
        b.control(applyAll(PolicyKeys.CONTROL, null, ControlPolicy.DEFAULTS));
        for (String name : classNames) {
            b.replaceClass(applyAll(PolicyKeys.CLASS, name, ClassPolicy.named(name)));
        }
        for (int level : contentLevels) {
            ContentTrees.Tree t = applyAll(PolicyKeys.CONTENT, Integer.toString(level), new ContentTrees.Tree(level,
                    null));
            content = content.withPrefix(level, t.prefix());
        }
        b.content(content);
        b.bucketControl(applyAll(PolicyKeys.BUCKETS, null, BucketControl.DEFAULTS));
        for (String name : bucketNames) {
            b.addBucket(applyAll(PolicyKeys.BUCKET, name, BucketPolicy.named(name)));
        }
        b.virtualServerPlan(applyAll(PolicyKeys.VHOSTS, null, VirtualServerPlan.DEFAULTS));
        for (String name : vhostNames) {
            b.addVirtualServer(applyAll(PolicyKeys.VHOST, name, VirtualServerPolicy.named(name)));
        }
        for (int n : exemptNumbers) {
            ExemptRule e = applyAll(PolicyKeys.EXEMPT, Integer.toString(n), ExemptRule.EMPTY);
            String k = "exempt." + n;
            if (e.isEmpty()) {
                throw error(k + ".paths", UNSET, "an exempt rule needs at least one of " + k + ".paths, " + k
                        + ".methods, " + k + ".addresses with a value (it would exempt every request)");
            }
            b.addExempt(e);
        }
        List<Integer> fileNumbers = new ArrayList<>(ruleNumbers);
        for (int n : fileNumbers) {
            b.addRule(rule(n, classNames));
        }
        try {
            return b.build();
        } catch (PolicyException e) {
            throw located(e, fileNumbers);
        }
    }

    /**
     * Whether {@code key} is one of a named entry's ({@code bucket.<name>.rate}), recording the name; fails on a
     * bad name or a key the section lacks.
     */
    private boolean named(String key, PolicyKeys.Section<?> section, String start, Set<String> names,
                          Function<String, ?> check) {
        if (!key.startsWith(start)) {
            return false;
        }
        int dot = key.indexOf('.', start.length());
        String name = dot < 0 ? key.substring(start.length()) : key.substring(start.length(), dot);
        String rest = dot < 0 ? "" : key.substring(dot + 1);
        try {
            check.apply(name);
        } catch (IllegalArgumentException e) {
            throw error(key, raw.get(key), e.getMessage());
        }
        if (section.find(rest) == null) {
            throw unknownKey(key, section.names(name), "its keys are " + section.suffixes());
        }
        names.add(name);
        return true;
    }

    /** Whether {@code key} is an exempt rule's ({@code exempt.<n>.paths}), recording {@code n}; fails on a bad key. */
    private boolean exemptNumber(String key, Set<Integer> numbers) {
        if (!key.startsWith("exempt.")) {
            return false;
        }
        int dot = key.indexOf('.', 7);
        String number = dot < 0 ? key.substring(7) : key.substring(7, dot);
        String rest = dot < 0 ? "" : key.substring(dot + 1);
        if (!RULE_NUMBER.matcher(number).matches()) {
            throw error(key, raw.get(key), "the exempt rule number must be a positive integer without leading zeros"
                    + " (exempt.1, exempt.2, ...)");
        }
        if (PolicyKeys.EXEMPT.find(rest) == null) {
            throw unknownKey(key, PolicyKeys.EXEMPT.names(number), "exempt rule keys are "
                    + PolicyKeys.EXEMPT.suffixes());
        }
        numbers.add(Integer.parseInt(number));
        return true;
    }

    /** Whether {@code key} is of a section without names ({@code buckets.law}); fails on a key it lacks. */
    private boolean inSection(String key, PolicyKeys.Section<?> section) {
        if (!key.startsWith(section.prefix())) {
            return false;
        }
        if (section.find(key.substring(section.prefix().length())) == null) {
            throw unknownKey(key, section.names(null), "its keys are " + section.suffixes());
        }
        return true;
    }

    /** Fails on a key that is not in the key table; records rule numbers and content levels. */
    private void checkKey(String key, List<String> classNames, Set<Integer> ruleNumbers, Set<Integer> contentLevels) {
        for (PolicyKeys.Section<?> plain : PolicyKeys.PLAIN) {
            if (key.startsWith(plain.prefix()) && plain.find(key.substring(plain.prefix().length())) != null) {
                return;
            }
        }
        if (key.startsWith("content.")) {
            int dot = key.indexOf('.', 8);
            String level = dot < 0 ? key.substring(8) : key.substring(8, dot);
            String rest = dot < 0 ? "" : key.substring(dot + 1);
            if (!CONTENT_LEVEL.matcher(level).matches()) {
                throw unknownKey(key, plainNames(), "content keys are content.paths and "
                        + "content.<level>.prefix with a level 1.." + (ClassPolicy.Content.MAX_LEVELS - 1));
            }
            if (PolicyKeys.CONTENT.find(rest) == null) {
                throw unknownKey(key, PolicyKeys.CONTENT.names(level),
                        "content level keys are " + PolicyKeys.CONTENT.suffixes());
            }
            contentLevels.add(Integer.parseInt(level));
            return;
        }
        String control = PolicyKeys.CONTROL.prefix();
        if (key.startsWith(control)) {
            if (PolicyKeys.CONTROL.find(key.substring(control.length())) == null) {
                throw unknownKey(key, PolicyKeys.CONTROL.names(null),
                        "controller keys are " + String.join(", ", PolicyKeys.CONTROL.names(null)));
            }
            return;
        }
        if (key.startsWith("class.")) {
            int dot = key.indexOf('.', 6);
            String name = dot < 0 ? key.substring(6) : key.substring(6, dot);
            String rest = dot < 0 ? "" : key.substring(dot + 1);
            if (!classNames.contains(name)) {
                List<String> candidates = new ArrayList<>();
                for (String c : classNames) {
                    candidates.add("class." + c + "." + rest);
                }
                String near = KeySuggestions.nearest(key, candidates);
                throw error(key, raw.get(key), "class " + name + " is not listed in classes (" + String.join(", ",
                        classNames) + ")" + (near != null ? "; did you mean " + near + "?" : ""));
            }
            if (PolicyKeys.CLASS.find(rest) == null) {
                throw unknownKey(key, PolicyKeys.CLASS.names(name),
                        "per-class keys are " + PolicyKeys.CLASS.suffixes());
            }
            return;
        }
        if (key.startsWith("rule.")) {
            int dot = key.indexOf('.', 5);
            String number = dot < 0 ? key.substring(5) : key.substring(5, dot);
            String rest = dot < 0 ? "" : key.substring(dot + 1);
            if (!RULE_NUMBER.matcher(number).matches()) {
                throw error(key, raw.get(key), "the rule number must be a positive integer without leading zeros"
                        + " (rule.1, rule.2, rule.10, ...)");
            }
            if (PolicyKeys.RULE.find(rest) == null) {
                throw unknownKey(key, PolicyKeys.RULE.names(number),
                        "rule keys are " + PolicyKeys.RULE.suffixes());
            }
            ruleNumbers.add(Integer.parseInt(number));
            return;
        }
        List<String> candidates = plainNames();
        candidates.addAll(PolicyKeys.CONTROL.names(null));
        for (String c : classNames) {
            candidates.addAll(PolicyKeys.CLASS.names(c));
        }
        throw unknownKey(key, candidates, "see docs/configuration.md for the keys");
    }

    private PolicyException unknownKey(String key, List<String> candidates, String otherwise) {
        String near = KeySuggestions.nearest(key, candidates);
        return error(key, raw.get(key), "unknown key; " + (near != null ? "did you mean " + near + "?" : otherwise));
    }

    /**
     * Applies every key of a section that the file gives, in table order.
     *
     * @param id the class name or rule number of a {@code class.<name>.} or {@code rule.<n>.} section
     */
    private <S> S applyAll(PolicyKeys.Section<S> section, String id, S subject) {
        String prefix = id == null ? section.prefix() : section.prefix(id);
        for (Key<S, ?> key : section.keys()) {
            String fileKey = prefix + key.name();
            String v = value(fileKey);
            if (v != null) {
                try {
                    subject = key.apply(subject, v);
                } catch (PolicyException e) {
                    throw e;
                } catch (IllegalArgumentException e) {
                    throw error(fileKey, v, e.getMessage());
                }
            }
        }
        return subject;
    }

    /** The value of a policy-wide key the file gives, parsed by its row. */
    private <T> T parsed(Key<QosPolicy.Builder, T> key) {
        String v = value(key.name());
        try {
            return key.type().parse(v);
        } catch (IllegalArgumentException e) {
            throw error(key.name(), v, e.getMessage());
        }
    }

    private Rule rule(int n, List<String> classNames) {
        String k = PolicyKeys.RULE.prefix(Integer.toString(n));
        if (!raw.containsKey(k + "type")) {
            throw error(k + "type", UNSET, "required: one of " + PolicyKeys.RULE_TYPE.type().choiceList());
        }
        Rule r = applyAll(PolicyKeys.RULE, Integer.toString(n), new Rule(null, List.of(), null, null));
        Rule.Type type = r.type();
        if (type == Rule.Type.TIER_COOKIE) {
            // the class is the one signed into the cookie; a class or value here would be silently ignored
            unused(k + "class", "a tier-cookie rule takes its class from the cookie");
            unused(k + "value", "a tier-cookie rule has no value");
            unused(k + "header", "only header rules name a header");
            unused(k + "trusted", "a tier-cookie rule is a credential already");
            return r;
        }
        if (type == Rule.Type.IP) {
            unused(k + "trusted", "an ip rule is a credential already");
        }
        if (type != Rule.Type.HEADER) {
            unused(k + "header", "only header rules name a header");
        }
        if (r.serviceClass() == null) {
            throw error(k + "class", UNSET, "required for a " + type.key() + " rule: one of "
                    + String.join(", ", classNames));
        }
        if (type == Rule.Type.HEADER && r.header() == null) {
            throw error(k + "header", UNSET, "required for a header rule: the name of the request header");
        }
        if (type != Rule.Type.HEADER && !raw.containsKey(k + "value")) {
            throw error(k + "value", UNSET, "required for a " + type.key() + " rule");
        }
        return r;
    }

    private void unused(String key, String reason) {
        if (raw.containsKey(key)) {
            throw error(key, raw.get(key), "not used: " + reason + "; remove this key");
        }
    }

    // ---- values

    /** The trimmed value with a {@code ${env:..}} or {@code ${sys:..}} reference resolved, or null if absent. */
    private String value(String key) {
        String v = raw.get(key);
        if (v == null || !v.startsWith("${")) {
            return v;
        }
        Matcher m = REFERENCE.matcher(v);
        if (!m.matches()) {
            throw error(key, raw.get(key), "not a valid reference; write ${env:NAME} or ${sys:NAME}");
        }
        boolean env = m.group(1).equals("env");
        String resolved = variables.apply(m.group(1) + ":" + m.group(2));
        if (resolved == null) {
            throw error(key, raw.get(key), (env ? "environment variable " : "system property ") + m.group(2)
                    + " is not set");
        }
        // a secret is used byte for byte, whatever surrounds it; other values are trimmed like the file's
        return SECRET_KEYS.contains(key) ? resolved : resolved.trim();
    }

    // ---- errors

    private static boolean isSecret(String key) {
        return SECRET_KEYS.contains(key) || key.toLowerCase(Locale.ROOT).contains("secret");
    }

    /** The one place a message is made from a value: secrets show as (hidden). */
    private PolicyException error(String key, String value, String reason) {
        return located(key, key + " = " + (isSecret(key) ? HIDDEN : value) + ": " + reason);
    }

    /**
     * Build() numbers rules by position (rule.1, rule.2, ...); the file numbers them freely (rule.5, rule.10).
     * Its key is mapped back to the file's number so that the message points at the right lines.
     */
    private PolicyException located(PolicyException e, List<Integer> fileNumbers) {
        String key = e.key();
        String message = e.getMessage();
        if (key != null && key.startsWith("rule.")) {
            int dot = key.indexOf('.', 5);
            try {
                int position = Integer.parseInt(dot < 0 ? key.substring(5) : key.substring(5, dot));
                String fileKey = "rule." + fileNumbers.get(position - 1) + (dot < 0 ? "" : key.substring(dot));
                if (message.startsWith(key)) {
                    message = fileKey + message.substring(key.length());
                }
                key = fileKey;
            } catch (NumberFormatException | IndexOutOfBoundsException ignored) {
                // not a positional rule key: keep it as it is
            }
        }
        return located(key, message);
    }

    /** The exception for a problem with {@code key}, its message prefixed with the source; the key is kept. */
    private PolicyException located(String key, String message) {
        PolicyException plain = new PolicyException(message);
        if (key != null && message.startsWith(key + " = ")) {
            int colon = message.indexOf(": ", key.length() + 3);
            if (colon > 0) {
                plain = new PolicyException(key, message.substring(key.length() + 3, colon),
                        message.substring(colon + 2));
            }
        }
        return source == null ? plain : plain.in(source);
    }

    private static Set<String> secretKeys() {
        Set<String> keys = new HashSet<>();
        for (PolicyKeys.Section<?> plain : PolicyKeys.PLAIN) {
            for (Key<?, ?> k : plain.keys()) {
                if (k.type().secret()) {
                    keys.add(plain.prefix() + k.name());
                }
            }
        }
        return Set.copyOf(keys);
    }

    /** The keys without an id, in table order: the policy builder's and those of each record's section. */
    private static List<String> plainNames() {
        List<String> names = new ArrayList<>();
        for (PolicyKeys.Section<?> plain : PolicyKeys.PLAIN) {
            names.addAll(plain.names(null));
        }
        return names;
    }
}

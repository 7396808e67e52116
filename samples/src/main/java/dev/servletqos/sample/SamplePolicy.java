package dev.servletqos.sample;

import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.regex.Pattern;

/** The shop's default policy, bundled as a classpath resource, and loading of a policy file. */
public final class SamplePolicy {

    /** The bundled default policy. */
    public static final String RESOURCE = "/dev/servletqos/sample/qos-sample.properties";
    /** The policy tuned by hand for the shop's workload (max-executing, triggers, budgets), bundled beside it. */
    public static final String TUNED_RESOURCE = "/dev/servletqos/sample/qos-sample-tuned.properties";

    private SamplePolicy() {
    }

    private static String text(String resource) {
        try (InputStream in = SamplePolicy.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /**
     * The policy in {@code file}, or the bundled default when {@code file} is null.
     *
     * @throws PolicyException naming the file, key, value and reason of the first problem
     */
    public static QosPolicy load(Path file) {
        if (file != null) {
            return PolicyParser.load(file);
        }
        return Bundled.POLICY;
    }

    /** The bundled default, parsed once (a policy is immutable): the Tomcat shop compares with it at each start. */
    private static final class Bundled {
        static final QosPolicy POLICY = bundled(RESOURCE);
    }

    /**
     * Writes the bundled hand-tuned policy ({@link #TUNED_RESOURCE}) into {@code dir} and returns the file: the
     * Tomcat valve reads its policy from a file, as it does from server.xml.
     */
    public static Path writeTuned(Path dir) throws IOException {
        return write(TUNED_RESOURCE, dir);
    }

    /** A line giving {@code control.degradation} (a properties key ends at '=', ':' or white space). */
    private static final Pattern DEGRADATION_LINE =
            Pattern.compile("(?m)^[ \\t\\f]*control\\.degradation(?=[ \\t\\f]*[=:\\s]).*$");

    /** The file name {@link #writeWithoutDegradation} writes. */
    public static final String NO_DEGRADATION_FILE = "qos-sample-no-degradation.properties";

    /**
     * Writes the policy in {@code policy} (the bundled default when null) into {@code dir} as
     * {@value #NO_DEGRADATION_FILE}, its {@code control.degradation} line commented out and
     * {@code control.degradation = none} appended: the same policy without its degradation law, for the demo to
     * compare with.
     */
    public static Path writeWithoutDegradation(Path policy, Path dir) throws IOException {
        String text = policy == null ? text(RESOURCE) : Files.readString(policy, StandardCharsets.UTF_8);
        // a key may be given once: the policy's own control.degradation line is commented out
        text = DEGRADATION_LINE.matcher(text).replaceAll("# (the demo's comparison) $0");
        Files.createDirectories(dir);
        Path file = dir.resolve(NO_DEGRADATION_FILE);
        Files.writeString(file, text + (text.endsWith("\n") ? "" : "\n")
                + "\n# written by the demo: the policy above without its degradation law, to compare with\n"
                + "control.degradation = none\n", StandardCharsets.UTF_8);
        return file;
    }

    /** Writes a bundled policy ({@link #RESOURCE} or {@link #TUNED_RESOURCE}) into {@code dir} under its name. */
    public static Path write(String resource, Path dir) throws IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(resource.substring(resource.lastIndexOf('/') + 1));
        Files.writeString(file, text(resource), StandardCharsets.UTF_8);
        return file;
    }

    private static QosPolicy bundled(String resource) {
        Properties props = new Properties();
        try {
            props.load(new StringReader(text(resource)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return PolicyParser.parse(props, "classpath:" + resource.substring(1));
    }
}

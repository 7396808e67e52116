package dev.servletqos.sample;

import dev.servletqos.policy.PolicyException;
import dev.servletqos.policy.PolicyParser;
import dev.servletqos.policy.QosPolicy;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;

/** The shop's default policy, bundled as a classpath resource, and loading of a policy file. */
public final class SamplePolicy {

    /** The bundled default policy. */
    public static final String RESOURCE = "/dev/servletqos/sample/qos-sample.properties";

    private SamplePolicy() {
    }

    /** The text of the bundled default policy. */
    public static String defaultText() {
        try (InputStream in = SamplePolicy.class.getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException("missing resource " + RESOURCE);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + RESOURCE, e);
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
        Properties props = new Properties();
        try {
            props.load(new StringReader(defaultText()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return PolicyParser.parse(props, "classpath:" + RESOURCE.substring(1));
    }
}

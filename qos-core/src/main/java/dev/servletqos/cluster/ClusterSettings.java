package dev.servletqos.cluster;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Live settings an operator publishes once for every node of a cluster: the policy's own key names for the settings
 * that can change at run time ({@link #KEYS}), one {@code key=value} a line. Each node applies them through its
 * engine's settings seam; a key naming a class or bucket the node does not have is left out there.
 */
public final class ClusterSettings {

    /** The keys that may be published, as patterns: {@code <name>} is a class's or a bucket's name. */
    public static final String KEYS = "max-executing, class.<name>.budget, class.<name>.session-rate, "
            + "class.<name>.session-burst, bucket.<name>.rate";

    private ClusterSettings() {
    }

    /** The settings as text. */
    public static String encode(Map<String, String> settings) {
        StringBuilder b = new StringBuilder();
        settings.forEach((k, v) -> b.append(k.trim()).append('=').append(v.trim()).append('\n'));
        return b.toString();
    }

    /** The settings {@link #encode} wrote, in order; lines without {@code =} are skipped. */
    public static Map<String, String> decode(String text) {
        Map<String, String> m = new LinkedHashMap<>();
        if (text != null) {
            for (String line : text.split("\n")) {
                int eq = line.indexOf('=');
                if (eq > 0) {
                    m.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
                }
            }
        }
        return m;
    }
}

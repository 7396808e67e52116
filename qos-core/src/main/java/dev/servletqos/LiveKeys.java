package dev.servletqos;

import dev.servletqos.cluster.ClusterSettings;

/**
 * The live keys a cluster may publish ({@link ClusterSettings#KEYS}), each applied to a settings value for
 * {@link ClusterLink}: a pure function, no state. A key naming a class or bucket this engine lacks fails with a message
 * starting {@link #UNKNOWN}, so that a node of another policy can skip it.
 */
final class LiveKeys {

    /** How the message of a key this engine lacks starts. */
    static final String UNKNOWN = "unknown here: ";

    private LiveKeys() {
    }

    /**
     * {@code s} with live key {@code k} set to {@code v}.
     *
     * @throws IllegalArgumentException naming the key and value, for a key that is not live or a value out of range
     * @throws NumberFormatException    for a value that is not a number
     */
    static Settings apply(Settings s, String k, String v) {
        if (k.equals("max-executing")) {
            return s.withMaxExecuting(Integer.parseInt(v));
        }
        String[] p = k.split("\\.");
        if (p.length == 3 && p[0].equals("class")) {
            int i = classIndex(s, p[1]);
            if (i < 0) {
                throw new IllegalArgumentException(UNKNOWN + k);
            }
            Settings.ClassSettings c = s.get(i);
            return switch (p[2]) {
                case "budget" -> s.withClass(i, c.withBudget(Integer.parseInt(v)));
                case "session-rate" -> {
                    double r = Double.parseDouble(v);
                    check(r >= 0 && r <= 1e9, k, v, "must be 0 (no limit)..1e9");
                    yield s.withClass(i, c.withSessionRate(r, (int) Math.max(1, Math.ceil(r))));
                }
                case "session-burst" -> s.withClass(i, c.withSessionRate(c.sessionRate(), Integer.parseInt(v)));
                default -> throw new IllegalArgumentException(k + ": not a live key; live keys are "
                        + ClusterSettings.KEYS);
            };
        }
        if (p.length == 3 && p[0].equals("bucket") && p[2].equals("rate")) {
            int i = s.bucketIndex(p[1]);
            if (i < 0) {
                throw new IllegalArgumentException(UNKNOWN + k);
            }
            double r = Double.parseDouble(v);
            check(r > 0 && r <= 1e9, k, v, "must be more than 0, at most 1e9");
            return s.withBucketRate(i, r);
        }
        throw new IllegalArgumentException(k + ": not a live key; live keys are " + ClusterSettings.KEYS);
    }

    private static int classIndex(Settings s, String name) {
        for (int i = 0; i < s.classes().size(); i++) {
            if (s.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }

    private static void check(boolean ok, String k, String v, String reason) {
        if (!ok) {
            throw new IllegalArgumentException(k + " = " + v + ": " + reason);
        }
    }
}

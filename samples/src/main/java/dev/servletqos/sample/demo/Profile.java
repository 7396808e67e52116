package dev.servletqos.sample.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The load profile of one demo run: phases in order, each with a duration and an offered load as a
 * multiple of the shop's capacity. Written {@code name:seconds:multiple,...}, e.g. the default
 * {@value #DEFAULT}. Immutable.
 */
public record Profile(List<Phase> phases) {

    /** Normal load, a flash crowd at four times capacity, relief. */
    public static final String DEFAULT = "normal:15:0.8,crowd:30:4,relief:12:0.8";

    /**
     * One phase.
     *
     * @param name     a short name (letters, digits, '-')
     * @param seconds  its duration
     * @param multiple offered new sessions per second as a multiple of capacity
     */
    public record Phase(String name, double seconds, double multiple) {
    }

    public Profile {
        phases = List.copyOf(phases);
    }

    /**
     * Parses {@code name:seconds:multiple,...}.
     *
     * @throws IllegalArgumentException naming the bad part
     */
    public static Profile parse(String spec) {
        List<Phase> phases = new ArrayList<>();
        for (String part : spec.split(",", -1)) {
            String[] f = part.trim().split(":", -1);
            if (f.length != 3 || !f[0].matches("[A-Za-z0-9-]{1,16}")) {
                throw new IllegalArgumentException("--demo-profile: \"" + part
                        + "\" is not name:seconds:multiple (e.g. crowd:40:4)");
            }
            double seconds;
            double multiple;
            try {
                seconds = Double.parseDouble(f[1]);
                multiple = Double.parseDouble(f[2]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--demo-profile: \"" + part + "\": seconds and multiple must be numbers");
            }
            if (!(seconds > 0 && seconds <= 600) || !(multiple >= 0 && multiple <= 20)) {
                throw new IllegalArgumentException("--demo-profile: \"" + part
                        + "\": seconds must be in (0, 600] and the multiple in [0, 20]");
            }
            phases.add(new Phase(f[0], seconds, multiple));
        }
        return new Profile(phases);
    }

    /** Total duration in seconds. */
    public double seconds() {
        return phases.stream().mapToDouble(Phase::seconds).sum();
    }

    /** The phase at {@code t} seconds from the start, or null after the end. */
    public Phase at(double t) {
        double end = 0;
        for (Phase p : phases) {
            end += p.seconds();
            if (t < end) {
                return p;
            }
        }
        return null;
    }

    /** The start of phase {@code i} in seconds. */
    public double start(int i) {
        double s = 0;
        for (int k = 0; k < i; k++) {
            s += phases.get(k).seconds();
        }
        return s;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Phase p : phases) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(p.name()).append(':').append(fmt(p.seconds())).append(':').append(fmt(p.multiple()));
        }
        return b.toString();
    }

    private static String fmt(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
    }
}

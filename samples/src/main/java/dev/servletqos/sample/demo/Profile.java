package dev.servletqos.sample.demo;

import dev.servletqos.sample.Backend;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The load profile of one demo run: phases in order, each with a duration, an offered load as a multiple of
 * the shop's capacity, and the speed of the shop's back end. Written {@code name:seconds:multiple[:xFACTOR],...}:
 * {@code crowd:25:4} is 25 s at four times capacity, {@code slow:25:4:x2} the same with the back end twice as
 * slow (its waits doubled, see {@link dev.servletqos.sample.Backend}); without {@code :xFACTOR} the back end is
 * at normal speed. The default is {@value #DEFAULT}. Immutable.
 */
public record Profile(List<Phase> phases) {

    /**
     * Normal load, a flash crowd at four times capacity, then the crowd halves while the back end slows down to
     * half its speed (every back-end wait doubled: the shop can complete only about half as many sessions),
     * then relief at normal load and speed. 72 s.
     */
    public static final String DEFAULT = "normal:10:0.8,crowd:25:4,slow:25:2:x2,relief:12:0.8";

    /**
     * One phase.
     *
     * @param name          a short name (letters, digits, '-')
     * @param seconds       its duration
     * @param multiple      offered new sessions per second as a multiple of capacity (the shop's capacity with
     *                      its back end at normal speed: the visitors do not know the back end is slow)
     * @param backendFactor the factor on the back end's waits during the phase, 1 = normal speed
     */
    public record Phase(String name, double seconds, double multiple, double backendFactor) {

        /** Whether the back end is slower (or faster) than normal in this phase. */
        public boolean backendChanged() {
            return backendFactor != 1;
        }

        /** "4.0x" or, with the back end changed, "4.0x, back end x2". */
        public String describe() {
            return String.format(Locale.ROOT, "%.1fx", multiple) + (backendChanged() ? ", back end x"
                    + number(backendFactor) : "");
        }
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
            if (f.length < 3 || f.length > 4 || !f[0].matches("[A-Za-z0-9-]{1,16}")) {
                throw new IllegalArgumentException("--demo-profile: \"" + part
                        + "\" is not name:seconds:multiple[:xFACTOR] (e.g. crowd:40:4 or slow:30:4:x2)");
            }
            double factor = 1;
            if (f.length == 4) {
                if (!f[3].startsWith("x")) {
                    throw new IllegalArgumentException("--demo-profile: \"" + part + "\": the back end's factor is"
                            + " written x and a number, e.g. x2 (twice as slow)");
                }
                try {
                    factor = Backend.parse(f[3].substring(1));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("--demo-profile: \"" + part + "\": the back end's "
                            + e.getMessage(), e);
                }
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
            phases.add(new Phase(f[0], seconds, multiple, factor));
        }
        return new Profile(phases);
    }

    /** Total duration in seconds. */
    public double seconds() {
        return phases.stream().mapToDouble(Phase::seconds).sum();
    }

    /** The phase at {@code t} seconds from the start, or null after the end. */
    public Phase at(double t) {
        int i = index(t);
        return i < 0 ? null : phases.get(i);
    }

    /** When the phase at {@code t} ends, in seconds from the start; the profile's end after it. */
    public double end(double t) {
        int i = index(t);
        return i < 0 ? seconds() : start(i) + phases.get(i).seconds();
    }

    /** The index of the phase at {@code t}, or -1 after the end. */
    private int index(double t) {
        double end = 0;
        for (int i = 0; i < phases.size(); i++) {
            end += phases.get(i).seconds();
            if (t < end) {
                return i;
            }
        }
        return -1;
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
            b.append(p.name()).append(':').append(number(p.seconds())).append(':').append(number(p.multiple()));
            if (p.backendChanged()) {
                b.append(":x").append(number(p.backendFactor()));
            }
        }
        return b.toString();
    }

    /** A number as short as it reads: 2, 0.5, 1.25. */
    static String number(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : String.format(Locale.ROOT, "%s", d);
    }
}

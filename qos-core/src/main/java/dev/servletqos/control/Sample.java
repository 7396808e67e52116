package dev.servletqos.control;

import java.util.List;

/**
 * What one sampling period measured: the difference of two engine snapshots, as plain numbers, so that a
 * control law runs unchanged on the engine, in the simulator and in a test that types the numbers in.
 * Immutable.
 *
 * @param seconds      the period's length, in seconds
 * @param maxExecuting the total concurrency in force at the end of the period
 * @param cpu          the process's CPU load over the period, 0..1 of all cores; NaN when unknown
 * @param classes      per class, highest priority first
 */
public record Sample(double seconds, int maxExecuting, double cpu, List<ClassSample> classes) {

    public Sample {
        classes = List.copyOf(classes);
    }

    /** The class at {@code index} (0 = highest priority). */
    public ClassSample get(int index) {
        return classes.get(index);
    }

    /** The class of this name, or null. */
    public ClassSample get(String name) {
        for (ClassSample c : classes) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        return null;
    }

    /** The number of classes. */
    public int size() {
        return classes.size();
    }
}

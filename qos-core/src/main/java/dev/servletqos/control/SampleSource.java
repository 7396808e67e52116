package dev.servletqos.control;

/**
 * Where the control loop gets its per-period {@link Sample}s: the engine's own counters plus the JVM's
 * operating-system bean for CPU (the default), or an application's Micrometer registry.
 */
@FunctionalInterface
public interface SampleSource {

    /** The sample of the period since the previous call (the first call measures from the source's start). */
    Sample sample();
}

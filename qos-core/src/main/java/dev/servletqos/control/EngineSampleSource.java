package dev.servletqos.control;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.function.DoubleSupplier;

/**
 * The default sample source: the engine's own counters (two snapshots, one period apart) plus the process's
 * CPU load over the period from the JVM's operating-system bean. Needs no dependency. Not thread-safe: one
 * control loop calls it.
 */
public final class EngineSampleSource implements SampleSource {

    private final QosEngine engine;
    private final DoubleSupplier cpu;
    private EngineSnapshot last;

    /** Samples of this engine, CPU from the JVM. */
    public EngineSampleSource(QosEngine engine) {
        this(engine, new ProcessCpu());
    }

    /**
     * Samples of this engine, CPU from {@code cpu}: called once per sample, it returns the CPU load since its
     * previous call (0..1), or NaN when unknown.
     */
    public EngineSampleSource(QosEngine engine, DoubleSupplier cpu) {
        this.engine = engine;
        this.cpu = cpu;
    }

    @Override
    public Sample sample() {
        EngineSnapshot now = engine.snapshot();
        EngineSnapshot before = last != null ? last : now;
        last = now;
        return Sample.between(before, now, cpu.getAsDouble());
    }

    /**
     * The process's CPU load between two calls: CPU time used over wall time times the number of processors,
     * from {@code com.sun.management.OperatingSystemMXBean} where the JVM has it (HotSpot, OpenJ9), else NaN.
     */
    static final class ProcessCpu implements DoubleSupplier {
        private final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        private final int processors = Math.max(1, Runtime.getRuntime().availableProcessors());
        private long lastCpu = -1;
        private long lastWall;

        @Override
        public double getAsDouble() {
            if (!(os instanceof com.sun.management.OperatingSystemMXBean sun)) {
                return Double.NaN;
            }
            long cpuNanos = sun.getProcessCpuTime();
            long wall = System.nanoTime();
            double load = Double.NaN;
            if (lastCpu >= 0 && cpuNanos >= 0 && wall > lastWall) {
                load = Math.min(1, Math.max(0, (double) (cpuNanos - lastCpu) / ((wall - lastWall) * processors)));
            }
            lastCpu = cpuNanos;
            lastWall = wall;
            return load;
        }
    }
}

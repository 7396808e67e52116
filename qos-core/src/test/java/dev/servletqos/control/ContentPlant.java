package dev.servletqos.control;

import dev.servletqos.Settings;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * A static plant for the degradation laws, typed in: each class offers requests at a rate, a request at level
 * {@code l} costs {@code cpu * f^(M-l)} seconds of CPU (over {@code cores}) and {@code bytes * f^(M-l)} bytes
 * ({@code f} the cost of each step down, 1/8 for one degraded level), a refused one (level 0) {@code refusalCpu}.
 * A class at fractional level {@code m = I + F} serves F of its requests at I+1 and the rest at I, as the engine's
 * actuator does. The CPU load it reports carries Gaussian noise of {@code noise} (standard deviation).
 */
final class ContentPlant {

    /** One class: offered requests per second, full-content CPU seconds and bytes per request. */
    static final class Load {
        final String name;
        double rate;
        final double cpu;
        final double bytes;

        Load(String name, double rate, double cpu, double bytes) {
            this.name = name;
            this.rate = rate;
            this.cpu = cpu;
            this.bytes = bytes;
        }
    }

    final List<Load> loads;
    final int cores;
    final double step;
    final double refusalCpu;
    final double noise;
    final Random random = new Random(7);
    double lastUtilization;

    ContentPlant(int cores, double step, double refusalCpu, double noise, Load... loads) {
        this.cores = cores;
        this.step = step;
        this.refusalCpu = refusalCpu;
        this.noise = noise;
        this.loads = List.of(loads);
    }

    /** The utilization (CPU load, no noise) at these levels. */
    double utilization(Settings s) {
        double u = 0;
        for (int k = 0; k < loads.size(); k++) {
            u += classCpu(loads.get(k), s.get(k).levels(), s.get(k).level()) / cores;
        }
        return u;
    }

    private double factor(int levels, int level) {
        return Math.pow(step, levels - level);
    }

    private double classCpu(Load l, int levels, double m) {
        int i = (int) Math.floor(Math.min(m, levels));
        double f = Math.min(m, levels) - i;
        double cpu = 0;
        if (i >= levels) {
            return l.rate * l.cpu;
        }
        cpu += l.rate * f * l.cpu * factor(levels, i + 1);
        cpu += i == 0 ? l.rate * (1 - f) * refusalCpu : l.rate * (1 - f) * l.cpu * factor(levels, i);
        return cpu;
    }

    /**
     * The sample of one period at the levels in force. A server asked for more than its cores completes only what
     * they can: above a load of 1 every class's completions and bytes are scaled down by the load.
     */
    Sample sample(Settings s) {
        double load = utilization(s);
        double done = load > 1 ? 1 / load : 1;
        List<ClassSample> classes = new ArrayList<>();
        double cpu = 0;
        for (int k = 0; k < loads.size(); k++) {
            Load l = loads.get(k);
            int levels = s.get(k).levels();
            double m = Math.max(0, Math.min(levels, s.get(k).level()));
            int i = (int) Math.floor(m);
            double f = m - i;
            double served;
            double bytes;
            double refused = 0;
            if (i >= levels) {
                served = l.rate;
                bytes = l.rate * l.bytes;
            } else {
                served = l.rate * f + (i == 0 ? 0 : l.rate * (1 - f));
                bytes = l.rate * f * l.bytes * factor(levels, i + 1)
                        + (i == 0 ? 0 : l.rate * (1 - f) * l.bytes * factor(levels, i));
                refused = i == 0 ? l.rate * (1 - f) : 0;
            }
            cpu += classCpu(l, levels, m) / cores;
            classes.add(new ClassSample(l.name, 8, l.rate, served * done, served * done, refused, 0,
                    WaitHistogram.empty(), 0.01, bytes * done, 0, 0, 0, 0, 0, 0));
        }
        lastUtilization = cpu;
        double measured = Math.max(0, Math.min(1, cpu + noise * random.nextGaussian()));
        return new Sample(1, 16, measured, classes);
    }
}

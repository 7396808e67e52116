package dev.servletqos;

import dev.servletqos.control.ControlLaw;
import dev.servletqos.control.ControlLawRegistry;
import dev.servletqos.control.ControlLaws;
import dev.servletqos.control.EngineSampleSource;
import dev.servletqos.control.LevelLaw;
import dev.servletqos.control.LoopReading;
import dev.servletqos.control.ObservableLaw;
import dev.servletqos.control.Sample;
import dev.servletqos.control.SampleSource;
import dev.servletqos.policy.ControlPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The thin shell that runs a control law every period on the engine's {@link Periodic} seam: take the
 * period's sample, ask the law, apply its budgets (and rates) through the engine's settings seam as the
 * {@link Settings.Source#CONTROLLER}. The law is the chain the {@link ControlLawRegistry} gives for the control
 * settings, rebuilt when they or the registry change, or an override (an identification run).
 *
 * <p>Failures never reach requests: a sample source or law that throws, or an output with a number that is
 * not finite, keeps the last good settings, is counted, and is logged once per burst of failures.
 *
 * <p>Thread-safe: the periodic task, the settings writers (who synchronise on this object, so that an
 * operator's change and the controller's are never lost to each other) and status readers.
 */
final class ControlLoop {

    private static final System.Logger LOG = System.getLogger(ControlLoop.class.getName());

    private final QosEngine engine;
    private volatile SampleSource source;
    private volatile ControlLaw override;
    private final ControlLawRegistry laws = ControlLawRegistry.builtIn();

    // guarded by this
    private Periodic periodic;
    private Periodic.Cancellable task;
    private Duration scheduledPeriod;
    private ControlLaw law;
    private ControlPolicy lawControl;
    private long lawVersion;
    private boolean failing;
    private long periods;
    private long failures;
    private String lastFailure;
    private Sample lastSample;
    private ControlStatus.Reading[] readings;
    private LevelLaw levelLaw;

    ControlLoop(QosEngine engine) {
        this.engine = engine;
        this.readings = new ControlStatus.Reading[engine.policy().classes().size()];
    }

    /**
     * The laws the registry gives for the control settings, chained (a lone law runs alone); null when none is on.
     * The first degradation law is kept for the status ({@link ControlStatus#utilization()}).
     */
    ControlLaw lawFor(ControlPolicy c) {
        List<ControlLaw> all = laws.laws(c, engine.policy());
        levelLaw = null;
        for (ControlLaw l : all) {
            if (l instanceof LevelLaw level && levelLaw == null) {
                levelLaw = level;
            }
        }
        if (all.size() <= 1) {
            return all.isEmpty() ? null : all.get(0);
        }
        return ControlLaws.chain(all.toArray(new ControlLaw[0]));
    }

    /** The laws this loop chains; an embedder adds or replaces laws here. */
    ControlLawRegistry laws() {
        return laws;
    }

    synchronized void start(Periodic p) {
        ClusterLink cluster = engine.cluster(); // the cluster's exchange runs on the same seam, with the loop
        if (cluster != null) {
            cluster.start(p);
        }
        periodic = p;
        if (source == null) {
            source = new EngineSampleSource(engine);
        }
        source.sample(); // the first period starts now
        schedule(engine.settings().control().period());
    }

    synchronized void stop() {
        ClusterLink cluster = engine.cluster();
        if (cluster != null) {
            cluster.stop();
        }
        if (task != null) {
            task.cancel();
        }
        task = null;
        periodic = null;
        scheduledPeriod = null;
    }

    void useSource(SampleSource s) {
        if (s == null) {
            throw new NullPointerException("sample source");
        }
        synchronized (this) {
            source = s;
            if (periodic != null) {
                s.sample();
            }
        }
    }

    void override(ControlLaw l) {
        override = l;
    }

    /**
     * Called by the engine, under this loop's lock, after a reloaded policy was put in force: the readings follow
     * its classes, the laws are rebuilt for its control settings (session-rate ceilings, token-bucket rules and
     * the degradation law of {@code control.degradation} with its own state anew) at the next period, and
     * a new period takes effect at once. The sample source compares the classes by name across the reload.
     */
    synchronized void reloaded(Settings s) {
        readings = new ControlStatus.Reading[s.classes().size()];
        law = null;
        lawControl = null;
        levelLaw = null; // the degradation law's status is the rebuilt law's, from the next period
        applied(s);
    }

    /** Called by the engine after any settings change: a new period takes effect at once. */
    synchronized void applied(Settings s) {
        if (periodic != null && !s.control().period().equals(scheduledPeriod)) {
            task.cancel();
            schedule(s.control().period());
        }
    }

    private void schedule(Duration period) {
        scheduledPeriod = period;
        task = periodic.schedule(this::tick, period);
    }

    /** One control period. */
    synchronized void tick() {
        if (periodic == null) {
            return;
        }
        Sample sample;
        try {
            sample = source.sample();
        } catch (RuntimeException e) {
            fail("the sample source failed: " + e, e);
            return;
        }
        periods++;
        lastSample = sample;
        Settings current = engine.settings();
        ControlLaw l = override;
        Settings next;
        try {
            if (l == null) {
                if (!current.control().equals(lawControl) || laws.version() != lawVersion) {
                    lawVersion = laws.version();
                    law = lawFor(current.control());
                    lawControl = current.control();
                }
                l = law;
            }
            if (l == null) {
                record(sample, current, null, current, current);
                failing = false;
                return;
            }
            next = l.next(sample, current);
            check(next, current);
        } catch (RuntimeException e) {
            fail("the control law " + l.getClass().getSimpleName() + " failed: " + e.getMessage(), e);
            return;
        }
        // Only what a controller owns comes from the law; targets, gains and mode stay as the operator left them.
        Settings merged = current.withMaxExecuting(next.maxExecuting());
        for (int i = 0; i < current.classes().size(); i++) {
            Settings.ClassSettings c = merged.get(i);
            Settings.ClassSettings n = next.get(i);
            merged = merged.withClass(i, c.withBudget(n.budget()).withSessionRate(n.sessionRate(), n.sessionBurst())
                    .withLevel(n.level()));
        }
        for (int i = 0; i < current.buckets().size(); i++) {
            merged = merged.withBucketRate(i, next.buckets().get(i).rate());
        }
        // an unchanged output changes nothing, not even who set the settings last
        Settings applied = merged.equals(current) ? current : engine.apply(merged, Settings.Source.CONTROLLER);
        record(sample, current, l, next, applied);
        failing = false;
    }

    private static void check(Settings next, Settings current) {
        if (next == null) {
            throw new IllegalStateException("returned no settings");
        }
        if (next.classes().size() != current.classes().size()) {
            throw new IllegalStateException("returned " + next.classes().size() + " classes, expected "
                    + current.classes().size());
        }
        for (Settings.ClassSettings c : next.classes()) {
            if (!Double.isFinite(c.sessionRate())) {
                throw new IllegalStateException("returned session rate " + c.sessionRate() + " for " + c.name());
            }
            if (!Double.isFinite(c.level())) {
                throw new IllegalStateException("returned content level " + c.level() + " for " + c.name());
            }
        }
        if (next.buckets().size() != current.buckets().size()) {
            throw new IllegalStateException("returned " + next.buckets().size() + " buckets, expected "
                    + current.buckets().size());
        }
        for (Settings.BucketSettings b : next.buckets()) {
            if (!Double.isFinite(b.rate())) {
                throw new IllegalStateException("returned rate " + b.rate() + " for bucket " + b.name());
            }
        }
    }

    private void fail(String message, RuntimeException e) {
        failures++;
        lastFailure = message;
        if (!failing) {
            // once per burst: a law that fails every period would otherwise fill the log
            LOG.log(System.Logger.Level.WARNING, "servlet-qos: " + message + "; the last good settings stay in "
                    + "force (logged once until the loop succeeds again)", e);
        }
        failing = true;
    }

    /**
     * The period's reading per class: the law's own reference and measurement where it reads its loops (a
     * relative law per pair of classes; NaN for a class it has no loop for), else the class's delay target and
     * measured delay; the budget asked
     * for and the one in force; saturated when the engine clamped the output or the law says so.
     */
    private void record(Sample sample, Settings current, ControlLaw law, Settings asked, Settings applied) {
        List<LoopReading> own = law instanceof ObservableLaw o ? o.readings() : List.of();
        double q = current.control().delayQuantile();
        for (int i = 0; i < readings.length; i++) {
            String name = current.get(i).name();
            LoopReading r = null;
            for (LoopReading candidate : own) {
                if (candidate.name().equals(name)) {
                    r = candidate;
                }
            }
            double reference;
            double measured;
            if (!own.isEmpty()) {
                // a law that reads its own loops: a class it has no loop for (the top class of a relative law) has
                // no reference
                reference = r != null ? r.reference() : Double.NaN;
                measured = r != null ? r.measured() : Double.NaN;
            } else {
                reference = current.get(i).delayTarget().toNanos() / 1e9;
                measured = sample.get(i).active() ? sample.get(i).delay(q) : Double.NaN;
            }
            int out = asked.get(i).budget();
            int got = applied.get(i).budget();
            boolean saturated = out != got || (r != null && r.saturated());
            long periods = (readings[i] == null ? 0 : readings[i].saturatedPeriods()) + (saturated ? 1 : 0);
            readings[i] = new ControlStatus.Reading(name, reference, measured, reference - measured, out, got,
                    saturated, periods);
        }
    }

    synchronized ControlStatus status() {
        List<ControlStatus.Reading> r = new ArrayList<>(readings.length);
        Settings s = engine.settings();
        for (int i = 0; i < readings.length; i++) {
            r.add(readings[i] != null ? readings[i] : new ControlStatus.Reading(s.get(i).name(),
                    s.get(i).delayTarget().toNanos() / 1e9, Double.NaN, Double.NaN, s.get(i).budget(),
                    s.get(i).budget(), false, 0));
        }
        return new ControlStatus(s.control().mode(), periodic != null, override != null, periods, failures,
                lastFailure, lastSample, r, levelLaw == null ? null : levelLaw.utilization());
    }
}

package dev.servletqos.jmx;

import dev.servletqos.Settings;
import dev.servletqos.control.IdentificationLaw;
import dev.servletqos.control.IdentificationReport;
import dev.servletqos.control.LoopReading;
import dev.servletqos.control.ObservableLaw;
import dev.servletqos.control.Sample;
import java.util.List;

/**
 * An identification started over JMX: the {@link IdentificationLaw} the control loop runs instead of the mode's
 * law, guarded so that the bean can read its fit while the loop's thread feeds it (the law itself is not
 * thread-safe), and the budgets in force when it started, which the bean puts back when it stops.
 */
final class Identification implements ObservableLaw {

    private final IdentificationLaw law;
    private final String experiment;
    /** The budgets in force at the start, by class name, in the settings' order. */
    final Settings before;
    private long periods;
    private boolean running = true;

    Identification(IdentificationLaw law, String experiment, Settings before) {
        this.law = law;
        this.experiment = experiment;
        this.before = before;
    }

    @Override
    public synchronized Settings next(Sample sample, Settings current) {
        periods++;
        return law.next(sample, current);
    }

    @Override
    public List<LoopReading> readings() {
        return law.readings();
    }

    synchronized void stopped() {
        running = false;
    }

    synchronized boolean running() {
        return running;
    }

    synchronized IdentificationSummary summary() {
        IdentificationReport r;
        try {
            r = law.result();
        } catch (IllegalStateException tooFew) {
            double nan = Double.NaN;
            return new IdentificationSummary(experiment, running, periods, law.samples(), nan, nan, nan, nan, nan, nan,
                    nan, nan, false, tooFew.getMessage());
        }
        return new IdentificationSummary(experiment, running, periods, r.samples(), r.rSquared(), r.model().a1(),
                r.model().a2(), r.model().b1(), r.model().b2(), r.gains().gain(), r.gains().zero(),
                r.settlingPeriods(), r.design().stable(), null);
    }
}

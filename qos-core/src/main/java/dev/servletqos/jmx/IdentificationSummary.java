package dev.servletqos.jmx;

import javax.management.ConstructorParameters;

/**
 * A system identification started over JMX, as the controller's bean shows it (a {@code CompositeData} to a
 * client): what is excited, whether it still runs, and the model fitted so far with the gains proposed for it
 * (NaN until {@code samples} reaches {@link dev.servletqos.control.IdentificationLaw#MIN_SAMPLES}; {@code note}
 * says why). Immutable.
 */
public final class IdentificationSummary {

    private final String experiment;
    private final boolean running;
    private final long periods;
    private final int samples;
    private final double rSquared;
    private final double a1;
    private final double a2;
    private final double b1;
    private final double b2;
    private final double proposedGain;
    private final double proposedZero;
    private final double settlingPeriods;
    private final boolean stable;
    private final String note;

    @ConstructorParameters({"experiment", "running", "periods", "samples", "RSquared", "a1", "a2", "b1", "b2",
            "proposedGain", "proposedZero", "settlingPeriods", "stable", "note"})
    public IdentificationSummary(String experiment, boolean running, long periods, int samples, double rSquared,
                                 double a1, double a2, double b1, double b2, double proposedGain, double proposedZero,
                                 double settlingPeriods, boolean stable, String note) {
        this.experiment = experiment;
        this.running = running;
        this.periods = periods;
        this.samples = samples;
        this.rSquared = rSquared;
        this.a1 = a1;
        this.a2 = a2;
        this.b1 = b1;
        this.b2 = b2;
        this.proposedGain = proposedGain;
        this.proposedZero = proposedZero;
        this.settlingPeriods = settlingPeriods;
        this.stable = stable;
        this.note = note;
    }

    /** What is excited: {@code absolute basic budget 2..6} or {@code relative premium/basic ratio 0.5..2.0}. */
    public String getExperiment() {
        return experiment;
    }

    /** Whether it still runs in the control loop. */
    public boolean isRunning() {
        return running;
    }

    /** Control periods it ran. */
    public long getPeriods() {
        return periods;
    }

    /** Regression rows the fit has (a period without a measurement is a gap, not a row). */
    public int getSamples() {
        return samples;
    }

    /** The share of the output's variance the model's one-step predictions explain (paper 001 accepted 0.80). */
    public double getRSquared() {
        return rSquared;
    }

    /** The fitted model {@code y(m) = a1 y(m-1) + a2 y(m-2) + b1 u(m-1) + b2 u(m-2)}. */
    public double getA1() {
        return a1;
    }

    /** See {@link #getA1()}. */
    public double getA2() {
        return a2;
    }

    /** See {@link #getA1()}. */
    public double getB1() {
        return b1;
    }

    /** See {@link #getA1()}. */
    public double getB2() {
        return b2;
    }

    /** The PI gain {@code g} proposed ({@code control.absolute.gain} or {@code control.relative.gain}). */
    public double getProposedGain() {
        return proposedGain;
    }

    /** The PI zero {@code r} proposed ({@code control.absolute.zero} or {@code control.relative.zero}). */
    public double getProposedZero() {
        return proposedZero;
    }

    /** The settling time with the proposed gains, in control periods. */
    public double getSettlingPeriods() {
        return settlingPeriods;
    }

    /** Whether the closed loop with the proposed gains is stable. */
    public boolean isStable() {
        return stable;
    }

    /** Why there is no fit yet, or null. */
    public String getNote() {
        return note;
    }

    @Override
    public String toString() {
        return experiment + (running ? " (running)" : "") + ": " + samples + " samples, R^2 " + rSquared + ", g "
                + proposedGain + ", r " + proposedZero + (note != null ? " (" + note + ")" : "");
    }
}

package dev.servletqos.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.policy.ControlPolicy.Gains;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Closed-loop poles of paper 001's models with its gains, and the designer's own gains for them. */
class GainDesignerTest {

    private static final Gains PAPER_RELATIVE_GAINS = new Gains(0.30, 0.05);
    private static final Gains PAPER_ABSOLUTE_GAINS = new Gains(-0.80, 0.30);

    /** Asserts the poles match (re, im) pairs as a multiset within {@code tolerance}, the paper's rounding. */
    private static void assertPoles(GainDesign d, double tolerance, double... expected) {
        List<Complex> left = new ArrayList<>(d.poles());
        assertEquals(expected.length / 2, left.size());
        for (int i = 0; i < expected.length; i += 2) {
            Complex nearest = null;
            double best = Double.POSITIVE_INFINITY;
            for (Complex c : left) {
                double dist = Math.hypot(c.re() - expected[i], c.im() - expected[i + 1]);
                if (dist < best) {
                    best = dist;
                    nearest = c;
                }
            }
            assertTrue(best <= tolerance, "no pole near " + expected[i] + ", " + expected[i + 1] + " in " + d.poles());
            left.remove(nearest);
        }
    }

    @Test
    void paperGainsPlaceThePolesThePaperReports() {
        // section IV.C
        assertPoles(GainDesigner.evaluate(SecondOrderModel.PAPER_RELATIVE, PAPER_RELATIVE_GAINS), 0.01,
                0.70, 0, 0.38, 0.62, 0.38, -0.62);
        assertPoles(GainDesigner.evaluate(SecondOrderModel.PAPER_ABSOLUTE, PAPER_ABSOLUTE_GAINS), 0.01,
                0.53, 0, -0.16, 0.51, -0.16, -0.51);
        // section VI.A: the same gains on the models of the other workloads
        assertPoles(GainDesigner.evaluate(new SecondOrderModel(0.31, -0.27, 2.28, 0.08), PAPER_RELATIVE_GAINS), 0.01,
                0.52, 0, 0.05, 0.72, 0.05, -0.72);
        assertPoles(GainDesigner.evaluate(new SecondOrderModel(0.56, -0.26, 0.47, 0.21), PAPER_RELATIVE_GAINS), 0.01,
                0.71, 0, 0.36, 0.50, 0.36, -0.50);
        assertPoles(GainDesigner.evaluate(new SecondOrderModel(0.14, -0.05, -0.36, -0.15), PAPER_ABSOLUTE_GAINS),
                0.01, 0.71, 0, 0.07, 0.34, 0.07, -0.34);
        assertPoles(GainDesigner.evaluate(new SecondOrderModel(0.25, -0.03, -0.49, -0.25), PAPER_ABSOLUTE_GAINS),
                0.015, 0.48, 0, 0.19, 0.38, 0.19, -0.38);
    }

    @Test
    void designedGainsAreStableRobustAndSettleAtLeastAsFastAsThePapers() {
        for (SecondOrderModel model : List.of(SecondOrderModel.PAPER_RELATIVE, SecondOrderModel.PAPER_ABSOLUTE)) {
            Gains paperGains = model == SecondOrderModel.PAPER_RELATIVE ? PAPER_RELATIVE_GAINS : PAPER_ABSOLUTE_GAINS;
            GainDesign paper = GainDesigner.evaluate(model, paperGains);
            GainDesign ours = GainDesigner.design(model);
            assertTrue(paper.stable() && paper.robust(), paper.toString());
            assertTrue(ours.stable() && ours.robust(), ours.toString());
            assertEquals(Math.signum(paperGains.gain()), Math.signum(ours.gains().gain()), "the gain's sign: " + ours);
            assertTrue(ours.gains().zero() >= 0 && ours.gains().zero() <= 0.95, ours.toString());
            assertTrue(ours.spectralRadius() <= paper.spectralRadius(), ours + " vs the paper's " + paper);
            assertTrue(ours.settlingPeriods() <= paper.settlingPeriods());
            // the design reports what evaluating its gains gives
            assertEquals(GainDesigner.evaluate(model, ours.gains()), ours);
        }
        // with the 2 % band, the paper's poles settle in about 12 and 6 periods
        assertEquals(12.3, GainDesigner.evaluate(SecondOrderModel.PAPER_RELATIVE, PAPER_RELATIVE_GAINS)
                .settlingPeriods(), 0.2);
        assertEquals(6.3, GainDesigner.evaluate(SecondOrderModel.PAPER_ABSOLUTE, PAPER_ABSOLUTE_GAINS)
                .settlingPeriods(), 0.2);
    }

    @Test
    void defaultAbsoluteGainsPlaceThePapersPolesOnThePaperModelRescaledToOurUnits() {
        // delays relative to a 1 s target instead of 10 s, budgets out of 16 permits instead of 128
        double scale = (1.0 / 10) / (16.0 / 128);
        SecondOrderModel p = SecondOrderModel.PAPER_ABSOLUTE;
        SecondOrderModel ours = new SecondOrderModel(p.a1(), p.a2(), p.b1() * scale, p.b2() * scale);
        GainDesign paper = GainDesigner.evaluate(p, PAPER_ABSOLUTE_GAINS);
        GainDesign defaults = GainDesigner.evaluate(ours, ControlLaws.DEFAULT_ABSOLUTE);
        for (int i = 0; i < 3; i++) {
            assertEquals(paper.poles().get(i).re(), defaults.poles().get(i).re(), 1e-9);
            assertEquals(paper.poles().get(i).im(), defaults.poles().get(i).im(), 1e-9);
        }
        assertEquals(PAPER_RELATIVE_GAINS, ControlLaws.DEFAULT_RELATIVE);
    }

    @Test
    void settlingTimeComesFromTheLargestPole() {
        assertEquals(Math.log(0.02) / Math.log(0.9), GainDesigner.settlingPeriods(0.9), 1e-12);
        assertEquals(1, GainDesigner.settlingPeriods(0), 0);
        assertEquals(Double.POSITIVE_INFINITY, GainDesigner.settlingPeriods(1), 0);
        assertEquals(Double.POSITIVE_INFINITY, GainDesigner.settlingPeriods(Double.NaN), 0);
    }

    @Test
    void unstableGainsAndUncontrollableModelsAreReportedSo() {
        GainDesign tooHot = GainDesigner.evaluate(SecondOrderModel.PAPER_RELATIVE, new Gains(5, 0.05));
        assertFalse(tooHot.stable());
        assertFalse(tooHot.robust());
        assertEquals(Double.POSITIVE_INFINITY, tooHot.settlingPeriods(), 0);
        // the input does nothing, and the plant has a pole outside the unit circle: nothing stabilises it
        GainDesign hopeless = GainDesigner.design(new SecondOrderModel(1.5, 0, 0, 0));
        assertFalse(hopeless.stable());
        assertFalse(hopeless.robust());
    }
}

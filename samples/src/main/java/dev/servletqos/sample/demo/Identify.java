package dev.servletqos.sample.demo;

import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.control.Complex;
import dev.servletqos.control.ControlLaw;
import dev.servletqos.control.ControlLaws;
import dev.servletqos.control.IdentificationLaw;
import dev.servletqos.control.IdentificationReport;
import dev.servletqos.sample.run.Containers;
import dev.servletqos.sample.run.ShopConfig;
import dev.servletqos.sample.run.ShopServer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.util.Locale;

/**
 * {@code java -jar qos-sample.jar --identify}: a system identification run (paper 001 section IV.B) on the
 * live shop. The shop runs with QoS on under an overload from the demo's load generator; absolute delay control
 * first finds the top class's operating point (the budget that holds its delay target), then its budget is
 * excited around that point by a pseudo-random binary sequence; the engine's control loop runs the identification
 * law in place of its mode's law, one step per control period. At the end it prints the fitted second-order
 * model, R², and the gains it proposes for the absolute delay controller, as lines for the policy file.
 */
public final class Identify {

    private static final long SEED = 20261123L;
    /** The least R² for which the fitted model's gains are proposed. */
    static final double GOOD_FIT = 0.8;
    /** Periods of absolute control before the excitation, to find the operating point. */
    private static final int SETTLE_PERIODS = 20;

    private Identify() {
    }

    /**
     * Runs the identification.
     *
     * @param container tomcat or jetty
     * @param config    the shop (QoS on is forced)
     * @param capacity  sessions per second the shop completes at capacity
     * @param periods   control periods to excite and record (at least 30)
     * @param multiple  the load, as a multiple of capacity (the top class must queue for the budget to matter)
     */
    public static IdentificationReport run(String container, ShopConfig config, double capacity, int periods,
                                           double multiple, PrintStream log) throws IOException, InterruptedException {
        ShopConfig on = config.withQos(true).withPort(0);
        try (ShopServer server = Containers.start(container, on)) {
            QosEngine engine = server.engine();
            Settings s = engine.settings();
            int total = s.maxExecuting();
            String top = s.get(0).name();
            double period = s.control().period().toNanos() / 1e9;
            int seconds = (int) Math.ceil((SETTLE_PERIODS + periods) * period);
            log.printf(Locale.ROOT, "identification on %s, %.1fx load: %d periods of absolute control to find %s's"
                            + " operating point, then %d periods of its budget switched around it by a PRBS every"
                            + " %.1f s%n", server.describe(), multiple, SETTLE_PERIODS, top, periods, period);
            URI base = URI.create("http://127.0.0.1:" + server.port() + "/");
            Profile profile = Profile.parse("identify:" + seconds + ":" + multiple);
            IdentificationLaw[] law = new IdentificationLaw[1];
            try (LoadGenerator gen = new LoadGenerator(base, on.policy().cookies().tierName(), profile,
                    LoadGenerator.WARMUP, capacity, SEED)) {
                gen.prepare();
                // The plant is far from linear where the class does not queue at all, or queues until its
                // requests expire: excite it around the budget that holds its delay target.
                ControlLaw find = ControlLaws.absolute(s.control().absolute(), true);
                long start = engine.controlStatus().periods();
                ControlLaw operatingPoint = (sample, current) -> {
                    if (engine.controlStatus().periods() - start < SETTLE_PERIODS) {
                        return find.next(sample, current);
                    }
                    if (law[0] == null) {
                        int b = current.get(0).budget();
                        int d = Math.max(1, b / 4);
                        int low = Math.max(Math.max(1, current.get(0).minBudget()), b - d);
                        int high = Math.min(total - 1, Math.max(low + 1, b + d));
                        log.printf(Locale.ROOT, "operating point: budget %d; exciting between %d and %d of %d%n", b,
                                low, high, total);
                        law[0] = IdentificationLaw.absolute(0, low, high, SEED);
                    }
                    return law[0].next(sample, current);
                };
                engine.overrideControlLaw(operatingPoint);
                try {
                    gen.run(new Recorder(System.nanoTime(), seconds + 30));
                } finally {
                    engine.overrideControlLaw(null);
                }
            }
            if (law[0] == null) {
                throw new IllegalStateException("the run ended before the identification started");
            }
            IdentificationReport r = law[0].result();
            print(r, top, log);
            return r;
        }
    }

    static void print(IdentificationReport r, String top, PrintStream log) {
        log.printf(Locale.ROOT, "model: y(m) = %.3f y(m-1) %+.3f y(m-2) %+.4f u(m-1) %+.4f u(m-2)"
                        + "   (y = %s's delay in s, u = its budget)%n", r.model().a1(), r.model().a2(), r.model().b1(),
                r.model().b2(), top);
        log.printf(Locale.ROOT, "fit: R^2 = %.2f over %d periods%s%n", r.rSquared(), r.samples(),
                r.rSquared() < GOOD_FIT
                        ? " (below " + GOOD_FIT + ": a noisy fit; run longer, or at a load where the class always queues)"
                        : "");
        StringBuilder poles = new StringBuilder();
        for (Complex p : r.poles()) {
            poles.append(poles.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f%+.2fi", p.re(),
                    p.im()));
        }
        log.printf(Locale.ROOT, "proposed: g = %.3f, r = %.3f; closed-loop poles %s; settles in %.1f periods%s%n",
                r.gains().gain(), r.gains().zero(), poles, r.settlingPeriods(),
                r.design().stable() ? "" : " (NOT stable: do not use these gains)");
        if (r.rSquared() < GOOD_FIT || !r.design().stable()) {
            log.printf(Locale.ROOT, "no gains to use: the model does not describe this run well enough (R^2 %.2f)%s;"
                    + " keep the policy's gains%n", r.rSquared(), r.design().stable() ? "" : " and its design is not"
                    + " stable");
            return;
        }
        log.printf(Locale.ROOT, "for the policy file:%n  control.mode = absolute%n  control.absolute.gain = %.3f%n"
                + "  control.absolute.zero = %.3f%n", r.gains().gain(), Math.max(0, r.gains().zero()));
    }
}

package dev.servletqos.control;

import dev.servletqos.Settings;
import dev.servletqos.policy.BucketControl;
import java.util.ArrayList;
import java.util.List;

/**
 * The rates of the token-bucket rules (paper 002 section 2.3), each period, for every bucket:
 * <ul>
 *   <li>{@link BucketControl.Law#CPU}, a P controller on the process's CPU utilization:
 *       {@code rate' = rate + Kp (target - cpu)} (paper 002 eq. 1); a period without a CPU reading (NaN)
 *       changes nothing;</li>
 *   <li>{@link BucketControl.Law#QUEUE}, a PD controller on the requests queued in the engine at the end of the
 *       period: {@code rate' = rate + Kp (target - q) - Kd (q - q_prev)} (eq. 2, the derivative's sign written
 *       out: a growing queue lowers the rate); the first period has no derivative.</li>
 * </ul>
 * A rate is raised only when the bucket's hits in the period reached 90 % of what its rate admits in a period
 * ({@code hits >= 0.9 rate T}): a bucket that is not used up is not the limit, and raising it would leave a very
 * high rate after a quiet spell. A rate is never set below the bucket's minimum (the engine clamps to it as
 * well). The depths are not changed. Buckets the sample does not report keep their rates.
 *
 * <p>A plain object: no clock, no thread; it keeps the last queue length. One instance serves one engine.
 */
public final class BucketLaw implements ControlLaw {

    /** The share of a bucket's rate its hits must reach in a period before the rate may be raised. */
    public static final double RAISE_AT = 0.9;

    private final BucketControl control;
    private double lastQueue = Double.NaN;

    public BucketLaw(BucketControl control) {
        if (control == null) {
            throw new NullPointerException("control");
        }
        this.control = control;
    }

    @Override
    public Settings next(Sample sample, Settings current) {
        if (current.buckets().isEmpty()) {
            return current;
        }
        double step;
        if (control.law() == BucketControl.Law.CPU) {
            if (!(sample.cpu() >= 0)) {
                return current;
            }
            step = control.cpuGain() * (control.cpuTarget() - sample.cpu());
        } else {
            double q = sample.queued();
            double derivative = Double.isNaN(lastQueue) ? 0 : q - lastQueue;
            lastQueue = q;
            step = control.queueGain() * (control.queueTarget() - q) - control.queueDerivative() * derivative;
        }
        if (!Double.isFinite(step)) {
            return current;
        }
        List<Settings.BucketSettings> next = new ArrayList<>(current.buckets().size());
        boolean changed = false;
        for (Settings.BucketSettings b : current.buckets()) {
            Sample.BucketSample s = sample.bucket(b.name());
            double rate = b.rate();
            if (s != null) {
                boolean used = s.hits() >= RAISE_AT * b.rate() * sample.seconds();
                if (step < 0 || used) {
                    rate = Math.max(b.minRate(), b.rate() + step);
                }
            }
            changed |= rate != b.rate();
            next.add(b.withRate(rate));
        }
        return changed ? current.withBuckets(next).withSource(Settings.Source.CONTROLLER) : current;
    }
}

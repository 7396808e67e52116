package dev.servletqos.control;

import dev.servletqos.Settings;
import dev.servletqos.policy.ControlPolicy.Degradation;
import java.util.ArrayList;
import java.util.List;

/**
 * Threshold mode, paper 003 (section 2): the utilization ({@link UtilizationEstimator}'s source: CPU or
 * occupancy) and, when {@code control.network.capacity} is set, the network utilization (response bytes per
 * second over it) are measured over an interval (the paper's 40 s, {@code control.threshold.interval}: the
 * control periods within it are averaged, weighted by their length) and averaged exponentially from one interval
 * to the next, {@code s <- w x + (1 - w) s} with the paper's {@code w = 0.4} ({@code control.threshold.weight});
 * then, once per interval,
 *
 * <ul>
 *   <li>either average above its high threshold (paper 003: CPU 0.75, network 0.55): the lowest class still at
 *       full content is switched to degraded content (level 1, the lightest that is served);</li>
 *   <li>both below their low thresholds (CPU 0.60, network 0.35): the highest degraded class gets full content
 *       back;</li>
 *   <li>in between: nothing changes (the hysteresis that keeps the content from flapping).</li>
 * </ul>
 *
 * One class per period, lowest first on the way down and highest first on the way up, so higher classes are
 * degraded last; after a switch the law waits {@value #DWELL} intervals (the average then shows 64 % of the
 * change at {@code w = 0.4}) before the next. A class with one level (no degraded content) is never
 * touched: threshold mode degrades, it does not refuse. A class an operator set below full content counts as
 * degraded (restored to full below the low thresholds) if at level 1 or more; one set below 1 is left alone.
 */
final class ThresholdLaw implements LevelLaw {

    /** Intervals after a switch before the next. */
    static final int DWELL = 2;

    private final Degradation settings;
    private final UtilizationEstimator estimator;
    private double smoothed = Double.NaN;
    private double network = Double.NaN;
    private int wait;
    private double intervalSeconds;
    private double seconds;
    private double utilizationSum;
    private double utilizationSeconds;
    private double networkSum;
    private double networkSeconds;
    private volatile UtilizationStatus status;

    ThresholdLaw(Degradation d) {
        this.settings = d;
        this.intervalSeconds = d.interval().toNanos() / 1e9;
        this.estimator = new UtilizationEstimator(d.source(), d.rejectionCost());
        this.status = new UtilizationStatus("threshold", null, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, Double.NaN, Double.NaN, List.of());
    }

    @Override
    public Settings next(Sample sample, Settings current) {
        double u = estimator.update(sample);
        double net = UtilizationEstimator.network(sample, settings.networkCapacity());
        double t = sample.seconds();
        seconds += t;
        if (Double.isFinite(u)) {
            utilizationSum += u * t;
            utilizationSeconds += t;
        }
        if (Double.isFinite(net)) {
            networkSum += net * t;
            networkSeconds += t;
        }
        if (seconds < intervalSeconds - 1e-6) {
            publish(sample, current);
            return current; // the interval is not over
        }
        double w = settings.weight();
        if (utilizationSeconds > 0) {
            double x = utilizationSum / utilizationSeconds;
            smoothed = ControlLaws.ewma(smoothed, x, w);
        }
        if (networkSeconds > 0) {
            double x = networkSum / networkSeconds;
            network = ControlLaws.ewma(network, x, w);
        }
        seconds = 0;
        utilizationSum = 0;
        utilizationSeconds = 0;
        networkSum = 0;
        networkSeconds = 0;
        boolean high = smoothed > settings.high() || network > settings.networkHigh();
        boolean low = (!Double.isFinite(smoothed) || smoothed < settings.low())
                && (!Double.isFinite(network) || network < settings.networkLow());
        Settings next = current;
        int n = current.classes().size();
        if (wait > 0) {
            wait--;
        } else if (high) {
            for (int k = n - 1; k >= 0; k--) {
                Settings.ClassSettings c = current.get(k);
                if (c.levels() >= 2 && c.level() >= c.levels()) {
                    next = current.withClass(k, c.withLevel(1)).withSource(Settings.Source.CONTROLLER);
                    break;
                }
            }
        } else if (low && (Double.isFinite(smoothed) || Double.isFinite(network))) {
            for (int k = 0; k < n; k++) {
                Settings.ClassSettings c = current.get(k);
                if (c.levels() >= 2 && c.level() < c.levels() && c.level() >= 1) {
                    next = current.withClass(k, c.withLevel(c.levels())).withSource(Settings.Source.CONTROLLER);
                    break;
                }
            }
        }
        if (next != current) {
            wait = DWELL;
        }
        publish(sample, next);
        return next;
    }

    private void publish(Sample sample, Settings next) {
        int n = next.classes().size();
        List<UtilizationStatus.ClassLevel> levels = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            ClassSample cs = ControlLaws.classSample(sample, k, next.get(k).name());
            levels.add(new UtilizationStatus.ClassLevel(next.get(k).name(), Double.NaN,
                    cs == null ? 0 : estimator.utilization(cs), next.get(k).level(), Double.NaN, false));
        }
        status = estimator.status("threshold", smoothed, network, levels);
    }

    @Override
    public UtilizationStatus utilization() {
        return status;
    }
}

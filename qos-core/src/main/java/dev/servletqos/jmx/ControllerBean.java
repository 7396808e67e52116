package dev.servletqos.jmx;

import dev.servletqos.ControlStatus;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.control.IdentificationLaw;
import dev.servletqos.control.UtilizationStatus;
import dev.servletqos.policy.ControlPolicy;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;

/** {@link QosControllerMXBean} over one engine's control loop. */
final class ControllerBean implements QosControllerMXBean {

    static final Map<String, String> DESCRIPTIONS = Map.ofEntries(
            Map.entry("Mode", "control.mode: off, absolute or relative (writable)"),
            Map.entry("PeriodMillis", "control.period in ms (writable: 100..60000)"),
            Map.entry("DelayQuantile", "control.delay: 0 for the mean queue delay, else the quantile held at the "
                    + "target, 0.95 for p95 (writable)"),
            Map.entry("AbsoluteGain", "control.absolute.gain (writable: finite, not 0)"),
            Map.entry("AbsoluteZero", "control.absolute.zero (writable: 0 <= r < 1)"),
            Map.entry("RelativeGain", "control.relative.gain (writable: finite, not 0)"),
            Map.entry("RelativeZero", "control.relative.zero (writable: 0 <= r < 1)"),
            Map.entry("AntiWindup", "control.anti-windup (writable)"),
            Map.entry("Capacity", "control.capacity: auto or fixed (writable)"),
            Map.entry("Admission", "control.admission: auto or triggers (writable)"),
            Map.entry("Degradation", "control.degradation: none, pi or threshold (writable)"),
            Map.entry("UtilizationTarget", "control.utilization.target: the utilization the pi degradation law "
                    + "holds (writable: 0.05..0.98)"),
            Map.entry("Utilization", "The utilization the degradation law measured last period (cpu or occupancy);"
                    + " NaN when none runs"),
            Map.entry("UtilizationEstimated", "The utilization by the fitted model a R + b W + c D, last period; NaN"
                    + " when none runs"),
            Map.entry("Running", "Whether the loop is scheduled (the engine is started)"),
            Map.entry("Overridden", "Whether a law other than the mode's runs (e.g. an identification)"),
            Map.entry("Periods", "Control periods run since start"),
            Map.entry("Failures", "Periods whose sample or law failed; the last good settings stayed in force"),
            Map.entry("LastFailure", "The last failure's message, or null"),
            Map.entry("Readings", "Each class's last period: reference, measured, error, output, applied, "
                    + "saturated periods"),
            Map.entry("Identification", "The identification started here, running or the last one: the model "
                    + "fitted so far, its R^2 and the gains proposed for it; null before the first"),
            Map.entry("startAbsoluteIdentification", "Excites one class's budget between two budgets each period "
                    + "and fits its delay (paper 001); the mode's law pauses until stopIdentification"),
            Map.entry("startRelativeIdentification", "Excites the budget ratio of a class and the next lower one "
                    + "between two ratios each period and fits their delay ratio; the mode's law pauses until "
                    + "stopIdentification"),
            Map.entry("stopIdentification", "Ends the identification, puts back the budgets in force when it "
                    + "started, and returns what it found"));

    private static final long MIN_PERIOD_MILLIS = 100;
    private static final long MAX_PERIOD_MILLIS = 60_000;
    /** The excitation's seed: the same sequence on every run, so that two runs are comparable. */
    private static final long SEED = 42;

    private final QosEngine engine;
    /** The identification started here, running or the last one; guarded by this. */
    private Identification identification;

    ControllerBean(QosEngine engine) {
        this.engine = engine;
    }

    private ControlPolicy control() {
        return engine.settings().control();
    }

    /**
     * Changes the control settings through the engine's seam, as an operator; the engine's own check (for example
     * relative control with one class) is reported against the attribute.
     */
    private void update(String attribute, Object value, UnaryOperator<ControlPolicy> change) {
        try {
            engine.update(s -> s.withControl(change.apply(s.control())));
        } catch (IllegalArgumentException e) {
            throw Refusals.refuse(attribute, value, e.getMessage());
        }
    }

    private static <E extends Enum<E>> E parse(String attribute, String value, E[] values, Function<E, String> key) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (E e : values) {
            if (key.apply(e).equals(v)) {
                return e;
            }
        }
        throw Refusals.refuse(attribute, value, "must be one of "
                + Arrays.stream(values).map(key).collect(Collectors.joining(", ")));
    }

    private static void checkGain(String attribute, double gain) {
        if (!Double.isFinite(gain) || gain == 0) {
            throw Refusals.refuse(attribute, gain, "must be a finite number other than 0");
        }
    }

    private static void checkZero(String attribute, double zero) {
        if (!(zero >= 0 && zero < 1)) {
            throw Refusals.refuse(attribute, zero, "must be at least 0 and less than 1");
        }
    }

    @Override
    public String getMode() {
        return control().mode().key();
    }

    @Override
    public void setMode(String mode) {
        ControlPolicy.Mode m = parse("Mode", mode, ControlPolicy.Mode.values(), ControlPolicy.Mode::key);
        update("Mode", mode, c -> c.withMode(m));
    }

    @Override
    public long getPeriodMillis() {
        return control().period().toMillis();
    }

    @Override
    public void setPeriodMillis(long millis) {
        if (millis < MIN_PERIOD_MILLIS || millis > MAX_PERIOD_MILLIS) {
            throw Refusals.refuse("PeriodMillis", millis, "must be " + MIN_PERIOD_MILLIS + ".." + MAX_PERIOD_MILLIS);
        }
        update("PeriodMillis", millis, c -> c.withPeriod(Duration.ofMillis(millis)));
    }

    @Override
    public double getDelayQuantile() {
        return control().delayQuantile();
    }

    @Override
    public void setDelayQuantile(double q) {
        if (!(q == 0 || (q > 0 && q < 1))) {
            throw Refusals.refuse("DelayQuantile", q, "must be 0 (the mean) or a quantile between 0 and 1, such as "
                    + "0.95 for p95");
        }
        update("DelayQuantile", q, c -> c.withDelayQuantile(q));
    }

    @Override
    public double getAbsoluteGain() {
        return control().absolute().gain();
    }

    @Override
    public void setAbsoluteGain(double gain) {
        checkGain("AbsoluteGain", gain);
        update("AbsoluteGain", gain, c -> c.withAbsolute(new ControlPolicy.Gains(gain, c.absolute().zero())));
    }

    @Override
    public double getAbsoluteZero() {
        return control().absolute().zero();
    }

    @Override
    public void setAbsoluteZero(double zero) {
        checkZero("AbsoluteZero", zero);
        update("AbsoluteZero", zero, c -> c.withAbsolute(new ControlPolicy.Gains(c.absolute().gain(), zero)));
    }

    @Override
    public double getRelativeGain() {
        return control().relative().gain();
    }

    @Override
    public void setRelativeGain(double gain) {
        checkGain("RelativeGain", gain);
        update("RelativeGain", gain, c -> c.withRelative(new ControlPolicy.Gains(gain, c.relative().zero())));
    }

    @Override
    public double getRelativeZero() {
        return control().relative().zero();
    }

    @Override
    public void setRelativeZero(double zero) {
        checkZero("RelativeZero", zero);
        update("RelativeZero", zero, c -> c.withRelative(new ControlPolicy.Gains(c.relative().gain(), zero)));
    }

    @Override
    public boolean isAntiWindup() {
        return control().antiWindup();
    }

    @Override
    public void setAntiWindup(boolean on) {
        update("AntiWindup", on, c -> c.withAntiWindup(on));
    }

    @Override
    public String getCapacity() {
        return control().capacity().key();
    }

    @Override
    public void setCapacity(String capacity) {
        ControlPolicy.Capacity v = parse("Capacity", capacity, ControlPolicy.Capacity.values(),
                ControlPolicy.Capacity::key);
        update("Capacity", capacity, c -> c.withCapacity(v));
    }

    @Override
    public String getAdmission() {
        return control().admission().key();
    }

    @Override
    public void setAdmission(String admission) {
        ControlPolicy.Admission v = parse("Admission", admission, ControlPolicy.Admission.values(),
                ControlPolicy.Admission::key);
        update("Admission", admission, c -> c.withAdmission(v));
    }

    @Override
    public String getDegradation() {
        return control().degradation().law().key();
    }

    @Override
    public void setDegradation(String degradation) {
        ControlPolicy.DegradationLaw v = parse("Degradation", degradation, ControlPolicy.DegradationLaw.values(),
                ControlPolicy.DegradationLaw::key);
        update("Degradation", degradation, c -> c.withDegradation(c.degradation().withLaw(v)));
    }

    @Override
    public double getUtilizationTarget() {
        return control().degradation().target();
    }

    @Override
    public void setUtilizationTarget(double target) {
        update("UtilizationTarget", target, c -> c.withDegradation(c.degradation().withTarget(target)));
    }

    @Override
    public double getUtilization() {
        UtilizationStatus u = engine.controlStatus().utilization();
        return u == null ? Double.NaN : u.measured();
    }

    @Override
    public double getUtilizationEstimated() {
        UtilizationStatus u = engine.controlStatus().utilization();
        return u == null ? Double.NaN : u.estimated();
    }

    @Override
    public boolean isRunning() {
        return engine.controlStatus().running();
    }

    @Override
    public boolean isOverridden() {
        return engine.controlStatus().overridden();
    }

    @Override
    public long getPeriods() {
        return engine.controlStatus().periods();
    }

    @Override
    public long getFailures() {
        return engine.controlStatus().failures();
    }

    @Override
    public String getLastFailure() {
        return engine.controlStatus().lastFailure();
    }

    @Override
    public ControlReading[] getReadings() {
        ControlStatus s = engine.controlStatus();
        return s.classes().stream().map(ControlReading::of).toArray(ControlReading[]::new);
    }

    @Override
    public synchronized IdentificationSummary getIdentification() {
        return identification == null ? null : identification.summary();
    }

    @Override
    public synchronized void startAbsoluteIdentification(String serviceClass, int lowBudget, int highBudget) {
        String op = "startAbsoluteIdentification";
        int index = classIndex(op, serviceClass);
        int max = engine.settings().maxExecuting();
        if (lowBudget < 0 || highBudget <= lowBudget || highBudget > max) {
            throw Refusals.refuse(op, serviceClass + ", " + lowBudget + ", " + highBudget, "the budgets must be "
                    + "0 <= low < high <= " + max + " (MaxExecuting)");
        }
        start(op, IdentificationLaw.absolute(index, lowBudget, highBudget, SEED),
                "absolute " + serviceClass + " budget " + lowBudget + ".." + highBudget);
    }

    @Override
    public synchronized void startRelativeIdentification(String higherClass, double lowRatio, double highRatio) {
        String op = "startRelativeIdentification";
        int index = classIndex(op, higherClass);
        List<String> names = engine.settings().classes().stream().map(Settings.ClassSettings::name).toList();
        if (index + 1 >= names.size()) {
            throw Refusals.refuse(op, higherClass, "needs a lower class after it; the classes are " + names);
        }
        if (!(lowRatio > 0) || !(highRatio > lowRatio) || !Double.isFinite(highRatio)) {
            throw Refusals.refuse(op, higherClass + ", " + lowRatio + ", " + highRatio, "the ratios must be "
                    + "finite and 0 < low < high");
        }
        start(op, IdentificationLaw.relative(index, lowRatio, highRatio, SEED),
                "relative " + higherClass + "/" + names.get(index + 1) + " ratio " + lowRatio + ".." + highRatio);
    }

    private int classIndex(String op, String serviceClass) {
        List<String> names = engine.settings().classes().stream().map(Settings.ClassSettings::name).toList();
        int index = names.indexOf(serviceClass);
        if (index < 0) {
            throw Refusals.refuse(op, serviceClass, "no such class; the classes are " + names);
        }
        return index;
    }

    private void start(String op, IdentificationLaw law, String experiment) {
        ControlStatus s = engine.controlStatus();
        if (!s.running()) {
            throw Refusals.refuse(op, experiment, "the control loop is not running (the engine is not started)");
        }
        if (s.overridden()) {
            throw Refusals.refuse(op, experiment, "another law runs instead of the mode's (Overridden"
                    + (identification != null && identification.running() ? ": " + identificationName() : "")
                    + "); stop it first");
        }
        Identification i = new Identification(law, experiment, engine.settings());
        engine.overrideControlLaw(i);
        identification = i;
    }

    private String identificationName() {
        return identification.summary().getExperiment();
    }

    @Override
    public synchronized IdentificationSummary stopIdentification() {
        if (identification == null || !identification.running()) {
            throw Refusals.refuse("stopIdentification", "", "no identification started over JMX runs");
        }
        engine.overrideControlLaw(null);
        identification.stopped();
        Settings before = identification.before;
        // the experiment moved the budgets as the controller; the operator gets back the ones it started from
        engine.update(s -> {
            Settings out = s;
            for (int i = 0; i < s.classes().size(); i++) {
                for (Settings.ClassSettings b : before.classes()) {
                    if (b.name().equals(s.get(i).name())) {
                        out = out.withClass(i, out.get(i).withBudget(Math.min(b.budget(), s.maxExecuting())));
                    }
                }
            }
            return out;
        });
        return identification.summary();
    }
}

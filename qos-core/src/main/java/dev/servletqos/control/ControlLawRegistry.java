package dev.servletqos.control;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The control laws an engine's loop chains each period: an ordered list of stages, each running the law
 * registered for its mode in the control settings. The built-in stages, in order:
 * <ul>
 *   <li>{@value #CAPACITY}, by {@code control.capacity}: {@code auto} runs the capacity law;</li>
 *   <li>{@value #BUDGETS}, by {@code control.mode}: {@code absolute} or {@code relative} delay law;</li>
 *   <li>{@value #ADMISSION}, by {@code control.admission}: {@code auto} runs the admission law;</li>
 *   <li>{@value #DEGRADATION}, by {@code control.degradation}: {@code pi} or {@code threshold};</li>
 *   <li>{@value #BUCKETS}, whatever the mode: the bucket law when the policy has a token bucket.</li>
 * </ul>
 * An embedder replaces the law of one stage and mode with {@link #register}, or adds a stage of its own with
 * {@link #addAfter}; the other stages keep their laws. Each law runs on the settings the stage before returned.
 * Example, a law of one's own after the admission law:
 * <pre>{@code
 * engine.controlLaws().addAfter(ControlLawRegistry.ADMISSION, "bot-shedding",
 *         (control, policy) -> new BotSheddingLaw(policy.classes()));
 * }</pre>
 *
 * <p>Thread-safe. The loop builds the chain anew when the control settings, the policy or this registry change
 * ({@link #version()}), so a change takes effect at the next period, with each law's state new.
 */
public final class ControlLawRegistry {

    /** Builds one stage's law for an engine. */
    @FunctionalInterface
    public interface Factory {

        /**
         * @param control the control settings in force
         * @param policy  the engine's policy
         * @return a new law (it may keep state between periods; one instance serves one engine), or null when the
         *         stage is off for these settings
         */
        ControlLaw create(ControlPolicy control, QosPolicy policy);
    }

    /** The capacity stage: {@code max-executing} from the measured service time. */
    public static final String CAPACITY = "capacity";
    /** The budget stage: each class's budget from its delay. */
    public static final String BUDGETS = "budgets";
    /** The admission stage: each class's session rate from its delay target. */
    public static final String ADMISSION = "admission";
    /** The degradation stage: each class's content level from the utilization. */
    public static final String DEGRADATION = "degradation";
    /** The token-bucket stage: each bucket's rate. */
    public static final String BUCKETS = "buckets";
    /** The mode of a law that runs whatever the stage's mode. */
    public static final String ANY = "*";

    /** One stage: its name, which setting picks its mode, and its laws by mode. */
    private record Stage(String name, Function<ControlPolicy, String> mode, Map<String, Factory> laws) {
    }

    // guarded by this
    private final List<Stage> stages = new ArrayList<>();
    private volatile long version;

    private ControlLawRegistry() {
    }

    /** A registry of the built-in laws: what every engine starts with. */
    public static ControlLawRegistry builtIn() {
        ControlLawRegistry r = new ControlLawRegistry();
        r.stage(CAPACITY, c -> c.capacity().key());
        r.register(CAPACITY, ControlPolicy.Capacity.AUTO.key(), (c, p) -> ControlLaws.capacity());
        r.stage(BUDGETS, c -> c.mode().key());
        r.register(BUDGETS, ControlPolicy.Mode.ABSOLUTE.key(), (c, p) -> ControlLaws.absolute(c.absolute(),
                c.antiWindup()));
        r.register(BUDGETS, ControlPolicy.Mode.RELATIVE.key(), (c, p) -> ControlLaws.relative(c.relative()));
        r.stage(ADMISSION, c -> c.admission().key());
        r.register(ADMISSION, ControlPolicy.Admission.AUTO.key(),
                (c, p) -> ControlLaws.admission(sessionRateCeilings(p)));
        r.stage(DEGRADATION, c -> c.degradation().law().key());
        r.register(DEGRADATION, ControlPolicy.DegradationLaw.PI.key(),
                (c, p) -> ControlLaws.utilization(c.degradation()));
        r.register(DEGRADATION, ControlPolicy.DegradationLaw.THRESHOLD.key(),
                (c, p) -> ControlLaws.threshold(c.degradation()));
        r.stage(BUCKETS, c -> ANY);
        r.register(BUCKETS, ANY, (c, p) -> p.buckets().isEmpty() ? null : new BucketLaw(p.bucketControl()));
        return r;
    }

    private void stage(String name, Function<ControlPolicy, String> mode) {
        stages.add(new Stage(name, mode, new HashMap<>()));
    }

    /**
     * Registers the law {@code stage} runs when its setting is {@code mode}, in place of the one registered there.
     *
     * @param stage   a stage's name, such as {@value #BUDGETS}
     * @param mode    the setting's name in the policy file (e.g. {@code absolute} of {@code control.mode}), or
     *                {@value #ANY} for every mode without a law of its own
     * @param factory builds the law; null removes the law, so that the stage is off in that mode
     * @return this registry
     * @throws IllegalArgumentException if there is no such stage
     */
    public synchronized ControlLawRegistry register(String stage, String mode, Factory factory) {
        Objects.requireNonNull(mode, "mode");
        Map<String, Factory> laws = find(stage).laws();
        if (factory == null) {
            laws.remove(mode);
        } else {
            laws.put(mode, factory);
        }
        version++;
        return this;
    }

    /**
     * Adds a stage that runs {@code factory}'s law whatever the control settings, just after {@code after} (the
     * laws of the stages before it have set their part of the settings it is given).
     *
     * @param after the stage it follows, or null to run first
     * @param name  the new stage's name, for {@link #register} and {@link #stages()}
     * @return this registry
     * @throws IllegalArgumentException if {@code after} is not a stage or {@code name} already is one
     */
    public synchronized ControlLawRegistry addAfter(String after, String name, Factory factory) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(factory, "factory");
        for (Stage s : stages) {
            if (s.name().equals(name)) {
                throw new IllegalArgumentException("control law stage " + name + " exists; register a law in it");
            }
        }
        int at = after == null ? 0 : stages.indexOf(find(after)) + 1;
        stages.add(at, new Stage(name, c -> ANY, new HashMap<>(Map.of(ANY, factory))));
        version++;
        return this;
    }

    /** The stages' names, in the order their laws run. */
    public synchronized List<String> stages() {
        List<String> names = new ArrayList<>(stages.size());
        for (Stage s : stages) {
            names.add(s.name());
        }
        return names;
    }

    /** Grows by one with every change; the loop rebuilds its chain when it moved. */
    public long version() {
        return version;
    }

    /**
     * The laws for these settings, one per stage that is on, in the order they run: each stage's law for its mode,
     * else its law for {@value #ANY}, else none.
     *
     * @throws RuntimeException what a factory throws
     */
    public synchronized List<ControlLaw> laws(ControlPolicy control, QosPolicy policy) {
        List<ControlLaw> laws = new ArrayList<>();
        for (Stage s : stages) {
            Factory f = s.laws().get(s.mode().apply(control));
            if (f == null) {
                f = s.laws().get(ANY);
            }
            ControlLaw law = f == null ? null : f.create(control, policy);
            if (law != null) {
                laws.add(law);
            }
        }
        return laws;
    }

    private Stage find(String name) {
        for (Stage s : stages) {
            if (s.name().equals(name)) {
                return s;
            }
        }
        throw new IllegalArgumentException("no control law stage " + name + "; the stages are " + stages());
    }

    /** The session rates the policy gives (a ceiling of the admission law), by class name. */
    private static Map<String, Double> sessionRateCeilings(QosPolicy policy) {
        Map<String, Double> m = new HashMap<>();
        for (ClassPolicy c : policy.classes()) {
            if (c.admission().sessionRate() > 0) {
                m.put(c.name(), c.admission().sessionRate());
            }
        }
        return m;
    }
}

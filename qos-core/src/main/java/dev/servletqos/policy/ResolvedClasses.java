package dev.servletqos.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The classes and the capacity of a policy with every default that depends on other settings worked out: each
 * class's budget from {@code max-executing}, the triggers it inherits, the capacity and admission modes the
 * policy implies, the highest class's default session rate and reserve. {@link QosPolicy.Builder#build()} makes
 * one; immutable.
 *
 * @param classes the classes, highest priority first, every setting resolved
 * @param names   the class names
 * @param start   {@code max-executing} when the engine starts ({@link QosPolicy#maxExecuting()})
 * @param ceiling the most that may ever execute at once ({@link QosPolicy#maxExecutingCeiling()})
 * @param control the control settings with the capacity and admission modes resolved
 */
record ResolvedClasses(List<ClassPolicy> classes, Set<String> names, int start, int ceiling, ControlPolicy control) {

    /**
     * Resolves the classes as given.
     *
     * @param classes      the classes as given, at least one
     * @param defaultClass {@code default-class}, or null for the lowest
     * @param maxExecuting {@code max-executing}, or {@link ClassPolicy#UNSET}
     * @throws PolicyException naming the key and the value of the first problem
     */
    static ResolvedClasses of(List<ClassPolicy> classes, String defaultClass, int maxExecuting, ControlPolicy control,
                              AdmissionLimits admission) {
        boolean given = maxExecuting != ClassPolicy.UNSET;
        ClassPolicy.check(!given || (maxExecuting >= 1 && maxExecuting <= 100_000), "max-executing",
                maxExecuting, "must be 1..100000");
        ClassPolicy.check(control != null, "control", "null", "required");
        ControlPolicy.Capacity capacity = control.capacity() != null ? control.capacity()
                : given ? ControlPolicy.Capacity.FIXED : ControlPolicy.Capacity.AUTO;
        int ceiling = given ? maxExecuting : capacity == ControlPolicy.Capacity.AUTO ? QosPolicy.DEFAULT_CEILING
                : QosPolicy.INITIAL_LIMIT;
        int start = capacity == ControlPolicy.Capacity.AUTO ? Math.min(QosPolicy.INITIAL_LIMIT, ceiling) : ceiling;
        admission.checkTriggers();
        Set<String> names = new HashSet<>();
        List<ClassPolicy> resolved = new ArrayList<>();
        for (int i = 0; i < classes.size(); i++) {
            ClassPolicy c = classes.get(i);
            if (!names.add(c.name())) {
                throw new PolicyException("classes", c.name(), "class listed twice");
            }
            resolved.add(c.resolve(i, ceiling, admission.totalQueuedTrigger(), admission.higherQueuedTrigger()));
        }
        boolean anyTrigger = false;
        for (ClassPolicy c : resolved) {
            anyTrigger |= c.admission().totalQueuedTrigger() > 0 || c.admission().higherQueuedTrigger() > 0
                    || c.admission().sessionRate() > 0;
        }
        // a policy that gives numbers of its own (a limit, triggers, rates) keeps the static admission it was
        // written for; one that gives none is admitted by the laws
        ControlPolicy.Admission admitBy = control.admission() != null ? control.admission()
                : anyTrigger || given ? ControlPolicy.Admission.TRIGGERS : ControlPolicy.Admission.AUTO;
        ControlPolicy resolvedControl = control.withCapacity(capacity).withAdmission(admitBy);
        String lowest = defaultClass != null ? defaultClass : resolved.get(resolved.size() - 1).name();
        if (admitBy == ControlPolicy.Admission.TRIGGERS && !resolved.get(0).name().equals(lowest)
                && Double.isNaN(classes.get(0).admission().sessionRate())
                && control.degradation().law() != ControlPolicy.DegradationLaw.PI) {
            // no trigger refuses the highest class, and its credentials can be shared (one tier cookie copied
            // to a botnet makes a premium session per request): it gets a session rate unless the policy gives
            // one, 0 (no limit) included, or the PI degradation law admits its new sessions (level below 1)
            resolved.set(0, resolved.get(0).withDefaultSessionRate(QosPolicy.DEFAULT_TOP_SESSION_RATE,
                    classes.get(0).admission().sessionBurst()));
        }
        int reserves = 0;
        for (ClassPolicy c : resolved) {
            reserves += c.capacity().reserve();
        }
        ClassPolicy.check(reserves <= ceiling, "class.*.reserve", reserves,
                "the reserves add up to more than max-executing (" + ceiling + ")");
        ClassPolicy top = resolved.get(0);
        if (resolved.size() > 1 && classes.get(0).capacity().reserve() == ClassPolicy.UNSET
                && top.capacity().budget() >= QosPolicy.DEFAULT_TOP_RESERVE
                && ceiling >= reserves + QosPolicy.DEFAULT_TOP_RESERVE + 1) {
            // a flood of the lower classes must not hold every permit when a request of the highest comes: it
            // keeps one, unless that would take the last permit the others could use (the given reserves aside)
            resolved.set(0, top.withReserve(QosPolicy.DEFAULT_TOP_RESERVE));
        }
        return new ResolvedClasses(List.copyOf(resolved), names, start, ceiling, resolvedControl);
    }
}

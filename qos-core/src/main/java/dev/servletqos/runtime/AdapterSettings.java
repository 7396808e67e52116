package dev.servletqos.runtime;

import dev.servletqos.QosEngine;
import dev.servletqos.policy.QosPolicy;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * What every adapter (the Tomcat valve, the servlet filter, the Jetty handler) is given, and what its setters
 * mean, written once: a policy file (server.xml, Jetty XML, web.xml), a {@link QosPolicy} built in code, or a whole
 * {@link QosRuntime}; and the overrides {@code maxExecuting}, {@code scheduling}, {@code defaultClass}.
 *
 * <p>The setters mean the same on every adapter. {@link #setMaxExecuting(int)} overrides the policy's
 * {@code max-executing} at every start and reload, and while running also changes the engine at once.
 * {@link #setScheduling} and {@link #setDefaultClass} override the policy's keys from the next start or reload.
 * With a runtime given in code, the setters go to that runtime.
 *
 * <p>An adapter asks {@link #open} for the runtime at each start (a new one read from the file or the policy
 * object; the given one as it is), then {@link #start}s it, and {@link #stop}s it when the adapter stops.
 * Thread-safe.
 */
public final class AdapterSettings {

    private final QosPolicy policyObject;
    private final QosRuntime given;
    private volatile String policy;
    private volatile Integer maxExecuting;
    private volatile String scheduling;
    private volatile String defaultClass;
    private volatile QosRuntime running;

    /** Settings to be given a policy file ({@link #setPolicy}). */
    public AdapterSettings() {
        this.policyObject = null;
        this.given = null;
    }

    /** Settings with a policy built in code: {@link #setPolicy} is not used. */
    public AdapterSettings(QosPolicy policy) {
        this.policyObject = Objects.requireNonNull(policy, "policy");
        this.given = null;
    }

    /**
     * Settings with a whole runtime built in code: the adapter starts it with itself (unless it runs already) and
     * stops it with itself; the policy file and the overrides are the runtime's.
     */
    public AdapterSettings(QosRuntime runtime) {
        this.policyObject = null;
        this.given = Objects.requireNonNull(runtime, "runtime");
    }

    /** The policy file as the adapter was given it (resolved by the adapter), or null. */
    public void setPolicy(String policy) {
        this.policy = policy;
    }

    public String getPolicy() {
        return policy;
    }

    /** Whether a {@link QosPolicy} or a {@link QosRuntime} was given in code, so no policy file is needed. */
    public boolean inCode() {
        return policyObject != null || given != null;
    }

    /**
     * Requests executing at once over all classes: overrides the policy's {@code max-executing} at every start and
     * reload; while running, also changes the engine at once (budgets above it are lowered).
     *
     * @throws IllegalArgumentException while running (or with a runtime given), if below 1 or below the sum of the
     *                                  reserves the policy gives
     */
    public void setMaxExecuting(int maxExecuting) {
        QosRuntime r = target();
        if (r != null) {
            r.setMaxExecuting(maxExecuting);
        }
        this.maxExecuting = maxExecuting;
    }

    /** The engine's max-executing while running; else the override, the policy object's, or 0. */
    public int getMaxExecuting() {
        QosRuntime r = target();
        if (r != null) {
            return r.getMaxExecuting();
        }
        Integer m = maxExecuting;
        return m != null ? m : policyObject != null ? policyObject.maxExecuting() : 0;
    }

    /** Overrides the policy's {@code scheduling} (strict-priority, weighted, ...) from the next start or reload. */
    public void setScheduling(String scheduling) {
        QosRuntime r = target();
        if (r != null) {
            r.setScheduling(scheduling);
        }
        this.scheduling = scheduling;
    }

    /** The scheduling in force while running; else the override, or null for the policy's. */
    public String getScheduling() {
        QosEngine e = engine();
        return e != null ? e.snapshot().scheduling().key() : scheduling;
    }

    /** Overrides the policy's {@code default-class} from the next start or reload. */
    public void setDefaultClass(String defaultClass) {
        QosRuntime r = target();
        if (r != null) {
            r.setDefaultClass(defaultClass);
        }
        this.defaultClass = defaultClass;
    }

    /** The default class in force while running; else the override, or null for the policy's. */
    public String getDefaultClass() {
        QosEngine e = engine();
        return e != null ? e.policy().defaultClass() : defaultClass;
    }

    /** The runtime setters go to: the running one, or the one given in code. */
    private QosRuntime target() {
        QosRuntime r = running;
        return r != null ? r : given;
    }

    private QosEngine engine() {
        QosRuntime r = running;
        return r == null ? null : r.engine();
    }

    /**
     * The runtime for a start: the one given in code, or a new one read from the policy object or from the
     * adapter's policy file with the overrides, the adapter's {@code container} filling in what its container knows
     * (its scheduler, its MBean server, its threads, its log). Not started.
     *
     * @param fromFile  gives the builder the adapter's policy file ({@link QosRuntime.Builder#policyFile}); called
     *                  only when neither a policy nor a runtime was given, it throws
     *                  {@link dev.servletqos.policy.PolicyException} when there is no file
     * @param container fills the builder; not called for a runtime given in code
     * @throws dev.servletqos.policy.PolicyException naming the key and the value of a bad policy
     */
    public QosRuntime open(Consumer<QosRuntime.Builder> fromFile, Consumer<QosRuntime.Builder> container) {
        if (given != null) {
            return given;
        }
        QosRuntime.Builder b = QosRuntime.builder();
        if (policyObject != null) {
            b.policy(policyObject);
        } else {
            fromFile.accept(b);
        }
        b.maxExecuting(maxExecuting).scheduling(scheduling).defaultClass(defaultClass);
        container.accept(b);
        return b.build();
    }

    /**
     * Starts a runtime {@link #open} gave (a no-op for one running already) and makes it the one the setters
     * change.
     */
    public void start(QosRuntime runtime) {
        runtime.start();
        this.running = runtime;
    }

    /**
     * Stops the runtime started last, if any: every waiting request is answered, the beans are withdrawn, the
     * periodic work ends. Idempotent.
     *
     * @return the runtime stopped, or null
     */
    public QosRuntime stop() {
        QosRuntime r = running;
        running = null;
        if (r != null) {
            r.stop();
        }
        return r;
    }
}

package dev.servletqos.sample.run;

import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.Costs;
import java.nio.file.Path;

/**
 * How to run the shop on an embedded container.
 *
 * @param qos        whether the QoS adapter is installed
 * @param port       the port on 127.0.0.1; 0 for any free one
 * @param policy     the policy (with QoS off, its max-executing sizes the thread pool and its tier cookie
 *                   settings are used by /login)
 * @param policyFile the file it was read from, or null for the bundled default
 * @param costs      the shop's cost model
 */
public record ShopConfig(boolean qos, int port, QosPolicy policy, Path policyFile, Costs costs) {

    /**
     * Extra Tomcat threads beyond max-executing when QoS is on: a resumed request is a new task on the pool,
     * and refusals take a thread briefly.
     */
    public static final int QOS_THREAD_HEADROOM = 8;

    /** The container's worker threads: max-executing with QoS off (the fair stock setup), plus headroom on. */
    public int workerThreads() {
        return policy.maxExecuting() + (qos ? QOS_THREAD_HEADROOM : 0);
    }

    public ShopConfig withQos(boolean on) {
        return new ShopConfig(on, port, policy, policyFile, costs);
    }

    public ShopConfig withPort(int p) {
        return new ShopConfig(qos, p, policy, policyFile, costs);
    }
}

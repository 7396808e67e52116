package dev.servletqos.policy;

/**
 * How the bucket law adapts the token-bucket rules' rates each control period ({@code buckets.*}, paper 002
 * section 2.3): a P controller on the process's CPU utilization ({@code rate += Kp (target - cpu)}) or a PD
 * controller on the number of requests queued in the engine ({@code rate += Kp (target - q) - Kd (q - q')},
 * {@code q'} the last period's). A rate is raised only when the last period's hits reached 90 % of it, and never
 * set below its bucket's {@code min-rate}. Immutable.
 *
 * @param law             which controller
 * @param cpuTarget       the CPU utilization the P controller holds, 0..1
 * @param cpuGain         Kp of the P controller: requests per second per unit of utilization error
 * @param queueTarget     the queue length the PD controller holds, requests
 * @param queueGain       Kp of the PD controller: requests per second per queued request of error
 * @param queueDerivative Kd of the PD controller: requests per second per request the queue grew by in a period
 */
public record BucketControl(Law law, double cpuTarget, double cpuGain, double queueTarget, double queueGain,
                            double queueDerivative) {

    /** The controller the rates follow. */
    public enum Law {
        /** P controller on CPU utilization. */
        CPU("cpu"),
        /** PD controller on the engine's queue length. */
        QUEUE("queue");

        private final String key;

        Law(String key) {
            this.key = key;
        }

        /** The name used in the policy file. */
        public String key() {
            return key;
        }
    }

    /**
     * Paper 002's figures: CPU target 0.9 and Kp 1/5 per percentage point (20 per unit of utilization); queue Kp
     * 1/16 and Kd 1/4, with a queue target of 10 requests (the paper's listen-queue target was 100 connections,
     * its interface queue's 35 packets; the engine's queue holds requests that already wait for a permit).
     */
    public static final BucketControl DEFAULTS = new BucketControl(Law.CPU, 0.9, 20, 10, 1.0 / 16, 0.25);

    public BucketControl withLaw(Law l) {
        return new BucketControl(l, cpuTarget, cpuGain, queueTarget, queueGain, queueDerivative);
    }

    public BucketControl withCpuTarget(double v) {
        return new BucketControl(law, v, cpuGain, queueTarget, queueGain, queueDerivative);
    }

    public BucketControl withCpuGain(double v) {
        return new BucketControl(law, cpuTarget, v, queueTarget, queueGain, queueDerivative);
    }

    public BucketControl withQueueTarget(double v) {
        return new BucketControl(law, cpuTarget, cpuGain, v, queueGain, queueDerivative);
    }

    public BucketControl withQueueGain(double v) {
        return new BucketControl(law, cpuTarget, cpuGain, queueTarget, v, queueDerivative);
    }

    public BucketControl withQueueDerivative(double v) {
        return new BucketControl(law, cpuTarget, cpuGain, queueTarget, queueGain, v);
    }

    void check() {
        ClassPolicy.check(cpuTarget > 0 && cpuTarget <= 1, "buckets.cpu-target", cpuTarget,
                "must be more than 0, at most 1");
        ClassPolicy.check(cpuGain > 0 && cpuGain <= 1e9, "buckets.cpu-gain", cpuGain,
                "must be more than 0, at most 1e9");
        ClassPolicy.check(queueTarget >= 0 && queueTarget <= 1e6, "buckets.queue-target", queueTarget,
                "must be 0..1000000");
        ClassPolicy.check(queueGain > 0 && queueGain <= 1e9, "buckets.queue-gain", queueGain,
                "must be more than 0, at most 1e9");
        ClassPolicy.check(queueDerivative >= 0 && queueDerivative <= 1e9, "buckets.queue-derivative",
                queueDerivative, "must be 0..1e9");
    }

    /**
     * Checks these settings and the bucket rules they adapt.
     *
     * @throws PolicyException naming the key and the value of the first bad setting
     */
    void check(java.util.List<BucketPolicy> buckets) {
        check();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (BucketPolicy b : buckets) {
            ClassPolicy.check(seen.add(b.name()), "bucket." + b.name(), b.name(), "bucket given twice");
            b.check();
        }
    }
}

package dev.servletqos.policy;

/**
 * The capacity plan of the virtual servers ({@code vhosts.*}, paper 000 section 5.1): what one request per
 * second ({@code a}) and one response byte per second ({@code b}) cost of the bottleneck, as a fraction of it,
 * and the bound the sum of the virtual servers' planned utilizations {@code a Rmax + b Wmax} must not exceed
 * (0.58 where response-time guarantees are wanted, paper 000's figure from Liu and Layland's bound; less than
 * 1 for throughput guarantees only). A policy whose virtual servers plan more is refused at start. Immutable.
 *
 * @param requestCost a, the bottleneck's share one request per second takes (e.g. 0.002: 2 ms of one core
 *                    of a one-core server)
 * @param byteCost    b, the share one response byte per second takes
 * @param bound       the most the planned utilizations may sum to, more than 0 and less than 1
 */
public record VirtualServerPlan(double requestCost, double byteCost, double bound) {

    /** Paper 000's bound for response-time guarantees. */
    public static final double DEFAULT_BOUND = 0.58;

    /** Nothing given: the costs unset (NaN), the bound {@value #DEFAULT_BOUND}. */
    public static final VirtualServerPlan DEFAULTS = new VirtualServerPlan(Double.NaN, Double.NaN, DEFAULT_BOUND);

    public VirtualServerPlan withRequestCost(double a) {
        return new VirtualServerPlan(a, byteCost, bound);
    }

    public VirtualServerPlan withByteCost(double b) {
        return new VirtualServerPlan(requestCost, b, bound);
    }

    public VirtualServerPlan withBound(double u) {
        return new VirtualServerPlan(requestCost, byteCost, u);
    }
}

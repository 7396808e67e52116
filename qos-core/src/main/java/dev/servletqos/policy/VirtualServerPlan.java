package dev.servletqos.policy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

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

    /**
     * Paper 000's capacity planning: checks the plan, then that the virtual servers' planned utilizations
     * {@code a Rmax + b Wmax} sum to at most {@code vhosts.utilization-bound}; the message names every virtual
     * server and its hosts.
     *
     * @param servers the virtual servers, at least one
     * @throws PolicyException naming the key and the value of the first problem
     */
    void check(List<VirtualServerPolicy> servers) {
        if (!(requestCost >= 0) || requestCost > 1) {
            throw new PolicyException("vhosts.request-cost", Double.isNaN(requestCost) ? "(unset)"
                    : String.valueOf(requestCost), "required with virtual servers: the share of the "
                    + "bottleneck one request per second takes, 0..1 (a of paper 000's U = aR + bW)");
        }
        if (!(byteCost >= 0) || byteCost > 1) {
            throw new PolicyException("vhosts.byte-cost", Double.isNaN(byteCost) ? "(unset)"
                    : String.valueOf(byteCost), "required with virtual servers: the share of the "
                    + "bottleneck one response byte per second takes, 0..1 (b of paper 000's U = aR + bW)");
        }
        ClassPolicy.check(bound > 0 && bound < 1, "vhosts.utilization-bound", bound,
                "must be more than 0 and less than 1");
        Set<String> seen = new HashSet<>();
        double sum = 0;
        List<String> plans = new ArrayList<>();
        for (VirtualServerPolicy v : servers) {
            ClassPolicy.check(seen.add(v.name()), "vhost." + v.name(), v.name(), "virtual server given twice");
            v.check();
            double u = v.plannedUtilization(this);
            sum += u;
            plans.add(v.name() + " (" + String.join(", ", v.hosts()) + ") " + String.format(Locale.ROOT, "%.3f", u));
        }
        if (sum > bound) {
            throw new PolicyException("vhosts.utilization-bound", String.valueOf(bound), String.format(Locale.ROOT,
                    "capacity planning: the virtual servers plan a utilization of %.3f "
                    + "(a Rmax + b Wmax with a = %s, b = %s): %s; lower their vhost.<name>.rmax or .wmax, or "
                    + "raise the bound (below 1, for throughput guarantees only)", sum, requestCost, byteCost,
                    String.join(", ", plans)));
        }
    }
}

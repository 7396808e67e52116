package dev.servletqos.policy;

import java.util.List;
import java.util.regex.Pattern;

/**
 * One virtual server of the policy ({@code vhost.<name>.*}, paper 000 section 5.1): the Host names it serves
 * and its guarantee, up to {@code rmax} requests per second and, within that, up to {@code wmax} response bytes
 * per second. Its requests within the guarantee are never refused because of other hosts' load. Immutable.
 *
 * @param name  the virtual server's name (letters, digits, {@code -}, {@code _}; at most 64)
 * @param hosts the Host names ({@code shop.example}, {@code *.example} as a host rule's values)
 * @param rmax  guaranteed requests per second, more than 0
 * @param wmax  guaranteed response bytes per second, more than 0
 */
public record VirtualServerPolicy(String name, List<String> hosts, double rmax, double wmax) {

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_-]{1,64}");

    public VirtualServerPolicy {
        hosts = hosts == null ? List.of() : List.copyOf(hosts);
    }

    /** A virtual server with nothing set but its name. */
    public static VirtualServerPolicy named(String name) {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("a virtual server name is 1 to 64 letters, digits, '-' or '_', was "
                    + name);
        }
        return new VirtualServerPolicy(name, List.of(), 0, 0);
    }

    /** A virtual server for these hosts with this guarantee. */
    public static VirtualServerPolicy of(String name, double rmax, double wmax, String... hosts) {
        return named(name).withHosts(List.of(hosts)).withRmax(rmax).withWmax(wmax);
    }

    public VirtualServerPolicy withHosts(List<String> h) {
        return new VirtualServerPolicy(name, h, rmax, wmax);
    }

    public VirtualServerPolicy withRmax(double r) {
        return new VirtualServerPolicy(name, hosts, r, wmax);
    }

    public VirtualServerPolicy withWmax(double w) {
        return new VirtualServerPolicy(name, hosts, rmax, w);
    }

    /** The matcher of its hosts. */
    public ValueMatcher hostMatcher() {
        return ValueMatcher.hosts(hosts);
    }

    /** Its planned utilization {@code a Rmax + b Wmax} (paper 000 section 5.1). */
    public double plannedUtilization(VirtualServerPlan plan) {
        return plan.requestCost() * rmax + plan.byteCost() * wmax;
    }

    void check() {
        String k = "vhost." + name + ".";
        ClassPolicy.check(!hosts.isEmpty(), k + "hosts", "(unset)",
                "required: the Host names the virtual server serves");
        try {
            ValueMatcher.hosts(hosts);
        } catch (IllegalArgumentException e) {
            throw new PolicyException(k + "hosts", String.join(", ", hosts), e.getMessage());
        }
        ClassPolicy.check(rmax > 0 && rmax <= 1e9, k + "rmax", rmax == 0 ? "(unset)" : String.valueOf(rmax),
                "required: guaranteed requests per second, more than 0 and at most 1e9");
        ClassPolicy.check(wmax > 0 && wmax <= 1e15, k + "wmax", wmax == 0 ? "(unset)" : String.valueOf(wmax),
                "required: guaranteed response bytes per second, more than 0 and at most 1e15");
    }
}

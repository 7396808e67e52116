package dev.servletqos.sample.run;

import dev.servletqos.sample.demo.Profile;
import java.nio.file.Path;

/**
 * The command line: {@code [--container tomcat|jetty] [--port N] [--qos on|off] [--policy FILE] [--scale X]
 * [--demo] [--demo-profile SPEC] [--compare-policy tuned|FILE] [--no-degradation-run on|off] [--capacity N]
 * [--out DIR]}. A bad option stops
 * with a message naming it.
 *
 * @param container   tomcat (default) or jetty
 * @param port        the port on 127.0.0.1 (default 8080; the demo uses a free port unless --port is given)
 * @param portGiven   whether --port was given
 * @param qos         on (default) or off; with --demo, runs only that half when given
 * @param qosGiven    whether --qos was given
 * @param policy      the policy file, or null for the bundled default
 * @param scale       the cost scale (default 1)
 * @param demo        run the demo instead of serving
 * @param profile     the demo's load profile
 * @param capacity    sessions/s the demo's multiples refer to; 0 = the back end's connections (or a lower fixed
 *                    max-executing) over the cost model's worker time of one session
 * @param out         where the demo writes report.html and summary.json (default target/qos-demo)
 * @param identify    periods of --identify, 0 without it
 * @param identifyLoad the load during --identify, a multiple of capacity
 * @param compare     the demo's second QoS-on policy: "tuned" (the bundled hand-tuned one) or a file; null: none
 * @param noDegradationRun with --demo and a policy that degrades content: also run QoS on with the same policy and
 *                    {@code control.degradation = none} (default on; {@code --no-degradation-run off} skips it)
 */
public record Options(String container, int port, boolean portGiven, boolean qos, boolean qosGiven, Path policy,
                      double scale, boolean demo, Profile profile, double capacity, Path out, int identify,
                      double identifyLoad, String compare, boolean noDegradationRun) {

    /** The value of --compare-policy that names the bundled hand-tuned policy. */
    public static final String TUNED = "tuned";

    static final String USAGE = """
            usage: java -jar qos-sample.jar [options]
              --container tomcat|jetty  the embedded container (default tomcat)
              --port N                  port on 127.0.0.1 (default 8080; the demo picks a free one unless given)
              --qos on|off              QoS on (default) or the same shop with stock limits only
              --policy FILE             policy file (default: the bundled qos-sample.properties)
              --scale X                 multiply every page's cost by X (default 1)
              --demo                    run the overload demo: QoS on, then off; writes target/qos-demo/
              --demo-profile SPEC       phases name:seconds:multiple[:xFACTOR],...; xFACTOR slows the back end
                                        (x2: its waits doubled) (default %s)
              --compare-policy P        with --demo: also run QoS on with policy P (tuned: the bundled
                                        hand-tuned qos-sample-tuned.properties, or a file), same load
              --no-degradation-run on|off  with --demo and a policy that degrades content: also run QoS on with
                                        control.degradation = none, same load, to compare (default on)
              --capacity N              sessions/s the multiples refer to (default: back-end connections and costs)
              --out DIR                 the demo's output directory (default target/qos-demo)
              --identify [PERIODS]      system identification on the live shop under overload: fits the
                                        delay model and proposes the absolute controller's gains (default 90)
              --identify-load X         the load during --identify, a multiple of capacity (default 3)
              --help                    this text
            """.formatted(Profile.DEFAULT);

    /**
     * Parses the arguments.
     *
     * @return the options, or null when --help was asked for
     * @throws IllegalArgumentException naming the bad option and value
     */
    static Options parse(String... args) {
        String container = "tomcat";
        int port = 8080;
        boolean portGiven = false;
        boolean qos = true;
        boolean qosGiven = false;
        Path policy = null;
        double scale = 1;
        boolean demo = false;
        Profile profile = Profile.parse(Profile.DEFAULT);
        double capacity = 0;
        Path out = Path.of("target", "qos-demo");
        int identify = 0;
        double identifyLoad = 3;
        String compare = null;
        Boolean noDegradationRun = null;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--help", "-h" -> {
                    return null;
                }
                case "--demo" -> demo = true;
                case "--identify" -> {
                    identify = 90;
                    if (i + 1 < args.length && args[i + 1].matches("[0-9]+")) {
                        identify = (int) number(args, ++i, a, 30, 3600);
                    }
                }
                case "--identify-load" -> identifyLoad = number(args, ++i, a, 1, 20);
                case "--container" -> {
                    container = value(args, ++i, a);
                    if (!container.equals("tomcat") && !container.equals("jetty")) {
                        throw new IllegalArgumentException("--container " + container + ": must be tomcat or jetty");
                    }
                }
                case "--port" -> {
                    String v = value(args, ++i, a);
                    try {
                        port = Integer.parseInt(v);
                    } catch (NumberFormatException e) {
                        port = -1;
                    }
                    if (port < 0 || port > 65535) {
                        throw new IllegalArgumentException("--port " + v + ": must be 0..65535");
                    }
                    portGiven = true;
                }
                case "--qos" -> {
                    String v = value(args, ++i, a);
                    if (!v.equals("on") && !v.equals("off")) {
                        throw new IllegalArgumentException("--qos " + v + ": must be on or off");
                    }
                    qos = v.equals("on");
                    qosGiven = true;
                }
                case "--policy" -> policy = Path.of(value(args, ++i, a));
                case "--scale" -> scale = number(args, ++i, a, 0.01, 100);
                case "--demo-profile" -> profile = Profile.parse(value(args, ++i, a));
                case "--capacity" -> capacity = number(args, ++i, a, 0.1, 100_000);
                case "--out" -> out = Path.of(value(args, ++i, a));
                case "--compare-policy" -> compare = value(args, ++i, a);
                case "--no-degradation-run" -> {
                    String v = value(args, ++i, a);
                    if (!v.equals("on") && !v.equals("off")) {
                        throw new IllegalArgumentException("--no-degradation-run " + v + ": must be on or off");
                    }
                    noDegradationRun = v.equals("on");
                }
                default -> throw new IllegalArgumentException("unknown option " + a + " (--help lists them)");
            }
        }
        if (identify > 0 && demo) {
            throw new IllegalArgumentException("--identify and --demo: choose one");
        }
        if (compare != null && !demo) {
            throw new IllegalArgumentException("--compare-policy " + compare + ": only with --demo");
        }
        if (compare != null && qosGiven && !qos) {
            throw new IllegalArgumentException("--compare-policy " + compare + " runs QoS on: not with --qos off");
        }
        if (noDegradationRun != null && !demo) {
            throw new IllegalArgumentException("--no-degradation-run: only with --demo");
        }
        if (Boolean.TRUE.equals(noDegradationRun) && qosGiven && !qos) {
            throw new IllegalArgumentException("--no-degradation-run on runs QoS on: not with --qos off");
        }
        return new Options(container, port, portGiven, qos, qosGiven, policy, scale, demo, profile, capacity, out,
                identify, identifyLoad, compare, noDegradationRun == null || noDegradationRun);
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length || args[i].startsWith("--")) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static double number(String[] args, int i, String option, double min, double max) {
        String v = value(args, i, option);
        double d;
        try {
            d = Double.parseDouble(v);
        } catch (NumberFormatException e) {
            d = Double.NaN;
        }
        if (!(d >= min && d <= max)) {
            throw new IllegalArgumentException(option + " " + v + ": must be a number from " + min + " to " + max);
        }
        return d;
    }
}

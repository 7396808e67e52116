package dev.servletqos.sample.boot;

import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.demo.Demo;
import dev.servletqos.sample.demo.Profile;
import dev.servletqos.sample.run.ShopConfig;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The overload demo (docs/sample.md) against the Boot sample: the same workload, profile (a flash crowd at four
 * times the capacity, then a back end twice as slow), policy and report, QoS on (the starter) and off in one run.
 * Run by hand, about 3 minutes: see docs/spring-boot.md. Arguments: {@code [PROFILE] [OUT]}, default the demo's
 * profile and {@code target/qos-demo-boot}.
 */
public final class BootDemo {

    private BootDemo() {
    }

    public static void main(String[] args) throws IOException, InterruptedException {
        Profile profile = Profile.parse(args.length > 0 ? args[0] : Profile.DEFAULT);
        Path out = Path.of(args.length > 1 ? args[1] : "target/qos-demo-boot");
        QosPolicy policy = SamplePolicy.load(null);
        ShopConfig shop = new ShopConfig(true, 0, policy, null, Costs.scaled(1));
        Demo.run(new Demo.Settings("tomcat", shop, profile, 0, true, true, out, Demo.DEFAULT_WARMUP, null),
                System.out, BootShop::start);
    }
}

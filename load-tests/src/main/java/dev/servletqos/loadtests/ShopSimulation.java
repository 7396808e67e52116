package dev.servletqos.loadtests;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.constantUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.rampUsersPerSec;
import static io.gatling.javaapi.core.CoreDsl.scenario;

import io.gatling.javaapi.core.OpenInjectionStep;
import io.gatling.javaapi.core.PopulationBuilder;
import io.gatling.javaapi.core.Simulation;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Premium and basic users running whole shop sessions ({@link ShopSessions}, the workload description the
 * sample's demo shares) with open-model Poisson arrivals, premium a fifth of them (the workload's share), the rate ramping from zero to {@code qos.load} times the server's capacity and
 * holding there ({@link LoadProfile}). At the end it writes a {@link RunSummary} of the sessions that started
 * while the load held.
 *
 * <p>Run it through {@link LoadTestRun} (which starts the sample shop, measures at 1x and at 4x, with QoS on and
 * off, and writes the comparison), or alone against a running server:
 * {@code ./mvnw -pl load-tests gatling:test -Dqos.baseUrl=http://127.0.0.1:8080 -Dqos.load=4}.
 */
public class ShopSimulation extends Simulation {

    /** Premium users who log in before the run to obtain their tier cookies: the workload's returning users. */
    static final int PREMIUM_USERS = ShopSessions.WORKLOAD.returningUsers();

    private final LoadProfile profile = LoadProfile.fromSystemProperties();
    private final SessionTally tally = new SessionTally(profile, ShopSessions.CLASSES);
    private final TierCookiePool tiers = new TierCookiePool(profile.baseUrl(),
            System.getProperty("qos.tierCookie", "QOSTIER"));

    {
        ShopSessions shop = new ShopSessions(profile, tally, tiers);
        List<PopulationBuilder> populations = new ArrayList<>();
        for (String c : ShopSessions.CLASSES) {
            double rate = profile.topRate(ShopSessions.PREMIUM.equals(c));
            if (rate > 0) {
                populations.add(shop.sessions(c).injectOpen(arrivals(rate)));
            }
        }
        // One user at the moment injection starts sets the tally's clock, so that the measurement window is the
        // hold phase as Gatling runs it (injection may start a while after before() in a cold JVM).
        populations.add(scenario("measurement clock").exec(s -> {
            tally.start();
            return s;
        }).injectOpen(atOnceUsers(1)));
        setUp(populations).protocols(shop.protocol()).maxDuration(profile.maxDuration());
    }

    /** Poisson arrivals: a ramp from 0 to {@code rate} sessions per second, then {@code rate} for the hold. */
    private List<OpenInjectionStep> arrivals(double rate) {
        List<OpenInjectionStep> steps = new ArrayList<>();
        if (!profile.ramp().isZero()) {
            steps.add(rampUsersPerSec(0).to(rate).during(profile.ramp()).randomized());
        }
        steps.add(constantUsersPerSec(rate).during(profile.hold()).randomized());
        return steps;
    }

    @Override
    public void before() {
        try {
            int n = tiers.fill(PREMIUM_USERS, Duration.ofSeconds(10), Duration.ofSeconds(60));
            if (n == 0) {
                System.out.println("servlet-qos load test: the shop issued no " + tiers.cookieName()
                        + " tier cookie; premium users start without one");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare premium users at " + profile.baseUrl(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while preparing premium users", e);
        }
    }

    @Override
    public void after() {
        RunSummary summary = tally.summary(!tiers.isEmpty());
        for (String c : ShopSessions.CLASSES) {
            RunSummary.ClassStats s = summary.classes().get(c);
            System.out.printf("servlet-qos load test %s: %s sessions in the window %d, completed %d (%.1f/s), "
                    + "outcomes %s, p95 %d ms%n", profile.label(), c, s.started(), s.completed(),
                    summary.completedPerSecond(c), s.outcomes(), s.p95Millis());
        }
        if (profile.summaryFile() != null) {
            try {
                summary.write(profile.summaryFile());
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + profile.summaryFile(), e);
            }
        }
    }
}

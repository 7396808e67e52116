package dev.servletqos.sim;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.QosPolicy.Scheduling;
import java.time.Duration;

/** Workloads and policies shared by the simulator's tests. */
final class Scenarios {

    private Scenarios() {
    }

    static Duration ms(long millis) {
        return Duration.ofMillis(millis);
    }

    static Duration s(long seconds) {
        return Duration.ofSeconds(seconds);
    }

    /**
     * Everything at once, overloaded: a closed premium population that doubles, an open basic class with a
     * step and a ramp, heavy-tailed service on a processor-sharing server with a worker limit and a slowdown,
     * short queues and waits (rejections and expiries), a session rate on basic (refused sessions, retried),
     * and admission cookies that must be renewed during a session.
     */
    static QosPolicy busyPolicy() {
        return SimEngine.policy(Scheduling.STRICT_PRIORITY, 12,
                        ClassPolicy.named("premium").withMaxQueue(50).withMaxWait(s(5)),
                        ClassPolicy.named("basic").withMaxQueue(30).withMaxWait(s(2)).withSessionRate(5))
                // long enough that no pause within a visit (wait, service, think time) outlives the admission: an
                // expired admission cookie is a new session, which the reconciliation would count as a second one
                .cookies(c -> c.withSessionMaxAge(s(120)))
                .build();
    }

    static Workload busyWorkload() {
        return Workload.builder().duration(s(300))
                .server(ServerModel.defaults().service(Distribution.lognormal(2)).processorSharing(8).workers(10)
                        .slowdown(s(200), s(240), 2))
                .add(ClassLoad.closed("premium", 20).thinkBetweenSessions(s(3)).populationAt(s(150), 40)
                        .session(SessionProfile.of(8, ms(150), s(4))))
                .add(ClassLoad.open("basic", Rate.constant(4).step(s(60), 8).ramp(s(100), s(160), 3))
                        .session(SessionProfile.of(4, ms(300), s(1))).retries(2, s(5)))
                .build();
    }
}

package dev.servletqos.sim;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import java.time.Duration;

/**
 * The workloads of paper 001 (Lu et al., section VI), as simulated workloads: two or three classes of SURGE
 * "user equivalents" (closed populations) in front of a server with 128 processes, some populations
 * changing in the middle of the run.
 *
 * <p>How the paper's testbed maps onto the simulator. The paper's unit of work is a connection, held by an
 * Apache process from dispatch until it closes; its "connection delay" is the time from accept to dispatch,
 * which is the engine's queue delay (enter to grant). Here each user runs one-request sessions (a
 * connection), thinks, and comes back. Under HTTP/1.1 a connection holds its process for the transfers plus
 * up to the 15 s keep-alive timeout, so the mean holding time is long: 10 s (lognormal, cv 1) with a mean
 * think time of 5 s puts 400 users on 128 processes into the overload the paper describes (delays of
 * several to tens of seconds). These two numbers are this simulator's calibration, not measurements from
 * the paper; what the paper fixes is the populations, their changes and times, the 128 processes, the
 * references and the run length (30 minutes).
 */
public final class Paper001 {

    /** Server processes in the paper's Apache configuration. */
    public static final int PROCESSES = 128;
    /** The length of the paper's runs. */
    public static final Duration RUN = Duration.ofMinutes(30);

    private static final Duration HOLD = Duration.ofSeconds(10);
    private static final Duration THINK = Duration.ofSeconds(5);

    private Paper001() {
    }

    /** Class names, highest priority first: {@code class0}, {@code class1}, {@code class2}. */
    public static String name(int k) {
        return "class" + k;
    }

    /**
     * A policy for {@code classes} classes with {@link #PROCESSES} permits split as {@code budgets} (highest
     * first) under fixed capacity (the paper's process budgets; no borrowing), queues long enough that no
     * request is refused or expired at the paper's delays.
     */
    public static QosPolicy.Builder policy(int... budgets) {
        ClassPolicy[] c = new ClassPolicy[budgets.length];
        for (int k = 0; k < budgets.length; k++) {
            c[k] = ClassPolicy.named(name(k)).withBudget(budgets[k]).withMinBudget(Math.min(1, budgets[k]))
                    .withMaxQueue(10_000).withMaxWait(Duration.ofMinutes(10));
        }
        return SimEngine.policy(QosPolicy.Scheduling.FIXED_CAPACITY, PROCESSES, c);
    }

    /** The server: lognormal holding times (cv 1) of mean 10 s per connection, unlimited workers. */
    public static ServerModel server() {
        return ServerModel.defaults().service(Distribution.lognormal(1.0));
    }

    /** A population of SURGE users of one class. */
    public static ClassLoad users(int k, int users) {
        return ClassLoad.closed(name(k), users).thinkBetweenSessions(THINK).session(SessionProfile.single(HOLD));
    }

    /**
     * Workload D (relative delay, two classes, section VI.B.1): class 0 has 100 users and another 100 from
     * 870 s on; class 1 has 200 users (two client machines of 100) throughout. Reference W1/W0 = 3.
     */
    public static Workload workloadD() {
        return base().add(users(0, 100).populationAt(Duration.ofSeconds(870), 200)).add(users(1, 200)).build();
    }

    /** Relative delay for three classes (section VI.B.2): 100 users each; references 1:2:4. */
    public static Workload threeClassesRelative() {
        return base().add(users(0, 100)).add(users(1, 100)).add(users(2, 100)).build();
    }

    private static Workload.Builder base() {
        return Workload.builder().duration(RUN).period(Duration.ofSeconds(10)).server(server());
    }
}

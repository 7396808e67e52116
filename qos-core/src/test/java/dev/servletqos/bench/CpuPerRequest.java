package dev.servletqos.bench;

import dev.servletqos.QosEngine;
import dev.servletqos.RequestView;
import dev.servletqos.Ticket;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CyclicBarrier;

/**
 * The CPU time an admitted session's request (enter and complete) takes on one thread and on two, each thread its own
 * session, in turn in one JVM: what {@link RequestPathBenchmark#admittedSessionTwoThreads} measures, read by the
 * threads' own CPU clocks rather than the wall clock. Two threads that share no written memory take the same CPU time
 * per request as one; two that do take more (each waits for the cache lines the other wrote), whatever share of the
 * cores the machine's other jobs leave them, which decides the wall-clock throughput. Run by hand, not in CI:
 * <pre>
 *   java -cp "$cp" dev.servletqos.bench.CpuPerRequest [ROUNDS, default 6] [MILLIS per phase, default 1000]
 * </pre>
 * with {@code cp} as in {@code qos-core/bench.sh}. Prints per phase the throughput, the CPU time per request and the
 * cores the threads got.
 */
public final class CpuPerRequest {

    private static volatile boolean stop;

    private CpuPerRequest() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 6;
        long millis = args.length > 1 ? Long.parseLong(args[1]) : 1000;
        RequestPathBenchmark bench = new RequestPathBenchmark();
        bench.capacity = "fixed";
        bench.level = "full";
        bench.addressLimit = "on";
        bench.setUp();
        QosEngine engine = bench.engine();
        RequestView[] sessions = {bench.admitOne(), bench.admitOne()};
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (int r = 1; r <= rounds; r++) {
            for (int n = 1; n <= 2; n++) {
                long[] ops = new long[n];
                long[] cpu = new long[n];
                long[] levels = new long[n]; // what the requests returned, so that the JIT keeps them
                CyclicBarrier start = new CyclicBarrier(n + 1);
                CyclicBarrier end = new CyclicBarrier(n + 1);
                stop = false;
                for (int i = 0; i < n; i++) {
                    RequestView session = sessions[i];
                    int me = i;
                    new Thread(() -> {
                        try {
                            long sum = 0; // the thread's own: a shared sink would be written memory they share
                            for (int w = 0; w < 200_000; w++) { // warm-up
                                sum += request(engine, session);
                            }
                            start.await();
                            long cpu0 = mx.getCurrentThreadCpuTime();
                            long k = 0;
                            while (!stop) {
                                sum += request(engine, session);
                                k++;
                            }
                            cpu[me] = mx.getCurrentThreadCpuTime() - cpu0;
                            ops[me] = k;
                            levels[me] = sum;
                            end.await();
                        } catch (Exception e) {
                            throw new IllegalStateException(e);
                        }
                    }).start();
                }
                start.await();
                long wall0 = System.nanoTime();
                Thread.sleep(millis);
                stop = true;
                end.await();
                long wall = System.nanoTime() - wall0;
                long allOps = 0;
                long allCpu = 0;
                for (int i = 0; i < n; i++) {
                    allOps += ops[i];
                    allCpu += cpu[i];
                }
                System.out.printf("round %d, %d thread%s: %.2f ops/us, %.1f ns of CPU a request, %.2f cores%n", r, n,
                        n == 1 ? "" : "s", allOps * 1000.0 / wall, (double) allCpu / allOps, (double) allCpu / wall);
            }
        }
    }

    private static int request(QosEngine engine, RequestView session) {
        Ticket t = engine.enter(session);
        t.complete();
        return t.level();
    }
}

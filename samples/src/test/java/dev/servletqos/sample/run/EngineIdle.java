package dev.servletqos.sample.run;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import java.time.Duration;

/** Waits until the engine has nothing executing or queued, and checks that its counters reconcile. */
final class EngineIdle {

    private EngineIdle() {
    }

    static void await(ShopServer server, Duration timeout) throws InterruptedException {
        if (server.engine() == null) {
            return;
        }
        long end = System.nanoTime() + timeout.toNanos();
        EngineSnapshot s = server.engine().snapshot();
        while (s.executing() != 0 || s.queued() != 0) {
            if (System.nanoTime() - end > 0) {
                throw new AssertionError("the engine did not become idle: " + s);
            }
            Thread.sleep(5);
            s = server.engine().snapshot();
        }
        for (ClassStats c : s.classes()) {
            if (!c.reconciles()) {
                throw new AssertionError("counters do not reconcile: " + c);
            }
        }
    }
}

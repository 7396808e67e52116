package dev.servletqos;

import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds engines and requests for tests: one header rule {@code X-Tier: <class>} per class, marked trusted (as for a
 * header the operator's proxy sets), so that it gives a new session its class.
 */
final class Engines {

    static final String SECRET = "test-secret-0123456789abcdef";

    private Engines() {
    }

    static QosPolicy.Builder policy(QosPolicy.Scheduling scheduling, int maxExecuting, ClassPolicy... classes) {
        QosPolicy.Builder b = QosPolicy.builder().scheduling(scheduling).maxExecuting(maxExecuting).secret(SECRET);
        for (ClassPolicy c : classes) {
            b.addClass(c);
            b.addRule(Rule.header(c.name(), "X-Tier", c.name()).asTrusted());
        }
        return b;
    }

    static TestRequest request(String serviceClass) {
        return TestRequest.get("/").header("X-Tier", serviceClass);
    }

    /** The cookie value inside a Set-Cookie header ({@code NAME=VALUE; ...}). */
    static String cookieValue(String setCookie) {
        int eq = setCookie.indexOf('=');
        int semi = setCookie.indexOf(';');
        return setCookie.substring(eq + 1, semi < 0 ? setCookie.length() : semi);
    }

    /** Records the order in which parked tickets were granted or expired. */
    static final class Recorder implements Ticket.Listener {
        final List<Ticket> granted = new ArrayList<>();
        final List<Ticket> expired = new ArrayList<>();

        @Override
        public synchronized void granted(Ticket t) {
            granted.add(t);
        }

        @Override
        public synchronized void expired(Ticket t) {
            expired.add(t);
        }
    }
}

package dev.servletqos;

import static dev.servletqos.Engines.cookieValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.TierCookies.Verified.Status;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.policy.Rule;
import dev.servletqos.testkit.CookieMutations;
import java.io.OutputStream;
import java.io.PrintStream;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

/**
 * Issue 11's cookie fuzzer: mutated tier cookies and admission cookies through the engine's request path
 * ({@link QosEngine#enter}), by default {@value #DEFAULT_REQUESTS} requests. The seeds are a valid premium tier
 * cookie and a valid premium admission cookie (both checked to work first, so the test cannot pass by refusing
 * everything), and the same two signed with a retired secret the engine no longer has. Each request carries one
 * or both cookies, mutated: bit flips, truncation, oversized values, non-ASCII characters, quotes, duplicated
 * values, a changed segment (class, times, version), junk; or unchanged but in the other kind's cookie (a tier
 * cookie presented as the admission cookie and the other way round), or signed with the retired secret.
 * It proves that every such request:
 * <ul>
 *   <li>is the default class (basic), never premium, and starts a new session (the engine issues it a fresh
 *       admission cookie): no mutated cookie passed as a tier or an admission cookie, and the engine counted no
 *       valid check beyond the seeds';</li>
 *   <li>throws nothing;</li>
 *   <li>leaves the session table within its configured bound ({@value #TABLE_BOUND} entries here), checked every
 *       thousand requests and at the end;</li>
 *   <li>writes no log record (any level, through java.util.logging, which backs the engine's System.Logger)
 *       and nothing on System.out or System.err.</li>
 * </ul>
 * The default count runs in about 9 s on the project's 2-core machine (9 us a request); another count, e.g. 10^7:
 * {@code ./mvnw -q -B -o -pl qos-core test -Dtest=CookieFuzzTest -Dqos.fuzz.requests=10000000}.
 */
class CookieFuzzTest {

    static final int DEFAULT_REQUESTS = 1_000_000;
    static final int TABLE_BOUND = 1_000;
    private static final String SECRET = "fuzz-secret-0123456789abcdef-current";
    private static final String RETIRED = "fuzz-secret-0123456789abcdef-retired";
    private static final String TIER = "QOSTIER";
    private static final String SESSION = "QOSSESSION";
    private static final CookieMutations MUTATIONS = new CookieMutations(TIER, SESSION);

    private final FakeClock clock = new FakeClock();

    @Test
    void mutatedCookiesAreTheDefaultClassAndCostNeitherMemoryNorLogLines() {
        long requests = Long.getLong("qos.fuzz.requests", DEFAULT_REQUESTS);
        assertEquals(SignedToken.MAX_LENGTH, CookieMutations.PARSER_LIMIT, "oversized values straddle the limit");
        QosPolicy policy = QosPolicy.builder().secret(SECRET).maxExecuting(100)
                .addClass(ClassPolicy.named("premium")).addClass(ClassPolicy.named("basic")).defaultClass("basic")
                .addRule(Rule.tierCookie()).sessionTableMaxEntries(TABLE_BOUND).build();
        QosEngine engine = QosEngine.create(policy, clock);

        // the seeds work: a refusal of everything would not pass this test
        String tier = engine.tierCookies().issue("premium", "alice");
        Ticket first = engine.enter(TestRequest.get("/").cookie(TIER, tier), clock.nanoTime());
        assertEquals("premium", first.serviceClass(), "the valid tier cookie");
        String admission = cookieValue(first.setCookieHeader());
        first.complete();
        Ticket again = engine.enter(TestRequest.get("/").cookie(SESSION, admission), clock.nanoTime());
        assertEquals("premium", again.serviceClass(), "the valid admission cookie");
        assertNull(again.setCookieHeader(), "an admitted session gets no new admission cookie");
        again.complete();
        String retiredTier = TierCookies.create(TIER, RETIRED, null, Duration.ofDays(30), clock).issue("premium", "bob");
        String retiredAdmission = new SessionCookies(SESSION, new Signer(Signer.secretBytes(RETIRED), null),
                Duration.ofMinutes(30), clock).issue("premium", SessionCookies.newSessionId(), clock.epochSecond() + 600);
        EngineSnapshot.Sessions before = engine.snapshot().sessions();

        SplittableRandom random = new SplittableRandom(11);
        Counting logs = new Counting(Thread.currentThread().getId());
        Logger library = Logger.getLogger("dev.servletqos");
        Level level = library.getLevel();
        library.setLevel(Level.ALL);
        library.addHandler(logs);
        PrintStream out = System.out;
        PrintStream err = System.err;
        AtomicLong printed = new AtomicLong();
        Thread self = Thread.currentThread();
        PrintStream counting = new PrintStream(new OutputStream() {
            @Override
            public void write(int b) {
                if (Thread.currentThread() == self) { // the request path runs on this thread
                    printed.incrementAndGet();
                } else {
                    err.write(b);
                }
            }
        }, true);
        long started = System.nanoTime();
        long maxTable = 0;
        try {
            System.setOut(counting);
            System.setErr(counting);
            for (long i = 0; i < requests; i++) {
                TestRequest r = TestRequest.get("/");
                String[] kinds = present(random, tier, admission, retiredTier, retiredAdmission);
                if (kinds[0] != null) {
                    r.cookie(TIER, kinds[0]);
                }
                if (kinds[1] != null) {
                    r.cookie(SESSION, kinds[1]);
                }
                Ticket t = engine.enter(r, clock.nanoTime());
                if (!"basic".equals(t.serviceClass()) || t.setCookieHeader() == null) {
                    throw new AssertionError("request " + i + " was " + t.serviceClass() + (t.setCookieHeader() == null
                            ? ", admitted by its cookie" : "") + ": tier " + SignedToken.quote(kinds[0])
                            + ", admission " + SignedToken.quote(kinds[1]));
                }
                t.complete();
                if (i % 1_000 == 0) {
                    maxTable = Math.max(maxTable, engine.snapshot().sessions().tableSize());
                }
            }
        } finally {
            System.setOut(out);
            System.setErr(err);
            library.removeHandler(logs);
            library.setLevel(level);
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        EngineSnapshot s = engine.snapshot();
        maxTable = Math.max(maxTable, s.sessions().tableSize());
        System.out.printf("CookieFuzzTest: %d requests in %d ms (%.1f us each), session table at most %d of %d%n",
                requests, millis, millis * 1000.0 / requests, maxTable, TABLE_BOUND);
        assertTrue(maxTable <= TABLE_BOUND, "the session table grew to " + maxTable + ", beyond its bound "
                + TABLE_BOUND);
        assertEquals(before.tierCookies(Status.VALID), s.sessions().tierCookies(Status.VALID), "no valid tier cookie");
        assertEquals(before.sessionCookies(Status.VALID), s.sessions().sessionCookies(Status.VALID),
                "no valid admission cookie");
        assertTrue(s.sessions().tierCookies(Status.FORGED) > 0 && s.sessions().tierCookies(Status.MALFORMED) > 0
                && s.sessions().tierCookies(Status.OVERSIZED) > 0 && s.sessions().sessionCookies(Status.FORGED) > 0
                && s.sessions().sessionCookies(Status.MALFORMED) > 0, "the mutations reach each refusal: " + s.sessions());
        assertEquals(requests + 2, s.get("basic").entered() + s.get("premium").entered());
        assertEquals(0, logs.records.get(), "log records during the run, the first: " + logs.first);
        assertEquals(0, printed.get(), "bytes printed on System.out or System.err during the run");
    }

    /** The cookies of one request: {tier cookie, admission cookie}, either may be null but not both. */
    private static String[] present(SplittableRandom random, String tier, String admission, String retiredTier,
            String retiredAdmission) {
        switch (random.nextInt(8)) {
            case 0:
                return new String[] {mutate(random, tier), null};
            case 1:
                return new String[] {null, mutate(random, admission)};
            case 2:
                return new String[] {mutate(random, tier), mutate(random, admission)};
            case 3: // swapped kinds, unchanged and mutated
                return new String[] {random.nextBoolean() ? admission : mutate(random, admission), null};
            case 4:
                return new String[] {null, random.nextBoolean() ? tier : mutate(random, tier)};
            case 5: // retired secret, unchanged and mutated, either kind in either place
                return new String[] {random.nextBoolean() ? retiredTier : mutate(random, retiredAdmission), null};
            case 6:
                return new String[] {null, random.nextBoolean() ? retiredAdmission : mutate(random, retiredTier)};
            default:
                return new String[] {mutate(random, random.nextBoolean() ? tier : admission),
                        mutate(random, random.nextBoolean() ? retiredAdmission : retiredTier)};
        }
    }

    /** A value that differs from {@code seed} ({@link CookieMutations}). */
    private static String mutate(SplittableRandom random, String seed) {
        return MUTATIONS.mutate(random, seed);
    }

    /**
     * Counts every record java.util.logging publishes from one thread (the request path runs on the test's; an
     * engine another test left behind may log from its own), and keeps the first.
     */
    private static final class Counting extends Handler {
        final AtomicLong records = new AtomicLong();
        final long thread;
        volatile String first;

        Counting(long thread) {
            this.thread = thread;
            setLevel(Level.ALL);
        }

        @Override
        public void publish(LogRecord record) {
            if (record.getLongThreadID() != thread) {
                return;
            }
            if (records.getAndIncrement() == 0) {
                first = record.getLoggerName() + " " + record.getLevel() + " " + record.getMessage();
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    }
}

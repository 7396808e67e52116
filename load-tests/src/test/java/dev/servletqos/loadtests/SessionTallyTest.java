package dev.servletqos.loadtests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SessionTallyTest {

    private static final long S = 1_000_000_000L;

    @TempDir
    Path dir;

    private final LoadProfile profile = new LoadProfile(URI.create("http://127.0.0.1:1"), 10, 4,
            Duration.ofSeconds(10), Duration.ofSeconds(20), 0.2, Duration.ofSeconds(5), "t", null);

    @Test
    void countsOnlySessionsThatStartWhileTheLoadHolds() {
        SessionTally tally = new SessionTally(profile, ShopSessions.CLASSES);
        tally.start(0);
        tally.session("premium", 5 * S, Outcome.COMPLETED, 5); // during the ramp
        tally.session("premium", 10 * S, Outcome.COMPLETED, 5);
        tally.session("premium", 29 * S, Outcome.TIMED_OUT, 2);
        tally.session("premium", 30 * S, Outcome.COMPLETED, 5); // after the window
        tally.session("basic", 12 * S, Outcome.REFUSED_AT_START, 0);
        tally.session("basic", 13 * S, Outcome.REFUSED_MID_SESSION, 3);

        RunSummary s = tally.summary(true);
        RunSummary.ClassStats p = s.classes().get("premium");
        assertEquals(2, p.started());
        assertEquals(1, p.completed());
        assertEquals(4, p.allStarted());
        assertEquals(3, p.allCompleted());
        assertEquals(7, p.servedRequests());
        assertEquals(5, p.usefulRequests());
        assertEquals(0.05, s.completedPerSecond("premium"), 1e-9);
        RunSummary.ClassStats b = s.classes().get("basic");
        assertEquals(1, b.count(Outcome.REFUSED_AT_START));
        assertEquals(1, b.count(Outcome.REFUSED_MID_SESSION));
        assertEquals(0, b.completed());
        assertEquals(3, b.servedRequests());
        assertEquals(0, b.usefulRequests());
    }

    @Test
    void aTimedOutRequestCountsAsTheTimeoutInThePercentiles() {
        SessionTally tally = new SessionTally(profile, ShopSessions.CLASSES);
        tally.start(0);
        for (int i = 0; i < 19; i++) {
            tally.served("premium", 11 * S, 100);
        }
        tally.timedOut("premium", 11 * S);
        tally.served("premium", 1 * S, 9_999); // a session of the ramp: not counted

        RunSummary.ClassStats p = tally.summary(true).classes().get("premium");
        assertEquals(20, p.latencyCount());
        assertEquals(100, p.p50Millis());
        assertEquals(100, p.p95Millis());
        assertEquals(5_000, p.p99Millis());
        assertEquals(5_000, p.maxMillis());
    }

    @Test
    void refusalsAreNotResponseTimes() {
        SessionTally tally = new SessionTally(profile, ShopSessions.CLASSES);
        tally.start(0);
        for (int i = 0; i < 10; i++) {
            tally.served("basic", 11 * S, 2_000);
        }
        // many sessions refused at the door in a few ms: counted as refusals, not in p95
        for (int i = 0; i < 90; i++) {
            tally.session("basic", 11 * S, Outcome.REFUSED_AT_START, 0);
        }
        RunSummary.ClassStats b = tally.summary(true).classes().get("basic");
        assertEquals(10, b.latencyCount());
        assertEquals(2_000, b.p95Millis());
        assertEquals(90, b.count(Outcome.REFUSED_AT_START));
    }

    @Test
    void summaryReadsBackWhatWasWritten() throws Exception {
        SessionTally tally = new SessionTally(profile, ShopSessions.CLASSES);
        tally.start(0);
        tally.session("premium", 11 * S, Outcome.COMPLETED, 5);
        tally.served("premium", 11 * S, 120);
        tally.session("basic", 11 * S, Outcome.FAILED, 1);
        RunSummary written = tally.summary(true);
        written.write(dir.resolve("s.properties"));

        assertEquals(written, RunSummary.read(dir.resolve("s.properties")));
    }

    @Test
    void nearestRankPercentile() {
        long[] v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
        assertEquals(5, SessionTally.percentile(v, 50));
        assertEquals(10, SessionTally.percentile(v, 95));
        assertEquals(1, SessionTally.percentile(v, 1));
        assertEquals(0, SessionTally.percentile(new long[0], 95));
    }
}

package dev.servletqos.sample.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.run.ShopConfig;
import java.util.List;
import org.junit.jupiter.api.Test;

class RunResultTest {

    private static final Profile PROFILE = Profile.parse("normal:3:1,crowd:2:4");
    private static final ShopConfig CONFIG = new ShopConfig(true, 0, SamplePolicy.load(null), null, Costs.scaled(1));

    private static Recorder.ServerSample pages(long n) {
        return Recorder.ServerSample.pages(n);
    }

    private static List<RunResult.PhaseStats> phases(Recorder rec) {
        return new RunResult("on", CONFIG, "test", PROFILE, 10, rec, 5).phases();
    }

    @Test
    void theFirstPhaseCountsFromTheBaselineAtT0NotFromTheServersStart() {
        Recorder rec = new Recorder(0, 8);
        rec.baseline(pages(1000)); // logins and warm-up before t0
        rec.sample(0, pages(1100));
        rec.sample(1, pages(1200));
        rec.sample(2, pages(1300));
        rec.sample(3, pages(1400));
        rec.sample(4, pages(1500));
        List<RunResult.PhaseStats> p = phases(rec);
        assertEquals(100, p.get(0).pagesServedPerSecond(), 1e-9);
        assertEquals(100, p.get(1).pagesServedPerSecond(), 1e-9);
    }

    @Test
    void aMissedTickTakesTheNearestEarlierSample() {
        Recorder rec = new Recorder(0, 8);
        rec.baseline(pages(1000));
        rec.sample(0, pages(1100));
        rec.sample(1, pages(1200));
        // no sample at the end of second 2, the normal phase's last
        rec.sample(3, pages(1400));
        rec.sample(4, pages(1500));
        List<RunResult.PhaseStats> p = phases(rec);
        assertEquals(100, p.get(0).pagesServedPerSecond(), 1e-9); // 1000 -> 1200 over 2 s
        assertEquals(100, p.get(1).pagesServedPerSecond(), 1e-9); // 1200 -> 1500 over 3 s
    }

    @Test
    void noSamplesNoRate() {
        Recorder rec = new Recorder(0, 8);
        assertEquals(Double.NaN, phases(rec).get(0).pagesServedPerSecond());
    }
}

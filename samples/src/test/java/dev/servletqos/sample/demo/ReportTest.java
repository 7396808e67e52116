package dev.servletqos.sample.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import dev.servletqos.EngineSnapshot;
import dev.servletqos.FakeClock;
import dev.servletqos.QosEngine;
import dev.servletqos.TestRequest;
import dev.servletqos.Ticket;
import dev.servletqos.control.Sample;
import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.demo.Recorder.Counter;
import dev.servletqos.sample.demo.Recorder.Outcome;
import dev.servletqos.sample.demo.Recorder.SessionResult;
import dev.servletqos.sample.run.ShopConfig;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * report.html from four fixed runs (on, without degradation, a compared policy, off), compared byte for byte
 * with {@code report-expected.html}, the report as it was written before the report's code was split. The
 * header line's host facts (cores, Java version, the time of writing) are masked; everything else must match.
 */
class ReportTest {

    private static final int SECONDS = 12;
    private static final Profile PROFILE = Profile.parse("normal:3:1,crowd:3:4,slow:3:0.5:x2");

    @TempDir
    Path dir;

    @Test
    void fixedRunsRenderTheSameReport() throws IOException {
        String actual = mask(render());
        Files.createDirectories(Path.of("target"));
        Files.writeString(Path.of("target/report-actual.html"), actual);
        String expected;
        try (InputStream in = ReportTest.class.getResourceAsStream("report-expected.html")) {
            assertNotNull(in, "report-expected.html");
            expected = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        String[] e = expected.split("\n", -1);
        String[] a = actual.split("\n", -1);
        for (int i = 0; i < Math.min(e.length, a.length); i++) {
            assertEquals(e[i], a[i], "line " + (i + 1) + " (target/report-actual.html)");
        }
        assertEquals(e.length, a.length, "lines");
    }

    private String render() throws IOException {
        ShopConfig on = new ShopConfig(true, 0, SamplePolicy.load(null), null, Costs.scaled(1));
        Path tunedFile = SamplePolicy.writeTuned(dir);
        Path plainFile = SamplePolicy.writeWithoutDegradation(null, dir);
        ShopConfig tuned = new ShopConfig(true, 0, SamplePolicy.load(tunedFile), tunedFile, Costs.scaled(1));
        ShopConfig plain = new ShopConfig(true, 0, SamplePolicy.load(plainFile), plainFile, Costs.scaled(1));
        ShopConfig off = new ShopConfig(false, 0, SamplePolicy.load(null), null, Costs.scaled(1));
        Demo.Settings settings = new Demo.Settings("tomcat", on, PROFILE, 10, true, true, dir,
                Profile.parse("warm-up:1:0.3"), new Demo.Comparison("tuned", tuned),
                new Demo.Comparison(Demo.NO_DEGRADATION, plain));
        List<RunResult> runs = List.of(run("on", on, 1), run(Demo.NO_DEGRADATION, plain, 2), run("tuned", tuned, 3),
                run("off", off, 4));
        return Report.html(settings, 10, runs, SECONDS);
    }

    /** A run whose every figure is a function of the second, the type and the seed. */
    private static RunResult run(String label, ShopConfig config, int seed) {
        Recorder rec = new Recorder(0, SECONDS);
        FakeClock clock = new FakeClock();
        QosEngine engine = config.qos() ? QosEngine.create(config.policy(), clock) : null;
        Deque<Ticket> held = new ArrayDeque<>();
        EngineSnapshot last = null;
        long pages = 1000;
        rec.baseline(Recorder.ServerSample.pages(pages));
        for (int s = 0; s < SECONDS; s++) {
            long at = s * 1_000_000_000L + 1;
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                long k = (long) seed * 7 + s * 3L + t * 5L;
                rec.add(Counter.OFFERED, t, at, 10 + k % 9);
                rec.add(Counter.ADMITTED, t, at, 8 + k % 5);
                rec.add(Counter.REFUSED, t, at, k % 4);
                rec.add(Counter.COMPLETED, t, at, 5 + k % 6);
                rec.add(Counter.COMPLETED_REQUESTS, t, at, 60 + k % 11);
                rec.add(Counter.REQ_OK, t, at, 90 + k % 13);
                rec.add(Counter.REQ_REFUSED, t, at, k % 3);
                rec.add(Counter.REQ_DEGRADED, t, at, s >= 3 ? 20 + k % 7 : 0);
                for (int d = 0; d < 10; d++) {
                    rec.delay(t, at, 1 + (k * 37 + d * 101) % (s >= 3 ? 4000 : 200));
                }
                for (int n = 0; n < 6; n++) {
                    Outcome o = Outcome.values()[(int) ((k + n) % Outcome.values().length)];
                    rec.sessions.add(new SessionResult(t, s + n / 10.0, s + 1 + n / 5.0,
                            o != Outcome.REFUSED, o, 1 + n));
                }
            }
            pages += 100 + s * 17L + seed;
            double factor = s >= 6 && s < 9 ? 2 : 1;
            if (engine == null) {
                rec.sample(s, new Recorder.ServerSample(pages, factor, null, null, null));
                continue;
            }
            clock.advance(Duration.ofMillis(400));
            for (int n = 0; n < 3 + s % 4; n++) {
                held.add(engine.enter(TestRequest.get("/shop/p" + n).from("127.0.0.1"), clock.nanoTime()));
            }
            clock.advance(Duration.ofMillis(600));
            for (int n = 0; n < 2 && !held.isEmpty(); n++) {
                held.poll().complete();
            }
            EngineSnapshot snapshot = engine.snapshot();
            Sample period = last == null ? null : Sample.between(last, snapshot, Double.NaN);
            rec.sample(s, new Recorder.ServerSample(pages, factor, snapshot, period, engine.controlStatus()));
            last = snapshot;
        }
        return new RunResult(label, config, config.qos() ? "tomcat, QoS on" : "tomcat, QoS off", PROFILE, 10, rec,
                SECONDS);
    }

    /** Masks the host facts of the first paragraph: cores, Java version and the time the report was written. */
    private static String mask(String html) {
        return html.replaceFirst("<p>tomcat, \\d+ cores, Java [^,]+, [^,]+, ", "<p>tomcat, N cores, Java V, T, ");
    }
}

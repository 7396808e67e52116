package dev.servletqos.loadtests;

import io.gatling.app.Gatling$;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Runs {@link ShopSimulation} in this JVM with a given {@link LoadProfile}, the way Gatling's own launchers do,
 * and finds the HTML report it wrote. One run at a time: the profile travels as system properties.
 */
public final class GatlingRunner {

    private GatlingRunner() {
    }

    /**
     * What a run left behind.
     *
     * @param status  Gatling's exit status (0 when the run went through)
     * @param summary the simulation's summary file
     * @param report  the directory of the HTML report ({@code index.html}), or null if none was written
     */
    public record Result(int status, Path summary, Path report) {
    }

    /**
     * Runs the simulation and waits for it (ramp, hold, the last sessions ending, the report).
     *
     * @param profile       what to offer; its {@code summaryFile} must be set
     * @param resultsFolder where Gatling puts its report directory
     */
    public static synchronized Result run(LoadProfile profile, Path resultsFolder) throws IOException {
        if (profile.summaryFile() == null) {
            throw new IllegalArgumentException("qos.summary: the run needs a summary file");
        }
        Files.createDirectories(resultsFolder);
        Files.deleteIfExists(profile.summaryFile());
        Set<Path> before = reportDirs(resultsFolder);
        Map<String, String> saved = new HashMap<>();
        profile.toProperties().forEach((k, v) -> saved.put(k, System.setProperty(k, v)));
        int status;
        try {
            status = Gatling$.MODULE$.fromArgs(new String[] {
                "--simulation", ShopSimulation.class.getName(),
                "--results-folder", resultsFolder.toAbsolutePath().toString(),
                "--run-description", profile.label(),
            });
        } finally {
            saved.forEach((k, v) -> {
                if (v == null) {
                    System.clearProperty(k);
                } else {
                    System.setProperty(k, v);
                }
            });
        }
        Path report = reportDirs(resultsFolder).stream().filter(d -> !before.contains(d))
                .filter(d -> Files.exists(d.resolve("index.html"))).findFirst().orElse(null);
        return new Result(status, profile.summaryFile(), report);
    }

    private static Set<Path> reportDirs(Path folder) throws IOException {
        try (Stream<Path> s = Files.list(folder)) {
            return s.filter(Files::isDirectory).collect(Collectors.toSet());
        }
    }
}

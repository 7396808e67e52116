package dev.servletqos;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The one place settings are clamped: a pure function of the proposed settings and what the engine has (its classes,
 * their content levels, the reserves its policy gives, the settings in force and its token-bucket rules). The
 * {@link Scheduler} calls it under its lock before it puts settings in force. Thread-safe (no state).
 */
final class SettingsClamp {

    /** The lowest rate a bucket is set to, whatever its minimum: a rate of 0 would mean no limit. */
    static final double LEAST_BUCKET_RATE = 0.001;

    private SettingsClamp() {
    }

    /**
     * The settings {@code s} clamped: the ceiling to {@code max(1, sum of reserves)..100000} (raised to an
     * operator's max-executing, never to the controller's), max-executing to {@code max(1, sum of reserves)..ceiling},
     * each budget to {@code 0..max-executing} (for the controller, from the class's {@code min-budget}), session
     * rates to finite non-negative numbers with a burst of at least 1, delay targets to more than zero, content
     * levels to the policy's (fixed) and each live level to {@code 0..levels} (not a number: the level in force
     * stays); bucket rates to at least the bucket's minimum (and {@value #LEAST_BUCKET_RATE}/s), at most 1e9 (not a
     * number: the rate in force stays), minimum and depth as the policy gave them. The control settings are not
     * clamped but refused when out of range (a gain that is not a number has no sensible nearest value).
     *
     * @param source   who proposes them: the controller's ceiling and budget floor differ from an operator's
     * @param names    the engine's classes, in order
     * @param levels   their content levels M, in order
     * @param reserves the sum of the reserves the policy gives: the least max-executing can be
     * @param inForce  the settings in force, or null at start: where a level or bucket rate that is not a number is
     *                 kept from
     * @param buckets  the policy's token-bucket rules as it starts them (names, minimums and depths)
     * @throws IllegalArgumentException if the settings do not describe these classes and buckets, or their control
     *                                  settings are out of range
     */
    static Settings clamp(Settings s, Settings.Source source, String[] names, int[] levels, int reserves,
                          Settings inForce, List<Settings.BucketSettings> buckets) {
        if (s.classes().size() != names.length) {
            throw new IllegalArgumentException(s.classes().size() + " classes in the settings, the engine has "
                    + names.length);
        }
        s.control().check(names.length);
        // the ceiling bounds the controller; an operator's (or the policy's) max-executing above it raises it
        int ceiling = clamp(source == Settings.Source.CONTROLLER ? s.ceiling() : Math.max(s.ceiling(),
                s.maxExecuting()), Math.max(1, reserves), 100_000);
        int max = clamp(s.maxExecuting(), Math.max(1, reserves), ceiling);
        Settings.ClassSettings[] cs = new Settings.ClassSettings[names.length];
        for (int i = 0; i < names.length; i++) {
            Settings.ClassSettings c = s.get(i);
            if (!c.name().equals(names[i])) {
                throw new IllegalArgumentException("class " + i + " of the settings is " + c.name()
                        + ", the engine's is " + names[i]);
            }
            int minBudget = clamp(c.minBudget(), 0, max);
            int floor = source == Settings.Source.CONTROLLER ? minBudget : 0;
            int budget = clamp(c.budget(), floor, max);
            double rate = Double.isFinite(c.sessionRate()) && c.sessionRate() > 0 ? c.sessionRate() : 0;
            int burst = Math.max(1, c.sessionBurst());
            Duration target = c.delayTarget().isNegative() || c.delayTarget().isZero() ? Duration.ofNanos(1)
                    : c.delayTarget();
            int m = levels[i];
            double level = Double.isNaN(c.level()) ? levelInForce(inForce, i, names[i], m)
                    : Math.max(0, Math.min(m, c.level()));
            cs[i] = new Settings.ClassSettings(c.name(), budget, minBudget, rate, burst, target, m, level);
        }
        return new Settings(max, ceiling, Arrays.asList(cs), s.control(), source,
                clampBuckets(s.buckets(), buckets, inForce));
    }

    /** The rate in force of bucket {@code i} of the policy in force ({@code was}: its initial settings). */
    private static double bucketRateInForce(Settings inForce, int i, Settings.BucketSettings was) {
        if (inForce != null && i < inForce.buckets().size() && inForce.buckets().get(i).name().equals(was.name())) {
            return inForce.buckets().get(i).rate();
        }
        return was.rate();
    }

    /**
     * The live level in force of class {@code i} ({@code name}), or its {@code levels} (full content) when the
     * settings in force are another policy's and had no class of its name with as many levels.
     */
    private static double levelInForce(Settings inForce, int i, String name, int levels) {
        if (inForce == null || i >= inForce.classes().size()) {
            return levels;
        }
        Settings.ClassSettings c = inForce.get(i);
        return c.name().equals(name) && c.levels() == levels ? c.level() : levels;
    }

    private static List<Settings.BucketSettings> clampBuckets(List<Settings.BucketSettings> proposed,
                                                              List<Settings.BucketSettings> fixed, Settings inForce) {
        // names, minimums and depths are the policy's (a reloaded one's once it is in force)
        if (proposed.size() != fixed.size()) {
            throw new IllegalArgumentException(proposed.size() + " buckets in the settings, the engine has "
                    + fixed.size());
        }
        List<Settings.BucketSettings> out = new ArrayList<>(fixed.size());
        for (int i = 0; i < fixed.size(); i++) {
            Settings.BucketSettings was = fixed.get(i);
            Settings.BucketSettings b = proposed.get(i);
            if (!b.name().equals(was.name())) {
                throw new IllegalArgumentException("bucket " + i + " of the settings is " + b.name()
                        + ", the engine's is " + was.name());
            }
            double rate = Double.isNaN(b.rate()) ? bucketRateInForce(inForce, i, was) : b.rate();
            rate = Math.max(Math.max(was.minRate(), LEAST_BUCKET_RATE), Math.min(1e9, rate));
            out.add(new Settings.BucketSettings(was.name(), rate, was.minRate(), was.depth()));
        }
        return out;
    }

    private static int clamp(int v, int lo, int hi) {
        return Math.max(lo, Math.min(hi, v));
    }
}

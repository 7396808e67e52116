package dev.servletqos.sim;

import java.util.SplittableRandom;

/** One class's state during a run: its load, its random streams, its users and sessions in progress. */
final class ClassRun {

    final int index;
    final ClassLoad load;
    final SessionProfile profile;
    /** The policy's index of the class of the same name, or -1. */
    final int policyIndex;
    /** One stream per purpose, so that e.g. drawing more service times does not shift the arrivals. */
    final SplittableRandom arrivals;
    final SplittableRandom service;
    final SplittableRandom think;
    final SplittableRandom retry;

    /** Closed classes: the population wanted now, and the users running. */
    int targetUsers;
    int users;
    /** Sessions in progress (thinking or with a request in flight). */
    int visits;

    ClassRun(int index, ClassLoad load, int policyIndex, long seed) {
        this.index = index;
        this.load = load;
        this.profile = load.session();
        this.policyIndex = policyIndex;
        this.arrivals = new SplittableRandom(streamSeed(seed, index, 1));
        this.service = new SplittableRandom(streamSeed(seed, index, 2));
        this.think = new SplittableRandom(streamSeed(seed, index, 3));
        this.retry = new SplittableRandom(streamSeed(seed, index, 4));
    }

    /** A seed for one stream: SplitMix64's finaliser over (seed, class, purpose), so streams are unrelated. */
    static long streamSeed(long seed, int cls, int purpose) {
        long z = seed + 0x9E3779B97F4A7C15L * (1 + cls * 16L + purpose);
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

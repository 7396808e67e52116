package dev.servletqos;

import dev.servletqos.policy.BucketPolicy;
import dev.servletqos.policy.ClassPolicy;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a reloaded policy does to the {@link Scheduler}'s lanes ({@link Scheduler#reload}): a class the old policy had
 * keeps its lane (its queue in order, its running requests and its counters), a new class starts empty, and the
 * waiting and running requests of a class the policy no longer has move to its default class. Called under the
 * scheduler's lock; no state of its own.
 */
final class LaneMigration {

    private LaneMigration() {
    }

    /**
     * The lanes of policy {@code next}, highest priority first: those of {@code old} its classes keep, configured
     * anew, and new ones; the requests of a removed class move to the default class's lane ({@link #move}).
     *
     * @param guaranteed the guaranteed queue's head: its tickets of a removed class change class
     * @param policy     the scheduling policy in force, told when a lane with no waiting request gets some
     */
    static Lane[] lanes(Lane[] old, Regime next, Ticket guaranteed, SchedulingPolicy policy) {
        List<ClassPolicy> classes = next.policy.classes();
        Map<String, Lane> byName = new LinkedHashMap<>();
        for (Lane l : old) {
            byName.put(l.name, l);
        }
        Lane[] fresh = new Lane[classes.size()];
        for (int i = 0; i < fresh.length; i++) {
            Lane l = byName.remove(classes.get(i).name());
            if (l == null) {
                l = new Lane(classes.get(i), i);
            } else {
                l.configure(classes.get(i), i);
            }
            fresh[i] = l;
        }
        Lane target = fresh[next.defaultIndex];
        for (Lane gone : byName.values()) {
            move(gone, target, guaranteed, policy);
        }
        return fresh;
    }

    /**
     * The reloaded policy's settings with what stays live kept from the settings in force ({@code was}): a class's
     * content level when the class stays with the same number of levels, a token-bucket rule's rate when the rule
     * stays the same (same name, paths or cookie, rate, minimum and depth, as {@code old}'s buckets judge); everything
     * else is the new policy's.
     */
    static Settings keepLive(Settings initial, Settings was, Regime old, Regime next) {
        Settings out = initial;
        for (int i = 0; i < out.classes().size(); i++) {
            Settings.ClassSettings c = out.get(i);
            for (Settings.ClassSettings w : was.classes()) {
                if (w.name().equals(c.name()) && w.levels() == c.levels()) {
                    out = out.withClass(i, c.withLevel(w.level()));
                }
            }
        }
        List<BucketPolicy> rules = next.policy.buckets();
        for (int i = 0; i < rules.size(); i++) {
            int k = was.bucketIndex(rules.get(i).name());
            if (k >= 0 && old.buckets.keeps(rules.get(i))) {
                out = out.withBucketRate(i, was.buckets().get(k).rate());
            }
        }
        return out;
    }

    /** A waiting request keeps the content level it was given, within its class's levels now. */
    static void lowerLevels(Lane[] lanes, Ticket guaranteed) {
        for (Lane l : lanes) {
            for (Ticket t = l.head; t != null; t = t.next) {
                l.lowerLevel(t);
            }
            for (Ticket t = l.lineHead; t != null; t = t.next) {
                l.lowerLevel(t);
            }
        }
        for (Ticket g = guaranteed; g != null; g = g.next) {
            g.lane.lowerLevel(g);
        }
    }

    /**
     * The tickets of {@code a} and of {@code b}, two lists in arrival order linked by {@link Ticket#next}, merged in
     * arrival order (the one of {@code a} first on a tie), relinked both ways; {@code b}'s move to {@code target}.
     * Returns the new list's head; its tail is the last one reached.
     */
    private static Ticket[] mergeByArrival(Ticket a, Ticket b, Lane target) {
        Ticket head = null;
        Ticket tail = null;
        while (a != null || b != null) {
            Ticket t;
            if (b == null || (a != null && a.enteredNanos - b.enteredNanos <= 0)) {
                t = a;
                a = a.next;
            } else {
                t = b;
                b = b.next;
                t.lane = target;
            }
            t.prev = tail;
            t.next = null;
            if (tail == null) {
                head = t;
            } else {
                tail.next = t;
            }
            tail = t;
        }
        return new Ticket[] {head, tail};
    }

    /**
     * Moves a removed class's waiting and running requests to {@code target}, merging the queues by arrival: each
     * counts as entered there, so that every class still reconciles.
     */
    private static void move(Lane gone, Lane target, Ticket guaranteed, SchedulingPolicy policy) {
        boolean wasIdle = target.head == null;
        Ticket[] queue = mergeByArrival(target.head, gone.head, target);
        target.head = queue[0];
        target.tail = queue[1];
        // the requests waiting in their sessions' lines change class too (their sessions' lines stay as they are)
        Ticket[] line = mergeByArrival(target.lineHead, gone.lineHead, target);
        target.lineHead = line[0];
        target.lineTail = line[1];
        // the guaranteed queue keeps its order: its tickets of the removed class only change class
        for (Ticket g = guaranteed; g != null; g = g.next) {
            if (g.lane == gone) {
                g.lane = target;
            }
        }
        target.queued += gone.queued;
        target.lined += gone.lined;
        target.executing += gone.executing;
        target.streams += gone.streams;
        target.entered += gone.queued + gone.lined + gone.executing + gone.streams;
        gone.head = null;
        gone.tail = null;
        gone.lineHead = null;
        gone.lineTail = null;
        gone.lined = 0;
        gone.queued = 0;
        gone.executing = 0;
        gone.streams = 0;
        gone.successor = target;
        if (wasIdle && target.head != null) {
            policy.becameBusy(target);
        }
    }
}

package dev.servletqos;

import dev.servletqos.policy.ControlPolicy;
import dev.servletqos.policy.QosPolicy;

/**
 * DESIGN.md's invariants as they show in an {@link EngineSnapshot}, written once for the sequential fuzz test
 * ({@code InvariantFuzzTest}, a check after every step) and the concurrent stress test ({@code EngineStressTest},
 * a check at sampled points while other threads go on). Every snapshot is taken under the scheduler's lock, so
 * each check sees one state between two operations.
 *
 * <p>Limits change non-preemptively: a lowered budget or max-executing takes effect as requests finish. So the
 * bounds are ratchets, one per limited quantity: a quantity only rises through a grant, and a grant needs the
 * quantity after it to be within the limit in force then. Hence, between two checks, the quantity stays at or
 * below the higher of its value at the last check and every limit in force since; the caller reports each
 * settings value put in force ({@link #applied}, {@link #budgetInForce}, {@link #maxInForce}) before the next
 * check. The three ratchets:
 * <ul>
 *   <li>executing, all classes, against max-executing;</li>
 *   <li>executing of each class against its budget, when it may not borrow (borrowing off, and admission by
 *       triggers: automatic admission serves an overdue class on any free permit);</li>
 *   <li>executing plus the reserves other classes are still owed ({@code sum max(0, reserve - executing)})
 *       against max-executing: a reserve is never lent. The highest class's default reserve
 *       ({@link QosPolicy#defaultTopReserve()}) is kept only at a max-executing of at least the given reserves
 *       plus 2: when a max-executing that keeps it follows one that does not, it comes back while the lower
 *       classes may hold every permit, and that sum rises by the reserve without a grant. So each such return the
 *       reports allow (at most one per report of a max-executing that keeps it, and one per report of one that
 *       does not or a check that saw it dropped before that) raises the bound by the reserve.</li>
 * </ul>
 * And in every snapshot: the counters reconcile per class (and the completed requests by content level add up
 * to the completed ones, none at level 0; the level is within 0..levels); the totals are the sums of the
 * classes'; borrowed permits are {@code max(0, executing - budget)}; nothing waits while it could start (without
 * borrowing: a class with waiting requests is at its budget, or the total is reached, or a reserve blocks it;
 * with borrowing: no permit is idle while requests wait, unless a reserve keeps it).
 *
 * And in the scheduler ({@link #checkLines}): the sessions' lines hold their counts, and a session's requests wait in
 * its line only while it has {@code admission.max-per-session} in flight.
 *
 * <p>Thread-safe: the concurrent test reports settings from several threads.
 */
public final class Invariants {

    private final boolean borrowing;
    private final boolean classBudgets;
    private long totalBound;
    private long reserveBound;
    private final long[] classBound;
    /** The highest class's default reserve (0: none), and the least max-executing at which the engine keeps it. */
    private final int defaultReserve;
    private final int keptFrom;
    /** Since the last check: max-executing values reported that keep the default reserve, and that drop it. */
    private int keeping;
    private int dropping;
    /** Whether the last check (or the initial snapshot) saw the default reserve dropped. */
    private boolean droppedAtCheck;

    /** @param initial a snapshot before any load: its settings are the first limits in force */
    public Invariants(QosPolicy policy, EngineSnapshot initial) {
        this.borrowing = policy.borrowing();
        this.classBudgets = !borrowing && initial.settings().control().admission() != ControlPolicy.Admission.AUTO;
        this.classBound = new long[initial.classes().size()];
        this.defaultReserve = policy.defaultTopReserve();
        int given = -defaultReserve;
        for (dev.servletqos.policy.ClassPolicy c : policy.classes()) {
            given += c.capacity().reserve();
        }
        this.keptFrom = given + defaultReserve + 1;
        applied(initial.settings());
        totalBound = Math.max(totalBound, initial.executing());
        reserveBound = Math.max(reserveBound, heldOrOwed(initial));
        keeping = 0;
        dropping = 0;
        droppedAtCheck = dropped(initial);
    }

    /** A settings value was put in force (as the engine returned it, clamped). */
    public synchronized void applied(Settings s) {
        maxInForce(s.maxExecuting());
        for (int k = 0; k < classBound.length; k++) {
            budgetInForce(k, s.get(k).budget());
        }
    }

    /** Class {@code k}'s budget was {@code budget} for a while (e.g. through {@link QosEngine#setBudget}). */
    synchronized void budgetInForce(int k, int budget) {
        classBound[k] = Math.max(classBound[k], budget);
    }

    /** Max-executing was {@code max} for a while (e.g. through {@link QosEngine#setMaxExecuting}). */
    synchronized void maxInForce(int max) {
        totalBound = Math.max(totalBound, max);
        reserveBound = Math.max(reserveBound, max);
        if (defaultReserve > 0) {
            if (max >= keptFrom) {
                keeping++;
            } else {
                dropping++;
            }
        }
    }

    /** Whether the snapshot shows the highest class's default reserve dropped (max-executing too low for it). */
    private boolean dropped(EngineSnapshot s) {
        return defaultReserve > 0 && s.classes().get(0).reserve() < defaultReserve;
    }

    /**
     * Checks one snapshot against the invariants; then the bounds come down to what this snapshot allows from
     * now on.
     *
     * @throws AssertionError naming {@code where} and the snapshot
     */
    public synchronized void check(EngineSnapshot s, String where) {
        int executing = 0;
        int queued = 0;
        for (ClassStats c : s.classes()) {
            require(c.reconciles(), where, "counters do not reconcile for " + c.name(), s);
            long byLevel = 0;
            for (long n : c.completedByLevel()) {
                byLevel += n;
            }
            require(byLevel == c.completed() && c.completedAtLevel(0) == 0, where, "the completed requests by "
                    + "content level of " + c.name() + " do not add up to the completed ones", s);
            require(c.level() >= 0 && c.level() <= c.levels(), where, "the content level of " + c.name()
                    + " is outside 0..levels", s);
            require(c.lined() >= 0 && c.queued() >= 0, where, "a negative count of waiting requests of " + c.name(), s);
            require(c.borrowed() == Math.max(0, c.executing() - c.budget()), where,
                    "borrowed of " + c.name() + " is not max(0, executing - budget)", s);
            executing += c.executing();
            queued += c.queued();
        }
        require(executing == s.executing() && queued == s.queued(), where, "the totals are not the classes' sums", s);
        require(s.executing() <= totalBound, where, "executing " + s.executing() + " above max-executing (bound "
                + totalBound + ")", s);
        long held = heldOrOwed(s);
        long returns = Math.min(keeping, dropping + (droppedAtCheck ? 1 : 0));
        require(held <= reserveBound + returns * defaultReserve, where, "a reserve was lent: executing + owed "
                + "reserves " + held + " > " + reserveBound + " (+ " + returns + " returns of the default reserve)", s);
        for (int k = 0; k < classBound.length; k++) {
            ClassStats c = s.classes().get(k);
            if (classBudgets) {
                require(c.executing() <= classBound[k], where, c.name() + " runs " + c.executing()
                        + " above its budget (bound " + classBound[k] + ")", s);
                require(c.queued() == 0 || c.executing() >= c.budget() || s.executing() >= s.maxExecuting()
                        || reserveBlocks(s, k), where, c.name() + " waits below its budget", s);
            }
            classBound[k] = Math.max(c.executing(), c.budget());
        }
        if (borrowing && s.queued() > 0 && owed(s, -1) == 0) {
            require(s.executing() >= s.maxExecuting(), where,
                    "work conserving: requests wait while a permit is idle", s);
        }
        totalBound = Math.max(s.executing(), s.maxExecuting());
        reserveBound = Math.max(held, s.maxExecuting());
        keeping = 0;
        dropping = 0;
        droppedAtCheck = dropped(s);
    }

    /**
     * The sessions' lines ({@code admission.max-per-session}), checked inside the scheduler under its lock: each class's
     * line tickets and each session's line hold their counts, and a line waits only while its session has
     * max-per-session requests in flight (executing or in their class's queue). Those in the lines are not in the
     * classes' queues, so the checks of {@link #check} (nothing waits while it could start) hold with them.
     *
     * @throws AssertionError naming {@code where} and what is wrong
     */
    public static void checkLines(Scheduler scheduler, String where) {
        String problem = scheduler.lineProblem();
        if (problem != null) {
            throw new AssertionError(where + ": " + problem);
        }
    }

    /** {@link #checkLines(Scheduler, String)} of an engine. */
    public static void checkLines(QosEngine engine, String where) {
        checkLines(engine.scheduler(), where);
    }

    /** Permits held plus the reserves not yet used: at most max-executing after any grant. */
    private static long heldOrOwed(EngineSnapshot s) {
        return s.executing() + owed(s, -1);
    }

    /** The reserves not in use, of every class but {@code except} (-1: all). */
    private static int owed(EngineSnapshot s, int except) {
        int owed = 0;
        for (int j = 0; j < s.classes().size(); j++) {
            ClassStats c = s.classes().get(j);
            if (j != except) {
                owed += Math.max(0, c.reserve() - c.executing());
            }
        }
        return owed;
    }

    private static boolean reserveBlocks(EngineSnapshot s, int k) {
        return s.maxExecuting() - s.executing() - 1 < owed(s, k);
    }

    private static void require(boolean ok, String where, String what, EngineSnapshot s) {
        if (!ok) {
            throw new AssertionError(where + ": " + what + ": " + s);
        }
    }
}

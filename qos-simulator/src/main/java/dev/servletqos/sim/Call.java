package dev.servletqos.sim;

/** One simulated request, from entry to its outcome. */
final class Call {

    final Visit visit;
    final int step;
    /** Seconds of work at full speed (at the content level the engine chose, once it chose). */
    double work;
    /** The content level the engine chose (0 if refused). */
    int level;
    /** Response bytes, by the content level. */
    long bytes;
    /** Simulated nanoseconds since the start. */
    long entered;
    long started;
    boolean parked;

    /** The engine's ticket; typed loosely so that only {@link SimEngine} knows the engine's types. */
    Object ticket;
    /** The admission cookie value the response sets, or null. */
    String setCookie;
    Refusal refusal;

    /** Server bookkeeping: the virtual time at which the work is done. */
    double finishV;

    Call(Visit visit, int step, double work) {
        this.visit = visit;
        this.step = step;
        this.work = work;
    }
}

package dev.servletqos.sim;

/** One attempt at a session: its class, the user running it (closed classes), its cookie. */
final class Visit {

    final ClassRun cls;
    /** The user running it, or null for an open class. */
    final User user;
    /** 0 for the first attempt, then 1, 2, ... for retries of a refused session. */
    final int attempt;
    /** The admission cookie's value once the engine has set one. */
    String cookie;

    Visit(ClassRun cls, User user, int attempt) {
        this.cls = cls;
        this.user = user;
        this.attempt = attempt;
    }
}

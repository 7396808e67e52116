package dev.servletqos.loadtests;

/** How a user session ended, from the client's side. */
public enum Outcome {
    /** Every request answered 2xx within the client timeout. */
    COMPLETED,
    /** The first request was refused (503 with Retry-After): the server turned the session away before doing
     *  any work for it, which is what session admission is for. */
    REFUSED_AT_START,
    /** A later request was refused (503 with Retry-After): work already done for the session was wasted. */
    REFUSED_MID_SESSION,
    /** A request got no answer within the client timeout (the client gave up, as in paper 004). */
    TIMED_OUT,
    /** Any other failure: another status, a 503 without Retry-After, a connection error. */
    FAILED
}

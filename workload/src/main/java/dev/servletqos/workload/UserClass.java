package dev.servletqos.workload;

/**
 * A kind of user: the service class a session belongs to, its share of the new sessions, and whether its users
 * are returning ones, who carry the signed tier cookie an earlier visit's login issued (so the server recognises
 * them on the first request of the session). Immutable.
 *
 * @param name      the service class, as in the policy ({@code premium})
 * @param share     the fraction of new sessions, 0..1
 * @param returning whether its users come back with a tier cookie
 */
public record UserClass(String name, double share, boolean returning) {

    public UserClass {
        if (name == null || !name.matches("[A-Za-z0-9_-]{1,32}")) {
            throw new IllegalArgumentException("user class name must be 1 to 32 letters, digits, - or _, was "
                    + name);
        }
        if (!(share >= 0 && share <= 1)) {
            throw new IllegalArgumentException("user class " + name + ": share must be 0..1, was " + share);
        }
    }
}

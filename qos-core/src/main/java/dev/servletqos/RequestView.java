package dev.servletqos;

/**
 * What the engine may read of a request: a read-only view over the container's request object, built by
 * an adapter (valve, handler, filter). Nothing is copied; every method may be called more than once and
 * must be cheap. Implementations are used by one thread at a time.
 */
public interface RequestView {

    /** The HTTP method, upper case as sent ({@code GET}, {@code POST}). */
    String method();

    /** The host the request was sent to, without the port, as the container reports it; never null. */
    String host();

    /**
     * The path within the web application (after the context path), as decoded and normalised by the
     * container, starting with {@code /}; never null.
     */
    String path();

    /** The client's IP address as a literal (IPv4 dotted quad or IPv6 text), as the container reports it. */
    String remoteAddress();

    /** The value of the first cookie with this name, or null. */
    String cookie(String name);

    /** The first value of this header, or null. Names are case-insensitive. */
    String header(String name);

    /**
     * Whether the first value of header {@code name} contains the media type {@code type} (lower case, with its
     * slash: {@code text/event-stream}) in any case. By default read from {@link #header}; an adapter whose container
     * holds headers as bytes may answer without making the header a string ({@link AcceptHeader}).
     */
    default boolean headerHasMediaType(String name, String type) {
        String v = header(name);
        return v != null && AcceptHeader.contains(v, type);
    }
}

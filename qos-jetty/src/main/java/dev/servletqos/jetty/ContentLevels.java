package dev.servletqos.jetty;

import dev.servletqos.Attributes;
import org.eclipse.jetty.server.Request;

/**
 * The content level servlet-qos decided for a request, for a Jetty core handler behind {@link QosHandler} to
 * read (as {@code dev.servletqos.servlet.ContentLevels} for servlets): from 1, the lightest content, to the
 * class's {@code class.<name>.levels}, full content. {@link QosHandler} sets the request attributes
 * {@link Attributes#LEVEL} and {@link Attributes#LEVELS} on every request that runs. A request that did not pass
 * through servlet-qos reads as full content of a class with one level; a value that is not a number is ignored.
 */
public final class ContentLevels {

    private ContentLevels() {
    }

    /** The request's content level: 1..{@link #levels(Request)}; {@code levels} (full) when not set. */
    public static int level(Request request) {
        return Attributes.level(request.getAttribute(Attributes.LEVEL), request.getAttribute(Attributes.LEVELS));
    }

    /** The number of content levels of the request's class: the level of full content; 1 when not set. */
    public static int levels(Request request) {
        return Attributes.levels(request.getAttribute(Attributes.LEVELS));
    }

    /** Whether the request is to be served below full content. */
    public static boolean degraded(Request request) {
        return level(request) < levels(request);
    }
}

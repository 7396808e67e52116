package dev.servletqos.servlet;

import dev.servletqos.Attributes;
import jakarta.servlet.ServletRequest;

/**
 * The content level servlet-qos decided for a request, for the application to read (paper 000 section 4.2):
 * from 1, the lightest content, to the class's {@code class.<name>.levels}, full content. A dynamic page can
 * leave out embedded objects or serve a cached version below full; static content can be served from a
 * lighter tree by configuration ({@code content.*} keys) without the application's help.
 *
 * <p>The adapters (the Tomcat valve, the Jetty handler, {@link QosFilter}) set the request attributes
 * {@link Attributes#LEVEL} and {@link Attributes#LEVELS} on every request that runs. A request that did not
 * pass through servlet-qos reads as full content of a class with one level. A value that is not a number
 * is ignored: a bad attribute never breaks a page.
 */
public final class ContentLevels {

    private ContentLevels() {
    }

    /**
     * The request's content level: 1..{@link #levels(ServletRequest)}, as the engine decided it (at least 1); when
     * not set, {@code levels} (full content).
     */
    public static int level(ServletRequest request) {
        return Attributes.level(request.getAttribute(Attributes.LEVEL), request.getAttribute(Attributes.LEVELS));
    }

    /** The number of content levels of the request's class: the level of full content; 1 when not set. */
    public static int levels(ServletRequest request) {
        return Attributes.levels(request.getAttribute(Attributes.LEVELS));
    }

    /** Whether the request is to be served below full content. */
    public static boolean degraded(ServletRequest request) {
        return level(request) < levels(request);
    }
}

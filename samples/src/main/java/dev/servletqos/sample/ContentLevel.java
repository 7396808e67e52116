package dev.servletqos.sample;

import dev.servletqos.servlet.ContentLevels;
import jakarta.servlet.ServletRequest;

/**
 * Which content tree a request is served from, as the engine decided: the servlet-qos adapter in front of the
 * shop sets the request attributes {@value #ATTRIBUTE} (the request's content level, paper 000) and
 * {@code dev.servletqos.levels} (its class's number of levels), read here through
 * {@link ContentLevels}. The shop's policy gives each class {@code levels = 2}, one per tree:
 * <ul>
 *   <li>full content (level {@value #FULL} of 2), or no attributes (no servlet-qos in front): the full tree
 *       (product page with recommendations and two large images);</li>
 *   <li>below full content (level {@value #DEGRADED} of 2): the degraded tree (the product summary from cache, one
 *       small image from {@code img/degraded/}).</li>
 * </ul>
 * Level 0 ("refuse") never reaches the shop: the engine refuses such a new session before the application runs.
 * A value that is not a {@link Number} is ignored (full content): a bad attribute never breaks a page.
 */
public final class ContentLevel {

    /** The request attribute carrying the content level. */
    public static final String ATTRIBUTE = dev.servletqos.Attributes.LEVEL;
    /** The degraded tree. */
    public static final int DEGRADED = 1;
    /** The full tree, and what a request without the attribute gets. */
    public static final int FULL = 2;

    private ContentLevel() {
    }

    /** The level to serve this request at: {@link #DEGRADED} below its class's full content, else {@link #FULL}. */
    public static int of(ServletRequest request) {
        return ContentLevels.degraded(request) ? DEGRADED : FULL;
    }

    /** Whether this request gets the degraded tree. */
    public static boolean degraded(ServletRequest request) {
        return of(request) == DEGRADED;
    }

    /** The name used in the {@code X-Content-Level} header and the meters: {@code full} or {@code degraded}. */
    public static String name(int level) {
        return level <= DEGRADED ? "degraded" : "full";
    }
}

package dev.servletqos.sample;

import jakarta.servlet.ServletRequest;

/**
 * Which content tree a request is served from: the contract between a degradation mechanism (an adapter or
 * controller that sets the request attribute) and the shop (which reads it).
 *
 * <p>The attribute {@value #ATTRIBUTE} holds an {@link Integer} content level, as in paper 000: levels
 * {@code 1..}{@value #FULL} are content trees from lowest to full quality (level 0 would mean "reject", which
 * an adapter does itself before the application runs). The shop has two trees:
 * <ul>
 *   <li>{@value #FULL} and above, or the attribute absent: the full tree (product page with recommendations
 *       and two large images);</li>
 *   <li>{@value #DEGRADED} or below: the degraded tree (the product summary from cache, one small image from
 *       {@code img/degraded/}).</li>
 * </ul>
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

    /** The level to serve this request at: {@link #DEGRADED} or {@link #FULL}. */
    public static int of(ServletRequest request) {
        Object v = request.getAttribute(ATTRIBUTE);
        if (v instanceof Number n) {
            return n.intValue() <= DEGRADED ? DEGRADED : FULL;
        }
        return FULL;
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

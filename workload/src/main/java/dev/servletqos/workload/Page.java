package dev.servletqos.workload;

import java.net.URI;
import java.util.Objects;

/**
 * A page of the application as a client requests it and as it costs the server: at full content and at the
 * degraded level (the lighter content tree a degradation mechanism selects), and the resources it embeds.
 * Immutable.
 *
 * @param name     a short name, the same everywhere (the shop's {@code page} meter tag, the load generators'
 *                 request names)
 * @param method   {@code GET} or {@code POST}
 * @param path     the path and query, with placeholders a {@link Workload#plan plan} fills: {@code {class}}
 *                 (the user's class), {@code {page}} (the catalogue page the visit browses) and {@code {item}}
 *                 (a product on that page, drawn anew each time). For an embedded page it only shows what its
 *                 URLs look like: clients take them from the embedding page.
 * @param body     the request body of a POST, form-urlencoded; null for none
 * @param full     the cost at full content
 * @param degraded the cost at the degraded level
 * @param embeds   what the page embeds, fetched after it; null for nothing
 */
public record Page(String name, String method, String path, String body, Cost full, Cost degraded,
                   Embedded embeds) {

    /**
     * Resources a page embeds (images): {@code full} of them at full content, {@code degraded} at the degraded
     * level, found in the page's HTML as the {@code attribute} of each {@code tag} element.
     *
     * @param page      the embedded resource
     * @param tag       the HTML element that references it, e.g. {@code img}
     * @param attribute the attribute holding its URL, e.g. {@code src}
     * @param full      how many at full content
     * @param degraded  how many at the degraded level
     */
    public record Embedded(Page page, String tag, String attribute, int full, int degraded) {

        public Embedded {
            Objects.requireNonNull(page, "page");
            Objects.requireNonNull(tag, "tag");
            Objects.requireNonNull(attribute, "attribute");
            if (full < 0 || degraded < 0) {
                throw new IllegalArgumentException("embedded " + page.name() + ": counts must be 0 or more, were "
                        + full + " and " + degraded);
            }
        }

        /**
         * A reference found in a page ({@code ref}, the attribute's value) resolved against the page's URL, or
         * null when it is malformed or has another scheme, host or port than the page (or user info): a client
         * of the shop only follows references to the shop.
         */
        public static URI sameOrigin(URI page, String ref) {
            URI u;
            try {
                u = page.resolve(ref.trim());
            } catch (IllegalArgumentException e) {
                return null;
            }
            if (u.getScheme() == null || !u.getScheme().equalsIgnoreCase(page.getScheme()) || u.getHost() == null
                    || !u.getHost().equalsIgnoreCase(page.getHost()) || port(u) != port(page)
                    || u.getRawUserInfo() != null) {
                return null;
            }
            return u;
        }

        private static int port(URI u) {
            if (u.getPort() >= 0) {
                return u.getPort();
            }
            return "https".equalsIgnoreCase(u.getScheme()) ? 443 : 80;
        }
    }

    public Page {
        if (name == null || !name.matches("[a-z][a-z0-9-]{0,31}")) {
            throw new IllegalArgumentException("page name must be 1 to 32 lowercase letters, digits or -, was "
                    + name);
        }
        if (!"GET".equals(method) && !"POST".equals(method)) {
            throw new IllegalArgumentException("page " + name + ": method must be GET or POST, was " + method);
        }
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("page " + name + ": path must start with /, was " + path);
        }
        if (body != null && !"POST".equals(method)) {
            throw new IllegalArgumentException("page " + name + ": only a POST has a body");
        }
        Objects.requireNonNull(full, "full");
        Objects.requireNonNull(degraded, "degraded");
    }

    /** A page whose content has no degraded variant and which embeds nothing. */
    public static Page of(String name, String method, String path, String body, Cost cost) {
        return new Page(name, method, path, body, cost, cost, null);
    }

    /** Requests it takes to show the page at full content (or degraded): itself and what it embeds. */
    public int requests(boolean degradedContent) {
        return 1 + (embeds == null ? 0 : degradedContent ? embeds.degraded() : embeds.full());
    }

    /** What showing the page costs the server, itself and what it embeds, at full content (or degraded). */
    public Cost cost(boolean degradedContent) {
        Cost own = degradedContent ? degraded : full;
        if (embeds == null) {
            return own;
        }
        Page e = embeds.page();
        return degradedContent ? own.plus(e.degraded().times(embeds.degraded()))
                : own.plus(e.full().times(embeds.full()));
    }
}

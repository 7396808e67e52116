package dev.servletqos.workload;

import java.time.Duration;
import java.util.List;

/**
 * The sample shop's session, the one description the shop's cost model, the demo's load generator, the Gatling
 * simulation and the simulator read. At cost scale 1 (milliseconds; the table is also in docs/sample.md):
 * <pre>
 * page              wait   CPU
 * /login             10    0.5
 * /browse            30    1
 * /item (full)       80    1     two full images
 * /item (degraded)   10    0.125 one degraded image (an eighth of the full page, as paper 000's 8:1)
 * /img full           3    0.1   about 25 KB
 * /img degraded       1    0.05  about 0.3 KB
 * POST /checkout    250    2
 * </pre>
 * A session is {@code /login}, {@code /browse} (a random catalogue page), three product pages of that
 * catalogue page, each with the images it shows, and {@code POST /checkout}: 12 requests, no think time (paper
 * 004, figure 14: consecutive requests with minimal inter-arrival time), 548 ms of back-end waits and 7.1 ms of
 * CPU. A fifth of the sessions are premium users, who are returning users (50 of them, each with the tier cookie
 * of an earlier visit); the others are new basic visitors. A session completes only if every request is
 * answered 2xx within 5 s.
 */
public final class ShopWorkload {

    /** 500 products, 20 to a catalogue page. */
    public static final Catalog CATALOG = new Catalog(500, 20);

    /** {@code GET /img/NAME.svg}: a product image, full (about 25 KB) or degraded (about 0.3 KB). */
    public static final Page IMAGE = new Page("img", "GET", "/img/{name}.svg", null, new Cost(3, 0.1),
            new Cost(1, 0.05), null);
    /** {@code GET /login?tier=CLASS}: starts the shop session and issues the tier cookie. */
    public static final Page LOGIN = Page.of("login", "GET", "/login?tier={class}", null, new Cost(10, 0.5));
    /** {@code GET /browse?page=N}: a catalogue page of 20 products. */
    public static final Page BROWSE = Page.of("browse", "GET", "/browse?page={page}", null, new Cost(30, 1));
    /**
     * {@code GET /item?id=N}: product, stock and recommendations with two full images; degraded, the cached
     * summary with one degraded image, at an eighth of the full page's cost (paper 000 served degraded content at
     * 8:1; a cache hit instead of the product, stock and recommendation queries).
     */
    public static final Page ITEM = new Page("item", "GET", "/item?id={item}", null, new Cost(80, 1),
            new Cost(10, 0.125), new Page.Embedded(IMAGE, "img", "src", 2, 1));
    /** {@code POST /checkout}: pays for the cart (a payment gateway). */
    public static final Page CHECKOUT = Page.of("checkout", "POST", "/checkout", "pay=card", new Cost(250, 2));

    /** The shop's session. */
    public static final Workload SHOP = new Workload(
            List.of(new UserClass("premium", 0.2, true), new UserClass("basic", 0.8, false)),
            List.of(Step.of(LOGIN), Step.of(BROWSE), Step.of(ITEM), Step.of(ITEM), Step.of(ITEM), Step.of(CHECKOUT)),
            CATALOG, Duration.ofSeconds(5), 50);

    private ShopWorkload() {
    }
}

package dev.servletqos.sample;

import dev.servletqos.workload.Cost;
import dev.servletqos.workload.ShopWorkload;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpSession;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;

/**
 * The shop's pages. Every answer carries {@code X-Service-Micros} (the time the page spent in the
 * application, so that a client can tell waiting from working) and {@code X-Content-Level}
 * ({@code full} or {@code degraded}). Bad parameters get a 400 with a short message, never a 500.
 */
final class ShopServlets {

    /** Header with the microseconds the request spent in the application. */
    static final String SERVICE_TIME_HEADER = "X-Service-Micros";
    /** Header with the content tree served: {@code full} or {@code degraded}. */
    static final String LEVEL_HEADER = "X-Content-Level";
    static final String CART = "cart";
    private static final int MAX_CART = 50;
    private static final Pattern TIER = Pattern.compile("[A-Za-z0-9_-]{1,32}");
    private static final Pattern USER = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");

    private ShopServlets() {
    }

    /** What all pages share: the cost model, the catalogue and the answer with its timing headers. */
    abstract static class Page extends HttpServlet {
        private static final long serialVersionUID = 1L;

        Costs costs() {
            return (Costs) getServletContext().getAttribute(Shop.COSTS_ATTRIBUTE);
        }

        /** Spends a page's cost at the back end's speed now. */
        void spend(Cost cost) {
            costs().spend(cost, Shop.backend(getServletContext()));
        }

        Catalog catalog() {
            return (Catalog) getServletContext().getAttribute(Shop.CATALOG_ATTRIBUTE);
        }

        void send(HttpServletRequest req, HttpServletResponse resp, long startNanos, int status, String type,
                  byte[] body, String page, int level) throws IOException {
            long micros = (System.nanoTime() - startNanos) / 1000;
            resp.setStatus(status);
            resp.setContentType(type);
            resp.setHeader(SERVICE_TIME_HEADER, Long.toString(micros));
            resp.setHeader(LEVEL_HEADER, ContentLevel.name(level));
            resp.setHeader("Cache-Control", "no-store");
            resp.setContentLength(body.length);
            // counted before the body goes out: writing all of it may send the response at once
            ShopMetrics m = (ShopMetrics) getServletContext().getAttribute(Shop.METRICS_ATTRIBUTE);
            if (m != null) {
                m.page(page, level, status, micros);
            }
            if (!"HEAD".equals(req.getMethod())) {
                resp.getOutputStream().write(body);
            }
        }

        void html(HttpServletRequest req, HttpServletResponse resp, long startNanos, int status, String page,
                  int level, String title, String body) throws IOException {
            String doc = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + escape(title)
                    + "</title></head>\n<body>\n" + body + "\n</body></html>\n";
            send(req, resp, startNanos, status, "text/html;charset=utf-8", doc.getBytes(StandardCharsets.UTF_8),
                    page, level);
        }

        void badRequest(HttpServletRequest req, HttpServletResponse resp, long startNanos, String page,
                        String message) throws IOException {
            html(req, resp, startNanos, 400, page, ContentLevel.FULL, "Bad request", "<p>" + escape(message) + "</p>");
        }
    }

    /** {@code GET /}: links to the pages. */
    static final class Index extends Page {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t0 = System.nanoTime();
            String c = req.getContextPath();
            html(req, resp, t0, 200, "index", ContentLevel.FULL, "servlet-qos sample shop",
                    "<h1>servlet-qos sample shop</h1><ul>"
                            + "<li><a href=\"" + c + "/login?tier=premium\">log in as a premium customer</a></li>"
                            + "<li><a href=\"" + c + "/login?tier=basic\">log in as a basic customer</a></li>"
                            + "<li><a href=\"" + c + "/browse\">browse</a></li>"
                            + "<li><a href=\"" + c + "/qos\">/qos</a> (engine state, JSON)</li>"
                            + "<li><a href=\"" + c + "/qos/status\">/qos/status</a> (QoS status page, from this"
                            + " machine)</li>"
                            + "<li><a href=\"" + c + "/metrics\">/metrics</a> (Prometheus)</li></ul>");
        }
    }

    /**
     * {@code GET /login?tier=premium|basic[&user=NAME]}: starts the shop session and issues the signed tier
     * cookie (long-lived, so a returning customer is recognised on the first request of a later visit). A
     * real shop would authenticate the user and look the tier up; the sample takes it from the query.
     */
    static final class Login extends Page {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t0 = System.nanoTime();
            String tier = req.getParameter("tier");
            if (tier == null || tier.isEmpty()) {
                tier = "basic";
            }
            if (!TIER.matcher(tier).matches()) {
                badRequest(req, resp, t0, "login", "tier must be 1 to 32 letters, digits, - or _ (premium, basic)");
                return;
            }
            String user = req.getParameter("user");
            if (user == null || user.isEmpty()) {
                user = "guest-" + Long.toHexString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE);
            } else if (!USER.matcher(user).matches()) {
                badRequest(req, resp, t0, "login", "user must be 1 to 64 letters, digits, _ . @ or -");
                return;
            }
            spend(ShopWorkload.LOGIN.full());
            HttpSession session = req.getSession(true);
            session.setAttribute("user", user);
            session.setAttribute("tier", tier);
            session.setAttribute(CART, new ArrayList<Integer>());
            resp.addHeader("Set-Cookie", Shop.tierCookies(getServletContext()).setCookieHeader(tier, user));
            html(req, resp, t0, 200, "login", ContentLevel.FULL, "Welcome",
                    "<h1>Welcome, " + escape(user) + "</h1><p>Your tier: " + escape(tier) + ".</p><p><a href=\""
                            + req.getContextPath() + "/browse\">Start shopping</a></p>");
        }
    }

    /** {@code GET /browse[?page=N]}: a catalogue page of 20 products (cheap). */
    static final class Browse extends Page {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t0 = System.nanoTime();
            int pages = Catalog.ITEMS / Catalog.PAGE_SIZE;
            int page = 1;
            String p = req.getParameter("page");
            if (p != null) {
                page = parse(p);
                if (page < 1 || page > pages) {
                    badRequest(req, resp, t0, "browse", "page must be 1 to " + pages);
                    return;
                }
            }
            spend(ShopWorkload.BROWSE.full());
            StringBuilder b = new StringBuilder("<h1>Products, page ").append(page).append("</h1>\n<ul>\n");
            for (int id = (page - 1) * Catalog.PAGE_SIZE + 1; id <= page * Catalog.PAGE_SIZE; id++) {
                b.append("<li><a href=\"").append(req.getContextPath()).append("/item?id=").append(id).append("\">")
                        .append(escape(Catalog.name(id))).append("</a> ").append(price(Catalog.priceCents(id)))
                        .append("</li>\n");
            }
            b.append("</ul>");
            html(req, resp, t0, 200, "browse", ContentLevel.FULL, "Products", b.toString());
        }
    }

    /**
     * {@code GET /item?id=N}: a product page. Full: the product, stock and recommendations (80 ms of back end)
     * and two full images. Degraded ({@link ContentLevel}): the cached summary (10 ms, an eighth) and one
     * degraded image. Puts the product in the session's cart.
     */
    static final class Item extends Page {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t0 = System.nanoTime();
            String p = req.getParameter("id");
            int id = p == null ? -1 : parse(p);
            if (!Catalog.exists(id)) {
                badRequest(req, resp, t0, "item", "id must be a product number, 1 to " + Catalog.ITEMS);
                return;
            }
            int level = ContentLevel.of(req);
            boolean degraded = level == ContentLevel.DEGRADED;
            spend(degraded ? ShopWorkload.ITEM.degraded() : ShopWorkload.ITEM.full());
            addToCart(req, id);
            String c = req.getContextPath();
            StringBuilder b = new StringBuilder("<h1>").append(escape(Catalog.name(id))).append("</h1>\n");
            for (String image : Catalog.images(id, degraded ? Costs.ITEM_DEGRADED_IMAGES : Costs.ITEM_IMAGES)) {
                b.append("<img src=\"").append(c).append("/img/").append(image).append("\" alt=\"")
                        .append(escape(Catalog.name(id))).append("\">\n");
            }
            b.append("<p>Price: ").append(price(Catalog.priceCents(id))).append("</p>\n");
            if (degraded) {
                b.append("<p class=\"light\">The shop is busy: you are seeing a light version of this page.</p>");
            } else {
                b.append("<p>In stock: ").append(3 + id % 17).append("</p>\n<h2>Customers also bought</h2>\n<ul>\n");
                for (int k = 1; k <= 4; k++) {
                    int other = (id + k * 37) % Catalog.ITEMS + 1;
                    b.append("<li><a href=\"").append(c).append("/item?id=").append(other).append("\">")
                            .append(escape(Catalog.name(other))).append("</a></li>\n");
                }
                b.append("</ul>");
            }
            html(req, resp, t0, 200, "item", level, Catalog.name(id), b.toString());
        }

        @SuppressWarnings("unchecked")
        private static void addToCart(HttpServletRequest req, int id) {
            HttpSession session = req.getSession(false);
            if (session == null) {
                return;
            }
            synchronized (session) {
                Object cart = session.getAttribute(CART);
                if (cart instanceof List<?> list && list.size() < MAX_CART) {
                    ((List<Integer>) list).add(id);
                }
            }
        }
    }

    /** {@code GET /img/NAME}: a product image from the full tree, or the degraded one ({@link ContentLevel}). */
    static final class Image extends Page {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t0 = System.nanoTime();
            String path = req.getPathInfo();
            int level = ContentLevel.of(req);
            boolean degraded = level == ContentLevel.DEGRADED;
            byte[] bytes = path == null || path.length() < 2 ? null : catalog().image(path.substring(1), degraded);
            if (bytes == null) {
                html(req, resp, t0, 404, "img", level, "Not found", "<p>No such image.</p>");
                return;
            }
            spend(degraded ? ShopWorkload.IMAGE.degraded() : ShopWorkload.IMAGE.full());
            send(req, resp, t0, 200, "image/svg+xml", bytes, "img", level);
        }
    }

    /** {@code POST /checkout}: pays for the cart (a 250 ms payment gateway); needs a session from /login. */
    static final class Checkout extends Page {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long t0 = System.nanoTime();
            HttpSession session = req.getSession(false);
            if (session == null || session.getAttribute("user") == null) {
                html(req, resp, t0, 401, "checkout", ContentLevel.FULL, "Log in first",
                        "<p>Log in first: <a href=\"" + req.getContextPath() + "/login\">/login</a></p>");
                return;
            }
            List<Integer> items;
            synchronized (session) {
                Object cart = session.getAttribute(CART);
                items = cart instanceof List<?> list ? toIds(list) : List.of();
                session.setAttribute(CART, new ArrayList<Integer>());
            }
            if (items.isEmpty()) {
                html(req, resp, t0, 409, "checkout", ContentLevel.FULL, "Empty cart", "<p>Your cart is empty.</p>");
                return;
            }
            spend(ShopWorkload.CHECKOUT.full());
            long total = 0;
            for (int id : items) {
                total += Catalog.priceCents(id);
            }
            String order = "O-" + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36);
            html(req, resp, t0, 200, "checkout", ContentLevel.FULL, "Thank you",
                    "<h1>Thank you</h1><p>Order " + order + ": " + items.size() + " items, " + price(total) + ".</p>");
        }

        private static List<Integer> toIds(List<?> list) {
            List<Integer> ids = new ArrayList<>(list.size());
            for (Object o : list) {
                if (o instanceof Integer i) {
                    ids.add(i);
                }
            }
            return ids;
        }
    }

    /** A non-negative decimal int, or -1. */
    static int parse(String s) {
        if (s.isEmpty() || s.length() > 9) {
            return -1;
        }
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) < '0' || s.charAt(i) > '9') {
                return -1;
            }
        }
        return Integer.parseInt(s);
    }

    static String price(long cents) {
        return String.format(Locale.ROOT, "EUR %d.%02d", cents / 100, cents % 100);
    }

    static String escape(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '&' -> b.append("&amp;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                default -> b.append(c);
            }
        }
        return b.toString();
    }
}

package dev.servletqos.sample;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** {@code GET /metrics}: the Prometheus text exposition of the engine's and the shop's meters. */
final class MetricsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ShopMetrics metrics = (ShopMetrics) getServletContext().getAttribute(Shop.METRICS_ATTRIBUTE);
        byte[] body = metrics.scrape(Shop.engine(getServletContext())).getBytes(StandardCharsets.UTF_8);
        resp.setContentType("text/plain;version=0.0.4;charset=utf-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }
}

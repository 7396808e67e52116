package dev.servletqos.sample;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** {@code GET /metrics}: the Prometheus text exposition of the engine's and the shop's meters. */
final class MetricsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        ShopMetrics metrics = (ShopMetrics) getServletContext().getAttribute(Shop.METRICS_ATTRIBUTE);
        Shop.write(resp, HttpServletResponse.SC_OK, "text/plain;version=0.0.4;charset=utf-8",
                metrics.scrape(Shop.engine(getServletContext())));
    }
}

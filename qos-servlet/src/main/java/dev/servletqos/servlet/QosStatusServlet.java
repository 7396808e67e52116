package dev.servletqos.servlet;

import dev.servletqos.Attributes;
import dev.servletqos.QosEngine;
import dev.servletqos.status.AllowedClients;
import dev.servletqos.status.StatusPage;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;

/**
 * The read-only status page of the application's QoS engine ({@link StatusPage}): map it where the operator
 * looks, e.g. {@code /qos/status} in {@code web.xml}; nothing is served unless it is mapped. It shows the engine
 * the Tomcat valve or the filter published in the context attribute {@link Attributes#ENGINE} (503 while there
 * is none). {@code ?format=json} answers the same data as JSON.
 *
 * <p>Init parameter {@code allow}: the client addresses it answers, IP ranges separated by commas or white
 * space (default {@value AllowedClients#LOOPBACK}, this machine only; others get 403). The address is
 * {@code getRemoteAddr()}, which a proxy valve such as Tomcat's {@code RemoteIpValve} replaces with the
 * forwarded client's. A bad range fails the servlet's start naming the parameter and the value.
 *
 * <p>Behind the valve or the filter the page is a request like any other: in an overload it waits in its
 * class's queue, or is refused as a new session. Classify the operator by what a client cannot choose (an
 * {@code ip} rule for the operator's address, or a tier cookie), not by the page's path: a path rule would let any
 * client that asks for the page first start a session of that class, even when it gets 403.
 */
public class QosStatusServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** The init parameter naming the allowed client ranges. */
    public static final String ALLOW = "allow";

    private transient StatusPage page;

    @Override
    public void init() throws ServletException {
        String allow = getInitParameter(ALLOW);
        try {
            page = new StatusPage(allow == null ? AllowedClients.loopback() : AllowedClients.parse(ALLOW, allow));
        } catch (IllegalArgumentException e) {
            throw new ServletException("servlet-qos status page " + getServletName() + ": " + e.getMessage(), e);
        }
    }

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        QosEngine engine = getServletContext().getAttribute(Attributes.ENGINE) instanceof QosEngine e ? e : null;
        StatusPage.Answer a = page.answer(req.getMethod(), req.getRemoteAddr(), req.getQueryString(), engine,
                System.currentTimeMillis());
        resp.setStatus(a.status());
        resp.setContentType(a.contentType());
        for (Map.Entry<String, String> h : a.headers().entrySet()) {
            resp.setHeader(h.getKey(), h.getValue());
        }
        resp.setContentLength(a.length());
        if (a.sendBody()) {
            resp.getOutputStream().write(a.body());
        }
    }
}

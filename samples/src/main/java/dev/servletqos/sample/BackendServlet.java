package dev.servletqos.sample;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * {@code /admin/backend}: the back-end speed knob ({@link Backend}) over HTTP, for clients on this machine only.
 * {@code GET} answers the factor in force, {@code POST ?factor=X} (query or form) sets it and answers the new
 * and the previous factor, as JSON. A client that is not on a loopback address gets 403 whatever it asks;
 * a missing, malformed or out-of-range factor gets 400 with a message that says what is allowed.
 */
final class BackendServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+");

    @Override
    protected void service(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {
        if (!loopback(req.getRemoteAddr())) {
            text(resp, 403, "/admin/backend answers only clients on this machine (127.0.0.1 or ::1), not "
                    + req.getRemoteAddr());
            return;
        }
        super.service(req, resp);
    }

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        json(resp, new Json(true).beginObject().field("backendFactor", backend().factor()).endObject());
    }

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        double factor;
        try {
            factor = Backend.parse(req.getParameter("factor"));
        } catch (IllegalArgumentException e) {
            text(resp, 400, e.getMessage());
            return;
        }
        double before = backend().setFactor(factor);
        json(resp, new Json(true).beginObject().field("backendFactor", factor).field("previous", before)
                .endObject());
    }

    private Backend backend() {
        return Shop.backend(getServletContext());
    }

    /**
     * Whether {@code address} (the client's IP address as the container reports it) is a loopback address:
     * 127.0.0.0/8, ::1, or such an IPv4 address mapped into IPv6. Only IP literals are considered (a host name
     * is never looked up), so anything else is not.
     */
    static boolean loopback(String address) {
        if (address == null) {
            return false;
        }
        String a = address.startsWith("[") && address.endsWith("]") ? address.substring(1, address.length() - 1)
                : address;
        int zone = a.indexOf('%');
        String ip = zone < 0 ? a : a.substring(0, zone);
        boolean literal = IPV4.matcher(ip).matches() || (ip.indexOf(':') >= 0 && IPV6.matcher(ip).matches());
        if (!literal) {
            return false;
        }
        try {
            return InetAddress.getByName(a).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static void json(HttpServletResponse resp, Json body) throws IOException {
        Shop.write(resp, 200, "application/json;charset=utf-8", body + "\n");
    }

    private static void text(HttpServletResponse resp, int status, String message) throws IOException {
        Shop.write(resp, status, "text/plain;charset=utf-8", message + "\n");
    }
}

package dev.servletqos.servlet;

import dev.servletqos.CookieHeader;
import dev.servletqos.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Enumeration;

/**
 * The engine's view of a servlet request; reads the request, copies nothing but its {@code Cookie} headers, read once
 * and kept as one string. Used by the filter, and by the Tomcat valve (Tomcat's own request is an
 * {@code HttpServletRequest}, its mapping already done at the valve), which reads the headers' bytes instead.
 */
public class ServletRequestView implements RequestView {

    private final HttpServletRequest request;
    /** {@link #cookieHeaders()}, once read; null before. */
    private String cookies;
    /** {@link #path()}, once read; null before. */
    private String path;

    public ServletRequestView(HttpServletRequest request) {
        this.request = request;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String host() {
        String h = request.getServerName();
        return h == null ? "" : h;
    }

    /**
     * Servlet path plus path info: the path within the application, decoded and normalised by the container. Read
     * once: the exempt rules, the stream paths and the routes each ask, and Tomcat makes a new string on every call
     * for a path mapped by prefix or extension.
     */
    @Override
    public String path() {
        String p = path;
        if (p == null) {
            path = p = readPath();
        }
        return p;
    }

    private String readPath() {
        String servletPath = request.getServletPath();
        String pathInfo = request.getPathInfo();
        if (servletPath == null || servletPath.isEmpty()) {
            return pathInfo == null || pathInfo.isEmpty() ? "/" : pathInfo;
        }
        return pathInfo == null ? servletPath : servletPath + pathInfo; // one of them alone: no new string
    }

    @Override
    public String remoteAddress() {
        String a = request.getRemoteAddr();
        return a == null ? "" : a;
    }

    /**
     * The value of the first cookie of that name in the request's {@code Cookie} headers, or null. Read from the
     * headers, not {@code getCookies()}: the container would parse every cookie of the request into objects on every
     * request (2.9 % of the valve's time on the cheapest request), the application may never ask for them, and Jetty's
     * servlet layer answers 400 "Invalid cookie" for a value its compliance mode refuses, where the adapter should
     * classify the request without cookies (the default class), like the Jetty handler does.
     */
    @Override
    public String cookie(String name) {
        String h = cookies;
        if (h == null) {
            h = cookies = cookieHeaders(); // once: the engine asks for the tier cookie and the session's
        }
        return h.isEmpty() ? null : CookieHeader.value(h, name);
    }

    /** The request's {@code Cookie} headers as one (HTTP/2 may send one per cookie), "" for none. */
    private String cookieHeaders() {
        Enumeration<String> all = request.getHeaders("Cookie");
        if (all == null || !all.hasMoreElements()) {
            return "";
        }
        String first = all.nextElement();
        if (!all.hasMoreElements()) {
            return first;
        }
        StringBuilder b = new StringBuilder(first);
        while (all.hasMoreElements()) {
            b.append("; ").append(all.nextElement());
        }
        return b.toString();
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }
}

package dev.servletqos.servlet;

import dev.servletqos.RequestView;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Enumeration;

/**
 * The engine's view of a servlet request; reads the request, copies nothing. Used by the filter and by the
 * Tomcat valve (Tomcat's own request is an {@code HttpServletRequest}, its mapping already done at the valve).
 */
public final class ServletRequestView implements RequestView {

    private final HttpServletRequest request;

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

    /** Servlet path plus path info: the path within the application, decoded and normalised by the container. */
    @Override
    public String path() {
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
        String first = request.getHeader("Cookie");
        if (first == null) {
            return null;
        }
        String v = CookieHeader.value(first, name);
        if (v != null) {
            return v;
        }
        // more than one Cookie header (HTTP/2 sends one per cookie): the others, in order
        Enumeration<String> all = request.getHeaders("Cookie");
        if (all == null || !all.hasMoreElements()) {
            return null;
        }
        all.nextElement();
        while (all.hasMoreElements()) {
            v = CookieHeader.value(all.nextElement(), name);
            if (v != null) {
                return v;
            }
        }
        return null;
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }
}

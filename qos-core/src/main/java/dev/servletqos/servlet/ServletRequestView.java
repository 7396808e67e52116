package dev.servletqos.servlet;

import dev.servletqos.RequestView;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;

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
        String p = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
        return p.isEmpty() ? "/" : p;
    }

    @Override
    public String remoteAddress() {
        String a = request.getRemoteAddr();
        return a == null ? "" : a;
    }

    @Override
    public String cookie(String name) {
        Cookie[] cookies = request.getCookies();
        if (cookies == null) {
            return null;
        }
        for (Cookie c : cookies) {
            if (name.equals(c.getName())) {
                return c.getValue();
            }
        }
        return null;
    }

    @Override
    public String header(String name) {
        return request.getHeader(name);
    }
}

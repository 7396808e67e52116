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

    /**
     * The value of the first cookie of that name, or null; also null when the container refuses the request's
     * {@code Cookie} header (Jetty's servlet layer throws its 400 "Invalid cookie" for a value its cookie compliance
     * mode does not allow, such as a non-ASCII character): the request is classified without cookies, as the default
     * class, like the Jetty handler does, instead of being answered 400 because the adapter looked.
     */
    @Override
    public String cookie(String name) {
        Cookie[] cookies;
        try {
            cookies = request.getCookies();
        } catch (RuntimeException e) {
            return null;
        }
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

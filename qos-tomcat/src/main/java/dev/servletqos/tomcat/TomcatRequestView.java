package dev.servletqos.tomcat;

import dev.servletqos.RequestView;
import jakarta.servlet.http.Cookie;
import org.apache.catalina.connector.Request;

/** The engine's view of a Tomcat request; reads the container's request, copies nothing. */
final class TomcatRequestView implements RequestView {

    private final Request request;

    TomcatRequestView(Request request) {
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

    @Override
    public String path() {
        String uri = request.getDecodedRequestURI();
        if (uri == null) {
            return "/";
        }
        String context = request.getContextPath();
        int n = context == null ? 0 : context.length();
        return uri.length() > n && uri.startsWith(context == null ? "" : context) ? uri.substring(n) : "/";
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

package dev.servletqos.jetty;

import dev.servletqos.RequestView;
import java.util.List;
import org.eclipse.jetty.http.HttpCookie;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.URIUtil;

/** The engine's view of a Jetty core request; reads the container's request, copies nothing. */
final class JettyRequestView implements RequestView {

    private final Request request;

    JettyRequestView(Request request) {
        this.request = request;
    }

    @Override
    public String method() {
        return request.getMethod();
    }

    @Override
    public String host() {
        String h = Request.getServerName(request);
        return h == null ? "" : h;
    }

    @Override
    public String path() {
        // Jetty gives the canonical path still percent-encoded; the rules match decoded paths, as on Tomcat.
        String encoded = Request.getPathInContext(request);
        if (encoded == null || encoded.isEmpty()) {
            return "/";
        }
        try {
            return URIUtil.decodePath(encoded);
        } catch (RuntimeException e) {
            // a malformed escape: match the text as sent rather than refuse the request
            return encoded;
        }
    }

    @Override
    public String remoteAddress() {
        String a = Request.getRemoteAddr(request);
        if (a == null) {
            return "";
        }
        // Jetty writes IPv6 addresses in brackets, as in a URI; the rules take the bare literal
        return a.length() > 1 && a.charAt(0) == '[' && a.charAt(a.length() - 1) == ']'
                ? a.substring(1, a.length() - 1)
                : a;
    }

    @Override
    public String cookie(String name) {
        List<HttpCookie> cookies;
        try {
            cookies = Request.getCookies(request);
        } catch (RuntimeException e) {
            // a Cookie header Jetty's compliance mode refuses: the request is classified without cookies
            return null;
        }
        if (cookies == null) {
            return null;
        }
        for (HttpCookie c : cookies) {
            if (name.equals(c.getName())) {
                return c.getValue();
            }
        }
        return null;
    }

    @Override
    public String header(String name) {
        return request.getHeaders().get(name);
    }
}

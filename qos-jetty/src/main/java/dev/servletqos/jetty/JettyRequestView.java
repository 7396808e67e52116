package dev.servletqos.jetty;

import dev.servletqos.CookieHeader;
import dev.servletqos.RequestView;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.util.URIUtil;

/** The engine's view of a Jetty core request; reads the container's request, copies nothing but its decoded path. */
final class JettyRequestView implements RequestView {

    private final Request request;
    /** {@link #path()}, once read; null before. */
    private String path;

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
        String p = path;
        if (p == null) {
            path = p = readPath(); // once: the exempt rules, the stream paths and the routes each ask
        }
        return p;
    }

    private String readPath() {
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

    /**
     * The value of the first cookie of that name in the request's {@code Cookie} headers (HTTP/2 sends one per
     * cookie), in their order, or null. Read from the headers, not {@code Request.getCookies}: Jetty would parse every
     * cookie of the request into objects on every request (about a twentieth of the handler's time on the cheapest
     * request), and a {@code Cookie} header its compliance mode refuses would hide ours; such a request is classified
     * on what {@link CookieHeader} finds. Jetty holds the values as strings already: nothing is copied.
     */
    @Override
    public String cookie(String name) {
        for (HttpField f : request.getHeaders()) {
            if (f.getHeader() == HttpHeader.COOKIE && f.getValue() != null) {
                String found = CookieHeader.value(f.getValue(), name);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    @Override
    public String header(String name) {
        return request.getHeaders().get(name);
    }
}

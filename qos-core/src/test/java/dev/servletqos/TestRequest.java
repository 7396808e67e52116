package dev.servletqos;

import java.util.HashMap;
import java.util.Map;

/**
 * A request for engine tests: defaults to GET / on localhost, no cookies, no headers, from a client address of its
 * own (in 2001:db8::/32, the documentation prefix, which no test's ip rule names; a new one for each request made,
 * as independent clients have), unless {@link #from} names one: a
 * test of the per-address limits names its addresses. It asks for HTML ({@code Accept: text/html}), as a browser's
 * page does, so that one without an admission cookie is a new session; {@link #api} makes one that does not (no
 * Accept), a stateless request.
 */
public final class TestRequest implements RequestView {

    private static final java.util.concurrent.atomic.AtomicInteger CLIENTS = new java.util.concurrent.atomic.AtomicInteger();

    private String method = "GET";
    private String host = "localhost";
    private String path = "/";
    private String remote = client(CLIENTS.getAndIncrement());
    private final Map<String, String> cookies = new HashMap<>();
    private final Map<String, String> headers = new HashMap<>();

    private static String client(int n) {
        return "2001:db8::" + Integer.toHexString(n >>> 16) + ":" + Integer.toHexString(n & 0xffff);
    }

    public static TestRequest get(String path) {
        TestRequest r = new TestRequest();
        r.path = path;
        r.headers.put("accept", "text/html,application/xhtml+xml,*/*;q=0.8");
        return r;
    }

    /** A GET of an API caller: no Accept header, so without an admission cookie it is a stateless request. */
    public static TestRequest api(String path) {
        TestRequest r = new TestRequest();
        r.path = path;
        return r;
    }

    public TestRequest cookie(String name, String value) {
        cookies.put(name, value);
        return this;
    }

    public TestRequest header(String name, String value) {
        headers.put(name.toLowerCase(java.util.Locale.ROOT), value);
        return this;
    }

    public TestRequest method(String m) {
        this.method = m;
        return this;
    }

    public TestRequest from(String address) {
        this.remote = address;
        return this;
    }

    public TestRequest host(String h) {
        this.host = h;
        return this;
    }

    @Override
    public String method() {
        return method;
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public String cookie(String name) {
        return cookies.get(name);
    }

    @Override
    public String header(String name) {
        return headers.get(name.toLowerCase(java.util.Locale.ROOT));
    }
}

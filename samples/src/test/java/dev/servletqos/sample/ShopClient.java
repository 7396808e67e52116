package dev.servletqos.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** A browser-like client for the tests: one cookie jar, kept by hand (name to value). */
public final class ShopClient {

    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10)).build();

    private final int port;
    /** The cookies this client sends; tests may add, remove or tamper with them. */
    public final Map<String, String> cookies = new LinkedHashMap<>();

    public ShopClient(int port) {
        this.port = port;
    }

    public HttpResponse<String> get(String pathAndQuery) throws IOException, InterruptedException {
        return send(request(pathAndQuery).GET().build());
    }

    public HttpResponse<byte[]> getBytes(String pathAndQuery) throws IOException, InterruptedException {
        HttpResponse<byte[]> r = HTTP.send(request(pathAndQuery).GET().build(), HttpResponse.BodyHandlers.ofByteArray());
        keep(r);
        return r;
    }

    public HttpResponse<String> post(String pathAndQuery) throws IOException, InterruptedException {
        return send(request(pathAndQuery).header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("pay=card")).build());
    }

    /** A request with any method and no body. */
    public HttpResponse<String> send(String method, String pathAndQuery) throws IOException, InterruptedException {
        return send(request(pathAndQuery).method(method, HttpRequest.BodyPublishers.noBody()).build());
    }

    private HttpResponse<String> send(HttpRequest r) throws IOException, InterruptedException {
        HttpResponse<String> resp = HTTP.send(r, HttpResponse.BodyHandlers.ofString());
        keep(resp);
        return resp;
    }

    private HttpRequest.Builder request(String pathAndQuery) {
        // a browser's page: without an admission cookie, a new session (not a stateless API call)
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + pathAndQuery))
                .timeout(Duration.ofSeconds(20)).setHeader("Accept", "text/html,application/xhtml+xml,*/*;q=0.8");
        if (!cookies.isEmpty()) {
            StringBuilder c = new StringBuilder();
            cookies.forEach((n, v) -> c.append(c.length() == 0 ? "" : "; ").append(n).append('=').append(v));
            b.header("Cookie", c.toString());
        }
        return b;
    }

    private void keep(HttpResponse<?> r) {
        for (String h : r.headers().allValues("set-cookie")) {
            String pair = h.split(";", 2)[0];
            int eq = pair.indexOf('=');
            cookies.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
        }
    }

    /** The value a response set for a cookie, or null. */
    public static String setCookie(HttpResponse<?> r, String name) {
        for (String h : r.headers().allValues("set-cookie")) {
            String pair = h.split(";", 2)[0];
            int eq = pair.indexOf('=');
            if (pair.substring(0, eq).trim().equals(name)) {
                return pair.substring(eq + 1).trim();
            }
        }
        return null;
    }
}

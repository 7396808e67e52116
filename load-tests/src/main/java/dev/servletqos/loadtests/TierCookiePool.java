package dev.servletqos.loadtests;

import dev.servletqos.workload.ShopWorkload;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Tier cookies of returning premium users: before the run, the workload's returning users log in once
 * ({@code GET /login?tier=premium}) and keep the signed long-lived tier cookie the shop sets. During the run
 * each premium session starts with the cookie of its returning user (the workload's plan numbers them) in an
 * otherwise empty cookie jar, as a returning visitor's browser would: the subscription, but no admission cookie
 * of an earlier visit.
 *
 * <p>Filled once in {@code before()}, then read by many threads.
 */
public final class TierCookiePool {

    private final URI baseUrl;
    private final String cookieName;
    private volatile List<String> values = List.of();

    public TierCookiePool(URI baseUrl, String cookieName) {
        this.baseUrl = baseUrl;
        this.cookieName = cookieName;
    }

    public String cookieName() {
        return cookieName;
    }

    /**
     * Logs {@code users} premium users in and keeps their tier cookies. They are new visitors to the shop (the
     * login is their first request), so the shop's admission may turn some away while it admits fewer sessions
     * than they come (after an overloaded run, the admission law's rate); a refused login (503 or 429) is tried
     * again after its {@code Retry-After}, as a returning visitor would, until {@code deadline} has passed.
     *
     * @param timeout  the timeout of each request
     * @param deadline how long all the logins may take, retries included
     * @return how many tier cookies the shop issued (0 if it issues none, for example with QoS off)
     * @throws IOException when the shop answers something else than 2xx, or still refuses at the deadline
     */
    public int fill(int users, Duration timeout, Duration deadline) throws IOException, InterruptedException {
        HttpClient client = HttpClient.newBuilder().connectTimeout(timeout).build();
        long end = System.nanoTime() + deadline.toNanos();
        List<String> found = new ArrayList<>();
        int retries = 0;
        for (int i = 0; i < users; i++) {
            String login = ShopWorkload.LOGIN.path().replace("{class}", ShopSessions.PREMIUM);
            HttpRequest req = HttpRequest.newBuilder(baseUrl.resolve(login)).timeout(timeout).GET().build();
            HttpResponse<Void> resp = client.send(req, HttpResponse.BodyHandlers.discarding());
            int status = resp.statusCode();
            if (status == 503 || status == 429) {
                long wait = resp.headers().firstValueAsLong("Retry-After").orElse(1) * 1_000_000_000L;
                if (System.nanoTime() + wait - end > 0) {
                    throw new IOException("GET " + req.uri() + " still answered " + status + " after " + retries
                            + " retries, " + deadline.toSeconds() + " s, while preparing premium users' tier cookies");
                }
                retries++;
                Thread.sleep(wait / 1_000_000);
                i--; // the same user again
                continue;
            }
            if (status / 100 != 2) {
                throw new IOException("GET " + req.uri() + " answered " + status
                        + " while preparing premium users' tier cookies");
            }
            String value = cookieValue(resp.headers().allValues("Set-Cookie"), cookieName);
            if (value != null) {
                found.add(value);
            }
        }
        values = List.copyOf(found);
        return found.size();
    }

    /** Whether there are tier cookies to hand out. */
    public boolean isEmpty() {
        return values.isEmpty();
    }

    /** The tier cookie of returning user {@code i} (modulo how many there are); null when there are none. */
    public String get(int i) {
        List<String> v = values;
        return v.isEmpty() ? null : v.get(Math.floorMod(i, v.size()));
    }

    /** The value of cookie {@code name} in these Set-Cookie headers, or null. */
    static String cookieValue(List<String> setCookies, String name) {
        for (String h : setCookies) {
            int eq = h.indexOf('=');
            if (eq > 0 && h.substring(0, eq).trim().equals(name)) {
                int end = h.indexOf(';', eq);
                String v = (end < 0 ? h.substring(eq + 1) : h.substring(eq + 1, end)).trim();
                if (v.length() >= 2 && v.startsWith("\"") && v.endsWith("\"")) {
                    v = v.substring(1, v.length() - 1);
                }
                return v.isEmpty() ? null : v;
            }
        }
        return null;
    }
}

package dev.servletqos.sample.demo;

import dev.servletqos.sample.demo.Recorder.Counter;
import dev.servletqos.sample.demo.Recorder.Outcome;
import dev.servletqos.workload.Page;
import dev.servletqos.workload.ShopWorkload;
import dev.servletqos.workload.UserClass;
import dev.servletqos.workload.Visit;
import dev.servletqos.workload.Workload;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's load generator: an open model (Poisson arrivals of new sessions, whatever the server does), as
 * in paper 004. What a session does is the shop's workload description ({@link ShopWorkload#SHOP}, shared with
 * the Gatling simulation): {@code /login}, {@code /browse}, three product pages each followed by the images it
 * references (fetched in parallel, as a browser does) and {@code POST /checkout}, each step after its think
 * time (none in the shop's). It completes only if every request is answered 2xx within {@link #TIMEOUT} (the
 * workload's client timeout, paper 004's). The user classes and their shares are the workload's: a fifth of the
 * sessions are premium users, who are returning users: they carry the signed tier cookie an earlier visit's
 * /login issued, so the server recognises them on the first request; the others are new visitors (basic), who
 * carry no cookie.
 *
 * <p>Bounded: only {@code 127.0.0.1}, at most {@link #MAX_SESSIONS} sessions at once (an arrival beyond that
 * is not started and is counted apart, not as a failure of the server), and the run stops by itself: arrivals
 * end with the profile, and sessions still running {@link #DRAIN} later are given up and counted as
 * unfinished. Not thread-safe: one thread calls {@link #prepare()} and then {@link #run(Recorder)}.
 */
final class LoadGenerator implements AutoCloseable {

    /** The session every simulated user runs. */
    static final Workload WORKLOAD = ShopWorkload.SHOP;
    /** The client timeout per request (the workload's: paper 004's 5 s). */
    static final Duration TIMEOUT = WORKLOAD.clientTimeout();
    /** Sessions in flight at most. */
    static final int MAX_SESSIONS = 4000;
    /** How long sessions may run on after the last arrival. */
    static final Duration DRAIN = Duration.ofSeconds(5);
    /** The default warm-up before the recorded run: half of capacity for a few seconds. */
    static final Profile WARMUP = Profile.parse("warm-up:4:0.5");
    /** Returning users per returning class (each holds a tier cookie from an earlier visit). */
    static final int RETURNING_USERS = WORKLOAD.returningUsers();

    /** What the engine's refusal page of a new session says (dev.servletqos.Rejection, session reasons). */
    static final String SESSION_REFUSAL_TEXT = dev.servletqos.Rejection.NEW_SESSION_REFUSED;


    private final URI base;
    private final String tierCookieName;
    private final Profile profile;
    private final Profile warmup;
    private final double capacity;
    private final ExecutorService executor;
    private final HttpClient client;
    private final Random random;
    private final AtomicInteger active = new AtomicInteger();
    private final Set<User> users = ConcurrentHashMap.newKeySet();
    private final Map<Page.Embedded, Pattern> references = new ConcurrentHashMap<>();
    /** Per returning class, the tier cookies of its returning users (index = the plan's returning user). */
    private final Map<String, List<String>> tierCookies = new HashMap<>();
    private volatile boolean stopped;

    /**
     * @param base           the shop's root, {@code http://127.0.0.1:PORT}
     * @param tierCookieName the policy's tier cookie name (what /login sets)
     * @param profile        the recorded run's phases
     * @param warmup         the unrecorded phases before it
     * @param capacity       sessions per second the shop completes at capacity; the profile's multiples
     *                       apply to it
     * @param seed           seed of the arrival process and the users' choices
     */
    LoadGenerator(URI base, String tierCookieName, Profile profile, Profile warmup, double capacity, long seed) {
        if (!"127.0.0.1".equals(base.getHost())) {
            throw new IllegalArgumentException("the demo's load generator only targets 127.0.0.1, not " + base);
        }
        this.base = base;
        this.tierCookieName = tierCookieName;
        this.profile = profile;
        this.warmup = warmup;
        this.capacity = capacity;
        this.random = new Random(seed);
        this.executor = Executors.newFixedThreadPool(3, r -> {
            Thread t = new Thread(r, "demo-client");
            t.setDaemon(true);
            return t;
        });
        this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(executor)
                .connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
    }

    /**
     * The earlier visits of the returning premium users (each logs in once and keeps only the tier cookie),
     * then the warm-up run, not recorded.
     *
     * @throws IOException if the shop does not answer them
     */
    void prepare() throws IOException, InterruptedException {
        for (UserClass c : WORKLOAD.classes()) {
            if (c.returning()) {
                tierCookies.put(c.name(), earlierVisits(c));
            }
        }
        // a short run at half capacity, not recorded: the JIT compiles the request path before the clock
        // starts (without it, the first seconds of the normal phase show compilation stalls, not the policy)
        Recorder scratch = new Recorder(System.nanoTime(), (int) (warmup.seconds() + DRAIN.toSeconds() + 10));
        run(scratch, warmup, null);
    }

    /** The returning users of a class log in once and keep their tier cookies. */
    private List<String> earlierVisits(UserClass c) throws IOException, InterruptedException {
        List<String> cookies = new ArrayList<>();
        for (int i = 1; i <= RETURNING_USERS; i++) {
            String login = ShopWorkload.LOGIN.path().replace("{class}", c.name()) + "&user=returning-" + i;
            HttpResponse<String> r = client.send(get(login, Map.of()), HttpResponse.BodyHandlers.ofString());
            String cookie = null;
            for (String h : r.headers().allValues("set-cookie")) {
                String[] nv = nameValue(h);
                if (nv != null && nv[0].equals(tierCookieName)) {
                    cookie = nv[1];
                }
            }
            if (r.statusCode() != 200 || cookie == null) {
                throw new IOException("warm-up /login did not issue a tier cookie " + tierCookieName + ": "
                        + r.statusCode() + " " + r.headers().allValues("set-cookie"));
            }
            cookies.add(cookie);
        }
        return cookies;
    }

    /** Runs the profile into {@code rec}; returns when every session has ended or was abandoned. */
    void run(Recorder rec) throws InterruptedException {
        run(rec, profile, DRAIN);
    }

    /** Runs a profile; with a drain, waits for the sessions and then abandons the ones still running. */
    private void run(Recorder rec, Profile profile, Duration drain) throws InterruptedException {
        double total = profile.seconds();
        double t = 0;
        List<CompletableFuture<Void>> running = new ArrayList<>();
        while (true) {
            t = nextArrival(profile, t, total);
            if (t >= total) {
                break;
            }
            long due = rec.t0 + (long) (t * 1e9);
            long wait;
            while ((wait = due - System.nanoTime()) > 0) {
                LockSupport.parkNanos(wait);
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
            }
            UserClass userClass = WORKLOAD.draw(random.nextDouble());
            int type = Recorder.TYPES.indexOf(userClass.name());
            // drawn for every arrival, so that both runs see the same users whatever the server did
            Visit plan = WORKLOAD.plan(userClass, new Random(random.nextLong()));
            long now = System.nanoTime();
            rec.add(Counter.OFFERED, type, now);
            if (active.get() >= MAX_SESSIONS) {
                // the generator's own limit, reported apart: not a failure of the server
                rec.add(Counter.ABANDONED, type, now);
                rec.sessions.add(new Recorder.SessionResult(type, rec.at(now), rec.at(now), false,
                        Outcome.ABANDONED_LIMIT, 0));
                continue;
            }
            running.add(new User(rec, type, plan).run());
            if (running.size() > 256) {
                running.removeIf(CompletableFuture::isDone);
            }
        }
        if (drain == null) {
            // the warm-up: its last sessions go on into the recorded run's first second, recorded apart
            return;
        }
        // the profile is over: let running sessions finish, up to the drain time
        long end = rec.t0 + (long) (total * 1e9) + drain.toNanos();
        for (CompletableFuture<Void> f : running) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                break;
            }
            try {
                f.get(left, TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                // the session recorded its own failure
            } catch (TimeoutException e) {
                break;
            }
        }
        stopped = true;
        // sessions still running are abandoned now; their requests in flight are no longer recorded
        for (User u : users) {
            if (u.rec == rec) {
                u.end(Outcome.ABANDONED_END);
            }
        }
    }

    /** Poisson arrivals at the phase's rate; a draw that crosses into the next phase restarts there. */
    private double nextArrival(Profile profile, double t, double total) {
        while (t < total) {
            Profile.Phase p = profile.at(t);
            double phaseEnd = profile.end(t);
            double rate = p.multiple() * capacity;
            if (rate <= 0) {
                t = phaseEnd;
                continue;
            }
            double next = t - Math.log(1 - random.nextDouble()) / rate;
            if (next < phaseEnd) {
                return next;
            }
            t = phaseEnd;
        }
        return total;
    }

    /** The pattern of an embedded resource's URL in a page: {@code <img src="URL"} for the shop's images. */
    static Pattern reference(Page.Embedded embeds) {
        return Pattern.compile("<" + Pattern.quote(embeds.tag()) + "\\s[^>]*?\\b"
                + Pattern.quote(embeds.attribute()) + "=\"([^\"]+)\"");
    }

    private HttpRequest get(String pathAndQuery, Map<String, String> cookies) {
        return get(base.resolve(pathAndQuery), cookies);
    }

    private HttpRequest get(URI uri, Map<String, String> cookies) {
        return request(uri, cookies).GET().build();
    }

    private HttpRequest.Builder request(String pathAndQuery, Map<String, String> cookies) {
        return request(base.resolve(pathAndQuery), cookies);
    }

    private HttpRequest.Builder request(URI uri, Map<String, String> cookies) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(TIMEOUT)
                .header("Accept", "text/html,image/svg+xml,*/*;q=0.8");
        if (!cookies.isEmpty()) {
            StringBuilder c = new StringBuilder();
            cookies.forEach((n, v) -> {
                if (c.length() > 0) {
                    c.append("; ");
                }
                c.append(n).append('=').append(v);
            });
            b.header("Cookie", c.toString());
        }
        return b;
    }

    /**
     * Whether a 503 or 429 refused a new session at the door (the engine's session admission), which costs
     * the client no wait and is counted as a refused session, not as a delay: a 429 (only sessions are
     * refused with it), or a session's first request answered with the engine's session refusal page. Any
     * other refusal (a full queue, a request that waited its class's maximum wait) is a delay.
     */
    static boolean sessionRefusal(boolean firstRequest, int status, String body) {
        return firstRequest && (status == 429 || (body != null && body.contains(SESSION_REFUSAL_TEXT)));
    }

    /** {name, value} of a Set-Cookie header, or null; value null when the cookie is being deleted. */
    static String[] nameValue(String setCookie) {
        int semi = setCookie.indexOf(';');
        String pair = semi < 0 ? setCookie : setCookie.substring(0, semi);
        int eq = pair.indexOf('=');
        if (eq <= 0) {
            return null;
        }
        String attrs = semi < 0 ? "" : setCookie.substring(semi).toLowerCase(java.util.Locale.ROOT).replace(" ", "");
        boolean deleted = attrs.contains(";max-age=0");
        return new String[] {pair.substring(0, eq).trim(), deleted ? null : pair.substring(eq + 1).trim()};
    }

    /** One simulated user's visit, as planned: a chain of asynchronous requests. */
    private final class User {
        private final Recorder rec;
        private final int type;
        private final Visit plan;
        private final Map<String, String> cookies = new HashMap<>();
        private long startNanos;
        private int requests;
        private boolean first = true;
        private volatile boolean admitted;
        private final AtomicBoolean ended = new AtomicBoolean();

        User(Recorder rec, int type, Visit plan) {
            this.rec = rec;
            this.type = type;
            this.plan = plan;
            List<String> tiers = tierCookies.get(plan.userClass().name());
            if (plan.returningUser() >= 0 && tiers != null && !tiers.isEmpty()) {
                cookies.put(tierCookieName, tiers.get(plan.returningUser() % tiers.size()));
            }
        }

        CompletableFuture<Void> run() {
            active.incrementAndGet();
            users.add(this);
            startNanos = System.nanoTime();
            CompletableFuture<Void> chain = CompletableFuture.completedFuture(null);
            for (Visit.Call call : plan.calls()) {
                chain = chain.thenCompose(x -> think(call.thinkTime())).thenCompose(x -> call(call));
            }
            return chain.handle((x, failure) -> {
                end(failure == null ? Outcome.COMPLETED : outcome(failure));
                return null;
            });
        }

        private CompletableFuture<Void> think(Duration d) {
            if (d.isZero()) {
                return CompletableFuture.completedFuture(null);
            }
            return CompletableFuture.runAsync(() -> { },
                    CompletableFuture.delayedExecutor(d.toNanos(), TimeUnit.NANOSECONDS, executor));
        }

        private CompletableFuture<Void> call(Visit.Call call) {
            Page page = call.page();
            HttpRequest r;
            if ("POST".equals(page.method())) {
                r = request(call.path(), cookies()).header("Content-Type", "application/x-www-form-urlencoded")
                        .POST(HttpRequest.BodyPublishers.ofString(page.body() == null ? "" : page.body())).build();
            } else {
                r = get(call.path(), cookies());
            }
            if (page.embeds() == null) {
                return step(r, false);
            }
            return send(r, true).thenCompose(body -> embedded(body, page.embeds()));
        }

        /** What the page references (its images), fetched in parallel as a browser does. */
        private CompletableFuture<Void> embedded(String body, Page.Embedded embeds) {
            List<CompletableFuture<String>> fetches = new ArrayList<>();
            Matcher m = references.computeIfAbsent(embeds, LoadGenerator::reference).matcher(body);
            Map<String, String> c = cookies();
            while (m.find()) {
                URI uri = Page.Embedded.sameOrigin(base, m.group(1));
                if (uri == null) {
                    // a URL from the response that leaves the shop (another host or port): not followed,
                    // and the session fails
                    rec.add(Counter.REQ_ERROR, type, System.nanoTime());
                    fetches.add(CompletableFuture.failedFuture(new SessionEnd(Outcome.ERROR)));
                    continue;
                }
                fetches.add(send(get(uri, c), false));
            }
            return CompletableFuture.allOf(fetches.toArray(CompletableFuture[]::new));
        }

        private CompletableFuture<Void> step(HttpRequest r, boolean keepBody) {
            return send(r, keepBody).thenApply(x -> null);
        }

        private synchronized Map<String, String> cookies() {
            return new HashMap<>(cookies);
        }

        /** Sends one request; completes with the body (if kept) on 2xx, exceptionally with a SessionEnd else. */
        private CompletableFuture<String> send(HttpRequest r, boolean keepBody) {
            if (stopped) {
                return CompletableFuture.failedFuture(new SessionEnd(Outcome.ABANDONED_END));
            }
            boolean isFirst;
            synchronized (this) {
                isFirst = first;
                first = false;
                requests++;
            }
            long sent = System.nanoTime();
            return client.sendAsync(r, HttpResponse.BodyHandlers.ofString()).handle((resp, failure) -> {
                long now = System.nanoTime();
                if (ended.get()) {
                    // abandoned at the end of the run: what comes back now is not part of it
                    throw new SessionEnd(Outcome.ABANDONED_END);
                }
                if (failure != null) {
                    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
                            ? failure.getCause() : failure;
                    if (cause instanceof HttpTimeoutException) {
                        rec.add(Counter.REQ_TIMEOUT, type, now);
                        rec.delay(type, now, TIMEOUT.toMillis());
                        throw new SessionEnd(Outcome.TIMEOUT);
                    }
                    rec.add(Counter.REQ_ERROR, type, now);
                    throw new SessionEnd(Outcome.ERROR);
                }
                keepCookies(resp);
                int status = resp.statusCode();
                if (status / 100 == 2) {
                    rec.add(Counter.REQ_OK, type, now);
                    if ("degraded".equals(resp.headers().firstValue("X-Content-Level").orElse(""))) {
                        rec.add(Counter.REQ_DEGRADED, type, now);
                    }
                    long serviceMicros = resp.headers().firstValueAsLong("X-Service-Micros").orElse(0);
                    rec.delay(type, now, Math.max(0, (now - sent) / 1e6 - serviceMicros / 1e3));
                    if (isFirst) {
                        admitted = true;
                        rec.add(Counter.ADMITTED, type, now);
                    }
                    return keepBody ? resp.body() : "";
                }
                if (status == 503 || status == 429) {
                    rec.add(Counter.REQ_REFUSED, type, now);
                    if (!sessionRefusal(isFirst, status, resp.body())) {
                        // refused after waiting (its class's max wait, or a full queue): the client waited
                        // this long for nothing, which the delay must show (no service time: none was spent)
                        rec.delay(type, now, (now - sent) / 1e6);
                    }
                    throw new SessionEnd(isFirst ? Outcome.REFUSED : Outcome.REJECTED_MIDWAY);
                }
                rec.add(Counter.REQ_ERROR, type, now);
                throw new SessionEnd(Outcome.ERROR);
            });
        }

        private synchronized void keepCookies(HttpResponse<?> resp) {
            for (String h : resp.headers().allValues("set-cookie")) {
                String[] nv = nameValue(h);
                if (nv == null) {
                    continue;
                }
                if (nv[1] == null) {
                    cookies.remove(nv[0]);
                } else {
                    cookies.put(nv[0], nv[1]);
                }
            }
        }

        private Outcome outcome(Throwable failure) {
            Throwable t = failure;
            while (t != null && !(t instanceof SessionEnd)) {
                t = t.getCause();
            }
            return t == null ? Outcome.ERROR : ((SessionEnd) t).outcome;
        }

        void end(Outcome outcome) {
            if (!ended.compareAndSet(false, true)) {
                return;
            }
            users.remove(this);
            active.decrementAndGet();
            long now = System.nanoTime();
            Counter c = switch (outcome) {
                case COMPLETED -> Counter.COMPLETED;
                case REFUSED -> Counter.REFUSED;
                case ABANDONED_END, ABANDONED_LIMIT -> Counter.ABANDONED;
                default -> Counter.FAILED;
            };
            rec.add(c, type, now);
            if (outcome == Outcome.COMPLETED) {
                rec.add(Counter.COMPLETED_REQUESTS, type, now, requests);
            }
            rec.sessions.add(new Recorder.SessionResult(type, rec.at(startNanos), rec.at(now), admitted, outcome,
                    requests));
        }
    }

    /** Ends a session's chain of requests, saying how. */
    private static final class SessionEnd extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final transient Outcome outcome;

        SessionEnd(Outcome outcome) {
            super(outcome.name(), null, false, false);
            this.outcome = outcome;
        }
    }

    @Override
    public void close() {
        stopped = true;
        executor.shutdownNow();
    }
}

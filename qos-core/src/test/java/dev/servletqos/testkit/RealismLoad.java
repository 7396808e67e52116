package dev.servletqos.testkit;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The load of {@link RealismSuite}, with the JDK's HttpClient: open-loop session arrivals at a given rate, each
 * simulated user with its own cookies (a jar per user over one shared HTTP/1.1 client, as many browsers behind one
 * proxy), health probes, cookie-less API callers, event streams, a browser fetching a page and its assets at once over
 * HTTP/2 (h2c where the server offers it), a shared admission cookie and a cookie-less flood. A session is
 * {@code /login}, then three pages with think times of 100 to 300 ms; it completes only if every request is answered
 * 2xx within the client timeout, {@value #TIMEOUT_SECONDS} s (the workload module's, paper 004's). Every client is
 * 127.0.0.1; a request may carry {@code X-Forwarded-For} as a proxy would add it. Thread-safe.
 */
public final class RealismLoad implements AutoCloseable {

    /** The client's timeout per request, in seconds (the workload's client timeout). */
    public static final int TIMEOUT_SECONDS = 5;
    static final Duration TIMEOUT = Duration.ofSeconds(TIMEOUT_SECONDS);
    /** What a browser sends for a page. */
    static final String HTML = "text/html,application/xhtml+xml,*/*;q=0.8";
    /** Pages of a session after its login. */
    static final int PAGES = 3;

    private final URI base;
    private final IntFunction<String> tierCookie;
    private final String tierCookieName;
    private final ExecutorService clientThreads = Executors.newFixedThreadPool(4, daemon("realism-client"));
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, daemon("realism-timer"));
    final HttpClient http1 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).executor(clientThreads)
            .connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();
    final HttpClient http2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).executor(clientThreads)
            .connectTimeout(TIMEOUT).followRedirects(HttpClient.Redirect.NEVER).build();

    /**
     * @param port           the server's port on 127.0.0.1
     * @param tierCookieName the name of the signed tier cookie
     * @param tierCookie     the valid tier cookie value of returning premium user i (from an earlier visit)
     */
    public RealismLoad(int port, String tierCookieName, IntFunction<String> tierCookie) {
        this.base = URI.create("http://127.0.0.1:" + port);
        this.tierCookieName = tierCookieName;
        this.tierCookie = tierCookie;
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        AtomicInteger n = new AtomicInteger();
        return r -> {
            Thread t = new Thread(r, name + "-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    // ---- one answer, one user

    /** One answer: status (0 when none came: timeout or I/O error), whether it timed out, latency, class. */
    public record Answer(int status, boolean timedOut, long nanos, String servedClass, boolean setCookie,
                         long atNanos) {
        boolean ok() {
            return status >= 200 && status < 300;
        }
    }

    /** A simulated user: its own cookies, its address as a proxy reports it (null: none). */
    public final class User {
        final Map<String, String> cookies = new ConcurrentHashMap<>();
        final String forwardedFor;

        User(String forwardedFor) {
            this.forwardedFor = forwardedFor;
        }

        CompletableFuture<Answer> get(HttpClient client, String path, String accept) {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT).GET();
            if (accept != null) {
                b.header("Accept", accept);
            }
            if (forwardedFor != null) {
                b.header("X-Forwarded-For", forwardedFor);
            }
            String cookie = cookieHeader();
            if (cookie != null) {
                b.header("Cookie", cookie);
            }
            long start = System.nanoTime();
            return client.sendAsync(b.build(), HttpResponse.BodyHandlers.ofString()).handle((r, e) -> {
                long end = System.nanoTime();
                if (r == null) {
                    Throwable c = e instanceof java.util.concurrent.CompletionException ? e.getCause() : e;
                    return new Answer(0, c instanceof HttpTimeoutException, end - start, null, false, end);
                }
                List<String> set = r.headers().allValues("Set-Cookie");
                for (String s : set) {
                    String[] nv = nameValue(s);
                    if (nv != null) {
                        if (nv[1] == null) {
                            cookies.remove(nv[0]);
                        } else {
                            cookies.put(nv[0], nv[1]);
                        }
                    }
                }
                return new Answer(r.statusCode(), false, end - start,
                        r.headers().firstValue(RealisticApp.CLASS_HEADER).orElse(null), !set.isEmpty(), end);
            });
        }

        String cookieHeader() {
            if (cookies.isEmpty()) {
                return null;
            }
            StringBuilder c = new StringBuilder();
            cookies.forEach((n, v) -> c.append(c.length() > 0 ? "; " : "").append(n).append('=').append(v));
            return c.toString();
        }
    }

    /** A new user; {@code forwardedFor} null for none. */
    public User user(String forwardedFor) {
        return new User(forwardedFor);
    }

    /** A returning premium user: holds the tier cookie of an earlier visit. */
    public User returningPremium(int i, String forwardedFor) {
        User u = new User(forwardedFor);
        u.cookies.put(tierCookieName, tierCookie.apply(i));
        return u;
    }

    static String[] nameValue(String setCookie) {
        int semi = setCookie.indexOf(';');
        String pair = semi < 0 ? setCookie : setCookie.substring(0, semi);
        int eq = pair.indexOf('=');
        if (eq <= 0) {
            return null;
        }
        String attrs = semi < 0 ? "" : setCookie.substring(semi).toLowerCase(java.util.Locale.ROOT).replace(" ", "");
        return new String[] {pair.substring(0, eq).trim(), attrs.contains(";max-age=0") ? null
                : pair.substring(eq + 1).trim()};
    }

    // ---- sessions

    /** How a session ended. */
    public enum Outcome { COMPLETED, REFUSED, FAILED, TIMEOUT }

    /** One session's record. */
    public record Session(String userClass, String forwardedFor, boolean admitted, Outcome outcome, int status,
                          long admittedRefusalAtNanos, long endNanos) {
    }

    /** The sessions of a run, the refusals of admitted sessions' requests, per class tallies. */
    public static final class Sessions {
        final List<Session> all = Collections.synchronizedList(new ArrayList<>());
        long startNanos;
        double seconds;

        /**
         * Completed sessions a second in the steady part of the run: the sessions that completed between 3 s after
         * the first arrival and the last arrival, over that time (the first seconds fill the server and take the
         * admission buckets' bursts, the sessions ending after the arrivals stopped drain it).
         */
        public double completedPerSecond() {
            long from = startNanos + 3_000_000_000L;
            long to = startNanos + (long) (seconds * 1e9);
            long n = of(null).stream().filter(x -> x.outcome() == Outcome.COMPLETED && x.endNanos() >= from
                    && x.endNanos() < to).count();
            return n / ((to - from) / 1e9);
        }

        public List<Session> of(String userClass) {
            synchronized (all) {
                return all.stream().filter(s -> userClass == null || s.userClass().equals(userClass)).toList();
            }
        }

        public long count(String userClass, Outcome o) {
            return of(userClass).stream().filter(s -> s.outcome() == o).count();
        }

        public long admitted(String userClass) {
            return of(userClass).stream().filter(Session::admitted).count();
        }

        public long completed(String userClass) {
            return count(userClass, Outcome.COMPLETED);
        }

        /** When the first request of an admitted session was refused or timed out, or Long.MAX_VALUE. */
        public long firstAdmittedRefusal() {
            return of(null).stream().mapToLong(Session::admittedRefusalAtNanos).min().orElse(Long.MAX_VALUE);
        }

        public long admittedRefused() {
            return of(null).stream().filter(s -> s.admittedRefusalAtNanos() != Long.MAX_VALUE).count();
        }
    }

    /**
     * Runs open-loop session arrivals at {@code perSecond} for {@code seconds}: a fifth premium (returning users with
     * a tier cookie), the rest new basic visitors, each from {@code addresses.apply(i)} (null: none); returns when
     * every session has ended.
     */
    public Sessions sessions(double perSecond, double seconds, long seed, IntFunction<String> addresses)
            throws InterruptedException {
        Sessions out = new Sessions();
        Random random = new Random(seed);
        List<CompletableFuture<Void>> ends = Collections.synchronizedList(new ArrayList<>());
        long t = 0;
        long endNanos = (long) (seconds * 1e9);
        int i = 0;
        List<long[]> plan = new ArrayList<>();
        while (true) {
            t += (long) (-Math.log(1 - random.nextDouble()) / perSecond * 1e9);
            if (t >= endNanos) {
                break;
            }
            plan.add(new long[] {t, random.nextDouble() < 0.2 ? 1 : 0, random.nextLong(), i++});
        }
        AtomicInteger left = new AtomicInteger(plan.size());
        CompletableFuture<Void> scheduled = new CompletableFuture<>();
        if (plan.isEmpty()) {
            scheduled.complete(null);
        }
        long start = System.nanoTime();
        out.startNanos = start;
        out.seconds = seconds;
        for (long[] p : plan) {
            timer.schedule(() -> {
                String address = addresses.apply((int) p[3]);
                boolean premium = p[1] == 1;
                User u = premium ? returningPremium((int) (p[2] & 0xffff) % 200, address) : user(address);
                ends.add(session(u, premium ? "premium" : "basic", new Random(p[2]), out));
                if (left.decrementAndGet() == 0) {
                    scheduled.complete(null);
                }
            }, p[0] - (System.nanoTime() - start), TimeUnit.NANOSECONDS);
        }
        scheduled.join();
        CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).join();
        return out;
    }

    /** One session: login, then {@link #PAGES} pages with think times. */
    public CompletableFuture<Void> session(User u, String userClass, Random random, Sessions out) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        u.get(http1, "/login?user=u" + random.nextInt(1_000_000) + "&tier=" + userClass, HTML).thenAccept(a -> {
            if (!a.ok()) {
                out.all.add(new Session(userClass, u.forwardedFor, false,
                        a.status == 0 ? Outcome.TIMEOUT : Outcome.REFUSED, a.status, Long.MAX_VALUE, a.atNanos));
                done.complete(null);
                return;
            }
            page(u, userClass, random, 0, out, done);
        });
        return done;
    }

    private void page(User u, String userClass, Random random, int n, Sessions out, CompletableFuture<Void> done) {
        if (n == PAGES) {
            out.all.add(new Session(userClass, u.forwardedFor, true, Outcome.COMPLETED, 200, Long.MAX_VALUE,
                    System.nanoTime()));
            done.complete(null);
            return;
        }
        timer.schedule(() -> u.get(http1, "/page/" + random.nextInt(100), HTML).thenAccept(a -> {
            if (!a.ok()) {
                out.all.add(new Session(userClass, u.forwardedFor, true,
                        a.status == 0 ? Outcome.TIMEOUT : Outcome.FAILED, a.status, a.atNanos, a.atNanos));
                done.complete(null);
                return;
            }
            page(u, userClass, random, n + 1, out, done);
        }), 100 + random.nextInt(201), TimeUnit.MILLISECONDS);
    }

    // ---- single requests at a rate

    /** Answers of requests sent at a fixed rate. */
    public static final class Calls {
        final List<Answer> answers = Collections.synchronizedList(new ArrayList<>());
        final AtomicLong skipped = new AtomicLong();

        public List<Answer> answers() {
            synchronized (answers) {
                return List.copyOf(answers);
            }
        }

        public long ok() {
            return answers().stream().filter(Answer::ok).count();
        }

        public long refused() {
            return answers().stream().filter(a -> a.status >= 400).count();
        }

        public long timedOut() {
            return answers().stream().filter(a -> a.status == 0).count();
        }

        public long withCookie() {
            return answers().stream().filter(Answer::setCookie).count();
        }

        /** When the first one was refused (4xx/5xx or no answer), or Long.MAX_VALUE. */
        public long firstRefusal() {
            return answers().stream().filter(a -> !a.ok()).mapToLong(Answer::atNanos).min().orElse(Long.MAX_VALUE);
        }

        /** The p-th percentile latency in ms (p in 0..100), of all answers. */
        public double percentileMillis(double p) {
            long[] l = answers().stream().mapToLong(Answer::nanos).sorted().toArray();
            if (l.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(p / 100 * l.length) - 1;
            return l[Math.max(0, Math.min(l.length - 1, i))] / 1e6;
        }

        /** The statuses and their counts, e.g. {200=99, 503=1}. */
        public Map<Integer, Long> statuses() {
            Map<Integer, Long> m = new java.util.TreeMap<>();
            for (Answer a : answers()) {
                m.merge(a.status, 1L, Long::sum);
            }
            return m;
        }
    }

    /**
     * Sends {@code GET path} without cookies at {@code perSecond} for {@code seconds} (evenly spaced), at most
     * {@code maxInFlight} at once (a request due while that many are out is counted skipped).
     */
    public Calls calls(String path, String accept, String forwardedFor, double perSecond, double seconds,
            int maxInFlight) {
        Calls out = new Calls();
        Semaphore inFlight = new Semaphore(maxInFlight);
        int n = (int) Math.round(perSecond * seconds);
        CompletableFuture<?>[] all = new CompletableFuture<?>[n];
        long start = System.nanoTime();
        for (int i = 0; i < n; i++) {
            CompletableFuture<Void> f = new CompletableFuture<>();
            all[i] = f;
            long at = (long) (i * 1e9 / perSecond);
            timer.schedule(() -> {
                if (!inFlight.tryAcquire()) {
                    out.skipped.incrementAndGet();
                    f.complete(null);
                    return;
                }
                user(forwardedFor).get(http1, path, accept).whenComplete((a, e) -> {
                    inFlight.release();
                    if (a != null) {
                        out.answers.add(a);
                    }
                    f.complete(null);
                });
            }, at - (System.nanoTime() - start), TimeUnit.NANOSECONDS);
        }
        CompletableFuture.allOf(all).join();
        return out;
    }

    /** Runs the tasks in parallel and waits for all. */
    public static void together(ThrowingRunnable... tasks) throws Exception {
        ExecutorService e = Executors.newFixedThreadPool(tasks.length, daemon("realism-part"));
        try {
            List<java.util.concurrent.Future<?>> fs = new ArrayList<>();
            for (ThrowingRunnable t : tasks) {
                fs.add(e.submit(() -> {
                    t.run();
                    return null;
                }));
            }
            for (java.util.concurrent.Future<?> f : fs) {
                try {
                    f.get();
                } catch (java.util.concurrent.ExecutionException ex) {
                    throw ex.getCause() instanceof Exception c ? c : new RuntimeException(ex.getCause());
                }
            }
        } finally {
            e.shutdownNow();
        }
    }

    /** A task that may throw. */
    public interface ThrowingRunnable {
        void run() throws Exception;
    }

    // ---- a browser's page with its assets

    /** One gallery visit: whether the login was admitted, the page's status, the assets' statuses. */
    public record PageVisit(boolean admitted, int pageStatus, List<Integer> assetStatuses) {
        public boolean whole() {
            return admitted && pageStatus == 200 && assetStatuses.stream().allMatch(s -> s == 200);
        }
    }

    /**
     * A returning premium user logs in, loads the gallery and then its {@value RealisticApp#ASSETS} assets at once
     * over HTTP/2 (h2c, upgraded by the page request; parallel HTTP/1.1 connections where the server has no h2c).
     */
    public PageVisit galleryVisit(int premiumUser) {
        User u = returningPremium(premiumUser, null);
        Answer login = u.get(http2, "/login?user=g" + premiumUser + "&tier=premium", HTML).join();
        if (!login.ok()) {
            return new PageVisit(false, login.status, List.of());
        }
        Answer page = u.get(http2, "/gallery", HTML).join();
        List<CompletableFuture<Answer>> assets = new ArrayList<>();
        for (int i = 0; i < RealisticApp.ASSETS; i++) {
            assets.add(u.get(http2, "/asset/" + i + ".png", "image/avif,image/webp,image/*,*/*;q=0.8"));
        }
        return new PageVisit(true, page.status, assets.stream().map(f -> f.join().status).toList());
    }

    // ---- event streams

    /** One event stream as its client sees it. */
    public static final class Stream implements Flow.Subscriber<List<ByteBuffer>> {
        volatile int status;
        volatile boolean ended;
        volatile long lastEventNanos;
        final AtomicLong events = new AtomicLong();
        private volatile Flow.Subscription subscription;

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            s.request(Long.MAX_VALUE);
        }

        @Override
        public void onNext(List<ByteBuffer> item) {
            for (ByteBuffer b : item) {
                String s = java.nio.charset.StandardCharsets.UTF_8.decode(b).toString();
                int i = -1;
                while ((i = s.indexOf("data:", i + 1)) >= 0) {
                    events.incrementAndGet();
                }
            }
            lastEventNanos = System.nanoTime();
        }

        @Override
        public void onError(Throwable t) {
            ended = true;
        }

        @Override
        public void onComplete() {
            ended = true;
        }

        /** Open with an event in the last {@code withinMillis}. */
        public boolean live(long withinMillis) {
            return status == 200 && !ended && System.nanoTime() - lastEventNanos < withinMillis * 1_000_000;
        }

        public int status() {
            return status;
        }

        void cancel() {
            Flow.Subscription s = subscription;
            if (s != null) {
                s.cancel();
            }
        }
    }

    /**
     * A logged-in user opens an event stream: login (as a basic user), then {@code GET /events} with
     * {@code Accept: text/event-stream}. The future completes once the stream's headers came (or it failed).
     */
    public CompletableFuture<Stream> openStream(int i) {
        User u = user(null);
        Stream s = new Stream();
        return u.get(http1, "/login?user=s" + i + "&tier=basic", HTML).thenCompose(login -> {
            HttpRequest.Builder b = HttpRequest.newBuilder(base.resolve("/events")).timeout(TIMEOUT).GET()
                    .header("Accept", "text/event-stream");
            String cookie = u.cookieHeader();
            if (cookie != null) {
                b.header("Cookie", cookie);
            }
            return http1.sendAsync(b.build(), HttpResponse.BodyHandlers.ofPublisher()).handle((r, e) -> {
                if (r != null) {
                    s.status = r.statusCode();
                    s.lastEventNanos = System.nanoTime();
                    r.body().subscribe(s);
                } else {
                    s.ended = true;
                }
                return s;
            });
        });
    }

    /** Closes the streams from the client's side. */
    public static void close(List<Stream> streams) {
        streams.forEach(Stream::cancel);
    }

    /** Sleeps; the load's phases are timed, not waits for a condition. */
    public static void pause(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }

    @Override
    public void close() {
        clientThreads.shutdownNow();
        timer.shutdownNow();
    }
}

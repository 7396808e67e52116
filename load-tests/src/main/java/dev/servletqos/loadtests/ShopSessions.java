package dev.servletqos.loadtests;

import static io.gatling.javaapi.core.CoreDsl.StringBody;
import static io.gatling.javaapi.core.CoreDsl.css;
import static io.gatling.javaapi.core.CoreDsl.doIf;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.exitBlockOnFail;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.responseTimeInMillis;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.Cookie;
import static io.gatling.javaapi.http.HttpDsl.addCookie;
import static io.gatling.javaapi.http.HttpDsl.header;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import dev.servletqos.workload.Page;
import dev.servletqos.workload.ShopWorkload;
import dev.servletqos.workload.Step;
import dev.servletqos.workload.UserClass;
import dev.servletqos.workload.Visit;
import dev.servletqos.workload.Workload;
import io.gatling.javaapi.core.ChainBuilder;
import io.gatling.javaapi.core.CheckBuilder;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Session;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import io.gatling.javaapi.http.HttpRequestActionBuilder;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A shop visit as Gatling's Java DSL, built from the shop's workload description ({@link ShopWorkload#SHOP}, the
 * one the sample's own demo runs): log in, browse a catalogue page, three product pages of it each followed by
 * the images it shows, check out, each step after its think time (none in the shop's: paper 004, figure 14,
 * consecutive requests with minimal inter-arrival time). The workload plans each visit (which catalogue page,
 * which products, which returning user); this class only turns the plan into requests. The images are fetched
 * one after the other (a browser, and the demo's generator, fetch them in parallel) so that every request is
 * accounted for the same way.
 *
 * <p>Each class's sessions run inside a Gatling group named after the class, so the report shows each class,
 * and a group counts as OK only when every request in it did: one group is one session, and the group's OK
 * count is the number of completed sessions. A request counts as OK when it answers 2xx within the client
 * timeout; the first one that does not ends the session (the user gives up), and the {@link SessionTally}
 * records how it ended (refused at start or mid-session by a 503 with Retry-After, timed out, failed).
 *
 * <p>Premium users are returning users: their session starts with a tier cookie from an earlier visit
 * ({@link TierCookiePool}) and nothing else in the cookie jar. Basic users are new visitors.
 */
public final class ShopSessions {

    /** The session every virtual user runs. */
    public static final Workload WORKLOAD = ShopWorkload.SHOP;
    public static final String PREMIUM = "premium";
    public static final String BASIC = "basic";
    /** The workload's user classes (premium, basic). */
    public static final List<String> CLASSES = WORKLOAD.classNames();

    /** Requests in one session at most: its steps and what their pages embed at full content. */
    public static final int REQUESTS_PER_SESSION = WORKLOAD.requests(false);

    private static final String START = "qos_start";
    private static final String SERVED = "qos_served";
    private static final String DONE = "qos_done";
    private static final String SENT = "qos_sent";
    private static final String STATUS = "qos_status";
    private static final String MILLIS = "qos_millis";
    private static final String RETRY_AFTER = "qos_retryAfter";
    private static final String TIER = "qos_tier";
    private static final String PLAN = "qos_plan";
    private static final String IMAGES = "qos_images";
    private static final String IMAGE = "qos_image";
    private static final String FOREIGN = "qos_foreign";

    private final LoadProfile profile;
    private final SessionTally tally;
    private final TierCookiePool tiers;

    public ShopSessions(LoadProfile profile, SessionTally tally, TierCookiePool tiers) {
        this.profile = profile;
        this.tally = tally;
        this.tiers = tiers;
    }

    /** HTTP settings: the shop's base URL, no warm-up call to the internet, a browser-like Accept. */
    public HttpProtocolBuilder protocol() {
        return http.baseUrl(profile.baseUrl().toString())
                .disableWarmUp()
                .acceptHeader("text/html,application/xhtml+xml,*/*;q=0.8")
                .userAgentHeader("servlet-qos-load-test (Gatling)");
    }

    /** The sessions of one class ({@link #PREMIUM} or {@link #BASIC}): the workload's steps, in order. */
    public ScenarioBuilder sessions(String serviceClass) {
        UserClass userClass = WORKLOAD.userClass(serviceClass);
        if (userClass == null) {
            throw new IllegalArgumentException("no user class " + serviceClass + " in the workload " + CLASSES);
        }
        List<ChainBuilder> steps = new ArrayList<>();
        List<Step> workloadSteps = WORKLOAD.steps();
        for (int i = 0; i < workloadSteps.size(); i++) {
            steps.add(step(serviceClass, workloadSteps.get(i), i));
        }
        ChainBuilder visit = exec(steps).exec(s -> s.set(DONE, true));
        return scenario(serviceClass + " users")
                .exec(s -> begin(s, userClass))
                .doIf(s -> s.contains(TIER)).then(addCookie(Cookie(tiers.cookieName(), "#{" + TIER + "}")))
                .group(serviceClass).on(exitBlockOnFail().on(visit))
                .exec(s -> end(s, serviceClass));
    }

    /** Step {@code i} of the plan: think, request its page, then what the page embeds. */
    private ChainBuilder step(String serviceClass, Step step, int i) {
        Page page = step.page();
        String path = "#{" + PLAN + "(" + i + ")}";
        HttpRequestActionBuilder request = "POST".equals(page.method())
                ? http(page.name()).post(path).body(StringBody(page.body() == null ? "" : page.body())).asFormUrlEncoded()
                : http(page.name()).get(path);
        Page.Embedded embeds = page.embeds();
        ChainBuilder chain = embeds == null ? request(serviceClass, request)
                : request(serviceClass, request,
                        css(embeds.tag(), embeds.attribute()).findAll().withDefault(List.of()).saveAs(IMAGES))
                        .exec(this::onlySameOrigin)
                        .foreach("#{" + IMAGES + "}", IMAGE).on(request(serviceClass,
                                http(embeds.page().name()).get("#{" + IMAGE + "}")));
        return step.thinkTime().isZero() ? chain : pause(step.thinkTime()).exec(chain);
    }

    /**
     * Replaces the image URLs the product page gave by their absolute form, resolved against the page's address,
     * keeping only those on the shop's own scheme, host and port: the generator never follows a response
     * elsewhere. A page that referenced another origin fails its session (the images are not fetched).
     */
    private Session onlySameOrigin(Session s) {
        URI page = itemPage();
        List<String> kept = new ArrayList<>();
        boolean foreign = false;
        for (String ref : s.<String>getList(IMAGES)) {
            URI u = Page.Embedded.sameOrigin(page, ref);
            if (u == null) {
                foreign = true;
            } else {
                kept.add(u.toString());
            }
        }
        Session out = s.set(IMAGES, kept);
        return foreign ? out.set(FOREIGN, true).markAsFailed() : out;
    }

    private URI itemPage() {
        return URI.create(profile.baseUrl().toString() + "/item");
    }

    private Session begin(Session s, UserClass userClass) {
        Visit plan = WORKLOAD.plan(userClass, ThreadLocalRandom.current());
        Session out = s.set(START, System.nanoTime()).set(SERVED, 0).set(DONE, false)
                .set(PLAN, plan.calls().stream().map(Visit.Call::path).toList());
        // a returning user carries the tier cookie of an earlier visit (the premium pool's, by its number)
        String tier = plan.returningUser() >= 0 && PREMIUM.equals(userClass.name()) ? tiers.get(plan.returningUser())
                : null;
        return tier == null ? out : out.set(TIER, tier);
    }

    /** One request: 2xx within the timeout, or the session ends here; {@code more} checks run after that. */
    private ChainBuilder request(String serviceClass, HttpRequestActionBuilder request, CheckBuilder... more) {
        List<CheckBuilder> checks = new ArrayList<>(List.of(
                // the saving checks come first: a failing check stops the ones after it
                responseTimeInMillis().saveAs(MILLIS),
                status().saveAs(STATUS),
                header("Retry-After").optional().saveAs(RETRY_AFTER),
                status().lt(300))); // the final status: redirects are followed, 1xx is never final
        checks.addAll(List.of(more));
        // nothing more is sent once a page referenced another origin (the session failed there)
        return doIf(s -> !s.contains(FOREIGN)).then(
                exec(s -> s.removeAll(STATUS, MILLIS, RETRY_AFTER).set(SENT, System.nanoTime()))
                .exec(request.requestTimeout(profile.timeout()).check(checks))
                .exec(s -> {
                    tally.served(serviceClass, s.getLong(START), s.getInt(MILLIS));
                    return s.set(SERVED, s.getInt(SERVED) + 1);
                }));
    }

    private Session end(Session s, String serviceClass) {
        int served = s.getInt(SERVED);
        Outcome outcome;
        if (s.contains(FOREIGN)) {
            outcome = Outcome.FAILED;
        } else if (s.getBoolean(DONE)) {
            outcome = Outcome.COMPLETED;
        } else {
            long sent = s.getLong(SENT);
            outcome = failure(s, served, System.nanoTime() - sent);
            if (outcome == Outcome.TIMED_OUT) {
                // the only failed request that is a response time: a refusal or an error is counted by its outcome
                tally.timedOut(serviceClass, s.getLong(START));
            }
        }
        tally.session(serviceClass, s.getLong(START), outcome, served);
        return s;
    }

    private Outcome failure(Session s, int served, long elapsedNanos) {
        if (!s.contains(STATUS)) {
            // no response: the client gave up at the timeout, or the connection failed sooner
            return elapsedNanos >= profile.timeout().toNanos() ? Outcome.TIMED_OUT : Outcome.FAILED;
        }
        if (s.getInt(STATUS) == 503 && s.contains(RETRY_AFTER)) {
            return served == 0 ? Outcome.REFUSED_AT_START : Outcome.REFUSED_MID_SESSION;
        }
        return Outcome.FAILED;
    }
}

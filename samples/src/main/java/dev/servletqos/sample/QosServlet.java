package dev.servletqos.sample;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.TierCookies;
import dev.servletqos.policy.ClassPolicy;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * {@code GET /qos}: a JSON snapshot of the engine: scheduling, per class its budget, queue, counters, delay
 * target and content level, the session table, and the controller's state. With QoS off:
 * {@code {"qos":"off"}}. The format is documented in docs/sample.md.
 */
final class QosServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Said wherever a number a controller would drive is shown: nothing drives it yet. */
    static final String NO_CONTROLLER = "not yet driven by a controller: budgets and session rates are the "
            + "policy's (or set through the engine's setters), every page is served at full content level";

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        QosEngine engine = Shop.engine(getServletContext());
        byte[] body = (engine == null ? "{\"qos\":\"off\"}\n" : json(engine) + "\n").getBytes(StandardCharsets.UTF_8);
        resp.setContentType("application/json;charset=utf-8");
        resp.setHeader("Cache-Control", "no-store");
        resp.setContentLength(body.length);
        resp.getOutputStream().write(body);
    }

    static String json(QosEngine engine) {
        EngineSnapshot s = engine.snapshot();
        Json j = new Json(true).beginObject()
                .field("qos", "on")
                .field("scheduling", s.scheduling().key())
                .field("maxExecuting", s.maxExecuting())
                .field("executing", s.executing())
                .field("queued", s.queued());
        j.name("classes").beginArray();
        for (ClassStats c : s.classes()) {
            ClassPolicy p = engine.policy().classes().get(engine.policy().classIndex(c.name()));
            j.beginObject()
                    .field("name", c.name())
                    .field("budget", c.budget())
                    .field("minBudget", c.minBudget())
                    .field("reserve", c.reserve())
                    .field("weight", c.weight())
                    .field("executing", c.executing())
                    .field("borrowed", c.borrowed())
                    .field("queued", c.queued())
                    .field("maxQueue", p.queue().maxQueue())
                    .field("maxWaitMillis", p.queue().maxWait().toMillis())
                    .field("delayTargetMillis", p.delay().target().toMillis())
                    .field("meanWaitMillis", c.meanWaitNanos() / 1e6)
                    .field("entered", c.entered())
                    .field("completed", c.completed())
                    .field("rejected", c.rejected())
                    .field("expired", c.expired())
                    .field("cancelled", c.cancelled())
                    .field("queueFull", c.queueFull())
                    .field("sessionsAdmitted", c.sessionsAdmitted())
                    .field("sessionsRefusedQueued", c.sessionsRefusedQueued())
                    .field("sessionsRefusedRate", c.sessionsRefusedRate())
                    .field("sessionRate", c.sessionRate())
                    .field("sessionBurst", c.sessionBurst())
                    .field("contentLevel", ContentLevel.FULL)
                    .endObject();
        }
        j.endArray();
        j.name("sessions").beginObject().field("tableSize", s.sessions().tableSize());
        j.name("tierCookies").beginObject();
        for (TierCookies.Verified.Status st : TierCookies.Verified.Status.values()) {
            j.field(st.name().toLowerCase(Locale.ROOT), s.sessions().tierCookies(st));
        }
        j.endObject().endObject();
        j.name("degradation").beginObject()
                .field("levels", ContentLevel.FULL)
                .field("attribute", ContentLevel.ATTRIBUTE)
                .field("controller", false)
                .field("note", NO_CONTROLLER)
                .endObject();
        j.name("controller").beginObject()
                .field("state", "none")
                .field("note", NO_CONTROLLER)
                .endObject();
        return j.endObject().toString();
    }
}

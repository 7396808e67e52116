package dev.servletqos.sample;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.QosEngine;
import dev.servletqos.Settings;
import dev.servletqos.TierCookies;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ControlPolicy;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Locale;

/**
 * {@code GET /qos}: a JSON snapshot of the engine: scheduling, per class its budget, queue, counters, delay
 * target and content level, the session table, the controller's mode and who set the settings, and the back
 * end's speed. With QoS off:
 * {@code {"qos":"off"}}. The format is documented in docs/sample.md.
 */
final class QosServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** Said when no degradation law is on: the engine applies the level, but only an operator lowers it. */
    static final String NO_CONTROLLER = "control.degradation = none: the engine serves each request at its"
            + " class's contentLevel, full unless an operator lowers it";
    /** Said when a degradation law is on. */
    static final String CONTROLLER = "the degradation law sets each class's contentLevel from the utilization"
            + " (docs/control.md); the engine serves each request at it";

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        QosEngine engine = Shop.engine(getServletContext());
        Backend backend = Shop.backend(getServletContext());
        Shop.write(resp, HttpServletResponse.SC_OK, "application/json;charset=utf-8",
                engine == null ? "{\"qos\":\"off\"}\n" : json(engine, backend) + "\n");
    }

    static String json(QosEngine engine, Backend backend) {
        EngineSnapshot s = engine.snapshot();
        Settings settings = s.settings();
        Json j = new Json(true).beginObject()
                .field("qos", "on")
                .field("scheduling", s.scheduling().key())
                .field("maxExecuting", s.maxExecuting())
                .field("executing", s.executing())
                .field("queued", s.queued());
        j.name("classes").beginArray();
        for (int i = 0; i < s.classes().size(); i++) {
            ClassStats c = s.classes().get(i);
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
                    .field("delayTargetMillis", settings.get(i).delayTarget().toMillis())
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
                    .field("contentLevel", c.level())
                    .field("contentLevels", c.levels())
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
                .field("law", settings.control().degradation().law().key())
                .field("controller", settings.control().degradation().law() != ControlPolicy.DegradationLaw.NONE)
                .field("note", settings.control().degradation().law() != ControlPolicy.DegradationLaw.NONE
                        ? CONTROLLER : NO_CONTROLLER)
                .endObject();
        ControlPolicy.Mode mode = settings.control().mode();
        j.name("controller").beginObject()
                .field("state", mode == ControlPolicy.Mode.OFF ? "none" : "on")
                .field("mode", mode.key())
                .field("settingsSource", settings.source().name().toLowerCase(Locale.ROOT))
                .field("periods", engine.controlStatus().periods());
        if (mode == ControlPolicy.Mode.OFF) {
            j.field("note", "control mode off: budgets and session rates stay as the policy or an operator set them");
        }
        j.endObject();
        j.name("backend").beginObject()
                .field("factor", backend == null ? 1 : backend.factor())
                .field("note", "multiplies the shop's simulated back-end waits; POST /admin/backend?factor=X from"
                        + " this machine changes it")
                .endObject();
        return j.endObject().toString();
    }
}

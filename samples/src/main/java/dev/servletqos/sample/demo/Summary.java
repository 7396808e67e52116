package dev.servletqos.sample.demo;

import dev.servletqos.ClassStats;
import dev.servletqos.Settings;
import dev.servletqos.control.ClassSample;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.Json;
import dev.servletqos.sample.demo.Recorder.Counter;
import dev.servletqos.workload.UserClass;
import dev.servletqos.workload.Workload;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;

/** Writes {@code summary.json}: settings, per run, per phase and per user type numbers, the headline. */
final class Summary {

    private Summary() {
    }

    static String json(Demo.Settings settings, double capacity, List<RunResult> runs, double seconds) {
        QosPolicy policy = settings.config().policy();
        Json j = new Json(true).beginObject();
        j.field("generated", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
        j.field("durationSeconds", Math.round(seconds));
        j.name("machine").beginObject()
                .field("cores", Runtime.getRuntime().availableProcessors())
                .field("java", System.getProperty("java.version"))
                .endObject();
        j.field("container", settings.container());
        j.name("policy").beginObject()
                .field("source", settings.config().policyFile() == null ? "classpath:qos-sample.properties"
                        : settings.config().policyFile().toString())
                .field("scheduling", policy.scheduling().key())
                .field("maxExecuting", policy.maxExecuting())
                .field("admissionTotalQueued", policy.admission().totalQueuedTrigger())
                .field("admissionHigherQueued", policy.admission().higherQueuedTrigger());
        j.name("classes").beginArray();
        for (ClassPolicy c : policy.classes()) {
            j.beginObject().field("name", c.name()).field("budget", c.capacity().budget())
                    .field("maxQueue", c.queue().maxQueue()).field("maxWaitMillis", c.queue().maxWait().toMillis())
                    .field("delayTargetMillis", c.delay().target().toMillis())
                    .field("totalQueuedTrigger", c.admission().totalQueuedTrigger())
                    .field("higherQueuedTrigger", c.admission().higherQueuedTrigger()).endObject();
        }
        j.endArray().endObject();
        Workload w = LoadGenerator.WORKLOAD;
        UserClass premium = w.userClass("premium");
        j.name("session").beginObject()
                .field("workload", "dev.servletqos.workload.ShopWorkload.SHOP")
                .field("steps", Demo.steps())
                .field("requests", w.requests(false))
                .field("workerMillis", settings.config().costs().sessionMillis())
                .field("backendWaitMillis", settings.config().costs().scale() * w.cost(false).waitMillis())
                .field("costScale", settings.config().costs().scale())
                .field("thinkTimeMillis", w.thinkTime().toMillis())
                .field("clientTimeoutSeconds", LoadGenerator.TIMEOUT.toSeconds())
                .field("premiumShare", premium == null ? 0 : premium.share())
                .field("premiumUsersAreReturning", premium != null && premium.returning());
        j.name("classes").beginArray();
        for (UserClass c : w.classes()) {
            j.beginObject().field("name", c.name()).field("share", c.share()).field("returning", c.returning())
                    .endObject();
        }
        j.endArray().endObject();
        j.name("capacity").beginObject()
                .field("sessionsPerSecond", capacity)
                .field("source", settings.capacity() > 0 ? "--capacity"
                        : "nominal: the back end's connections (or a lower fixed max-executing) / worker time of one"
                                + " session")
                .endObject();
        j.name("profile").beginArray();
        for (Profile.Phase p : settings.profile().phases()) {
            j.beginObject().field("name", p.name()).field("seconds", p.seconds()).field("multiple", p.multiple())
                    .field("backendFactor", p.backendFactor())
                    .field("offeredSessionsPerSecond", p.multiple() * capacity)
                    .field("capacityAtBackend", Demo.capacityAt(capacity, p.backendFactor())).endObject();
        }
        j.endArray();
        dev.servletqos.policy.ControlPolicy.Degradation d = policy.control().degradation();
        j.name("degradation").beginObject()
                .field("law", d.law().key())
                .field("controller", d.law() != dev.servletqos.policy.ControlPolicy.DegradationLaw.NONE)
                .field("utilizationSource", d.source().key())
                .field("utilizationTarget", d.target())
                .field("description", Demo.degradation(policy))
                .field("comparedRun", settings.noDegradation() == null ? null : settings.noDegradation().name())
                .field("note", "each class's level per second is in each run's timeline (level); degraded counts are"
                        + " measured from the X-Content-Level header");
        j.name("completedPerSecondWithOverWithout").beginArray();
        for (int i = 0; i < settings.profile().phases().size(); i++) {
            j.beginObject().field("phase", settings.profile().phases().get(i).name())
                    .field("ratio", Demo.degradationRatio(runs, i)).endObject();
        }
        j.endArray().endObject();
        j.name("runs").beginArray();
        for (RunResult r : runs) {
            run(j, r);
        }
        j.endArray();
        headline(j, runs, settings.profile(), capacity);
        return j.endObject().toString() + "\n";
    }

    private static void run(Json j, RunResult r) {
        j.beginObject().field("qos", r.qos() ? "on" : "off").field("label", r.label()).field("server", r.server())
                .field("unfinishedAtEnd", r.unfinished())
                .field("notStartedGeneratorLimit", r.capped());
        j.name("phases").beginArray();
        for (RunResult.PhaseStats p : r.phases()) {
            j.beginObject().field("name", p.phase().name()).field("start", p.start()).field("end", p.end())
                    .field("multiple", p.phase().multiple())
                    .field("backendFactor", p.phase().backendFactor())
                    .field("offeredSessionsPerSecond", p.phase().multiple() * r.capacity())
                    .field("capacityAtBackend", p.capacity())
                    .field("completedOfCapacityPercent", 100 * p.total().completedPerSecond() / r.capacity())
                    .field("completedOfCapacityAtBackendPercent", 100 * p.total().completedPerSecond() / p.capacity())
                    .field("pagesServedPerSecond", p.pagesServedPerSecond())
                    .field("usefulRequestsPerSecond", p.usefulRequestsPerSecond());
            if (!p.engine().isEmpty()) {
                j.field("settingsSources", p.settingsSources()).field("controlModes", p.controlModes());
                j.name("engine").beginObject();
                for (RunResult.EngineStats e : p.engine()) {
                    j.name(e.name()).beginObject()
                            .field("meanQueueDelayMillis", e.meanQueueDelayMillis())
                            .field("p95QueueDelayMillis", e.p95QueueDelayMillis())
                            .field("delayTargetMillis", e.delayTargetMillis())
                            .field("budgetMin", e.budgetMin())
                            .field("budgetMax", e.budgetMax())
                            .endObject();
                }
                j.endObject();
            }
            j.name("classes").beginObject();
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                j.name(Recorder.TYPES.get(t));
                type(j, p.types().get(t), Demo.delayTargetMillis(r.policy(), Recorder.TYPES.get(t)));
            }
            j.endObject();
            j.name("total");
            type(j, p.total(), -1);
            j.endObject();
        }
        j.endArray();
        j.name("timeline").beginArray();
        Recorder rec = r.recorder();
        for (int s = 0; s < r.seconds(); s++) {
            Recorder.ServerSample sample = rec.sample(s);
            j.beginObject().field("second", s);
            if (sample != null) {
                j.field("backendFactor", sample.backendFactor());
                if (sample.engine() != null) {
                    Settings settings = sample.engine().settings();
                    j.field("maxExecuting", settings.maxExecuting())
                            .field("controlMode", settings.control().mode().key())
                            .field("settingsSource", Demo.source(settings.source()));
                }
            }
            for (int t = 0; t < Recorder.TYPES.size(); t++) {
                j.name(Recorder.TYPES.get(t)).beginObject()
                        .field("offered", rec.get(Counter.OFFERED, t, s))
                        .field("admitted", rec.get(Counter.ADMITTED, t, s))
                        .field("refused", rec.get(Counter.REFUSED, t, s))
                        .field("completed", rec.get(Counter.COMPLETED, t, s))
                        .field("failed", rec.get(Counter.FAILED, t, s))
                        .field("requestsOk", rec.get(Counter.REQ_OK, t, s))
                        .field("requestsRefused", rec.get(Counter.REQ_REFUSED, t, s))
                        .field("requestsTimedOut", rec.get(Counter.REQ_TIMEOUT, t, s))
                        .field("degraded", rec.get(Counter.REQ_DEGRADED, t, s))
                        .field("p95DelayMillis", Recorder.percentile(rec.delays(t, s), 95));
                int i = sample == null ? -1 : sample.classIndex(t);
                if (i >= 0) {
                    ClassStats c = sample.engine().classes().get(i);
                    j.field("budget", c.budget()).field("queued", c.queued()).field("executing", c.executing())
                            .field("level", c.level())
                            .field("delayTargetMillis", sample.engine().settings().get(i).delayTarget().toMillis());
                    ClassSample q = sample.period() == null ? null : sample.period().get(c.name());
                    if (q != null && q.active()) {
                        j.field("queueDelayMeanMillis", q.meanWait() * 1000)
                                .field("queueDelayP95Millis", q.delay(0.95) * 1000);
                    }
                }
                j.endObject();
            }
            j.endObject();
        }
        j.endArray();
        j.endObject();
    }

    private static void type(Json j, RunResult.TypeStats s, long target) {
        j.beginObject()
                .field("offered", s.offered())
                .field("admitted", s.admitted())
                .field("refused", s.refused())
                .field("completed", s.completed())
                .field("rejectedMidway", s.rejectedMidway())
                .field("timedOut", s.timedOut())
                .field("errors", s.errors())
                .field("unfinishedAtEnd", s.unfinished())
                .field("notStartedGeneratorLimit", s.capped())
                .field("completedPerSecond", s.completedPerSecond())
                .field("completedPercent", s.completedPercent())
                .field("completedOfAdmittedPercent", s.completedOfAdmittedPercent())
                .field("p50DelayMillis", s.p50DelayMillis())
                .field("p95DelayMillis", s.p95DelayMillis())
                .field("degradedResponses", s.degraded());
        if (target >= 0) {
            j.field("delayTargetMillis", target);
        }
        j.endObject();
    }

    private static void headline(Json j, List<RunResult> runs, Profile profile, double capacity) {
        j.name("headline").beginObject().field("unit", "completed sessions per second")
                .field("capacity", capacity);
        j.name("phases").beginArray();
        for (int i = 0; i < profile.phases().size(); i++) {
            j.beginObject().field("name", profile.phases().get(i).name())
                    .field("backendFactor", profile.phases().get(i).backendFactor());
            for (int t = 0; t <= Recorder.TYPES.size(); t++) {
                String key = t < Recorder.TYPES.size() ? Recorder.TYPES.get(t) : "total";
                j.name(key).beginObject();
                boolean on = false;
                boolean off = false;
                for (RunResult r : runs) {
                    onOff(j, r.label(), r.phases(), i, t);
                    on |= r.label().equals("on");
                    off |= r.label().equals("off");
                }
                // a run left out is null, so a reader finds both halves' keys
                if (!on) {
                    onOff(j, "on", null, i, t);
                }
                if (!off) {
                    onOff(j, "off", null, i, t);
                }
                j.endObject();
            }
            j.endObject();
        }
        j.endArray().endObject();
    }

    private static void onOff(Json j, String name, List<RunResult.PhaseStats> phases, int i, int t) {
        if (phases == null) {
            j.name(name).nullValue();
            return;
        }
        RunResult.TypeStats s = phases.get(i).type(t);
        j.field(name, s.completedPerSecond());
        j.field(name + "CompletedPercent", s.completedPercent());
    }
}

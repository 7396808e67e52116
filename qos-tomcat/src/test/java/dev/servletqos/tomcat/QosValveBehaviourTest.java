package dev.servletqos.tomcat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.ClassStats;
import dev.servletqos.QosEngine;
import dev.servletqos.servlet.Responses;
import dev.servletqos.testkit.AdapterBehaviourSuite;
import dev.servletqos.testkit.QosServer;
import jakarta.servlet.ServletRequestAttributeEvent;
import jakarta.servlet.ServletRequestAttributeListener;
import jakarta.servlet.http.HttpServletRequest;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.catalina.core.StandardContext;
import org.junit.jupiter.api.Test;

/** The adapter behaviour suite against the {@link QosValve} on embedded Tomcat. */
class QosValveBehaviourTest extends AdapterBehaviourSuite {

    @Override
    protected QosServer start(Path dir, String policyText, int maxThreads) throws Exception {
        return EmbeddedTomcat.withValve(dir, policyText, maxThreads);
    }

    /**
     * The timing of the three {@code /search} requests of the status page suite's first version, made certain: a
     * request for a path no servlet is mapped to enters while the only permit is taken, and the permit is released
     * while the valve labels it, before it is parked. It is answered (Tomcat's 404) on its own connection, and
     * nothing is counted declined. Before the fix, the grant reached the waiting request inside its own park,
     * {@code AsyncContext.dispatch()} threw {@code UnsupportedOperationException} (no request dispatcher for the
     * path) through the valve with the request suspended, the permit was released as declined and Tomcat closed the
     * connection without a response: the JDK's client sends such a GET again.
     */
    @Test
    void aPathWithoutAServletGrantedWhileItIsBeingParkedIsAnswered() throws Exception {
        Path file = EmbeddedTomcat.writePolicy(dir, CLASSES + "max-executing = 1\nclass.premium.reserve = 0\n");
        EmbeddedTomcat tomcat = new EmbeddedTomcat(dir, MAX_THREADS, ctx -> {
            QosValve valve = new QosValve();
            valve.setPolicy(file.toString());
            ctx.getPipeline().addValve(valve);
            ((StandardContext) ctx).addApplicationEventListener(new ReleaseWhileLabelling(ctx.getServletContext()));
        });
        server = tomcat;
        CompletableFuture<HttpResponse<String>> blocker = send(request("/work?ms=300").build());
        awaitState("one running", Duration.ofSeconds(10), () -> server.snapshot().executing() == 1);
        try (Socket raw = rawGet("/nothing")) {
            raw.setSoTimeout(15_000);
            String line = new String(raw.getInputStream().readNBytes(12), StandardCharsets.US_ASCII);
            assertEquals("HTTP/1.1 404", line, "Tomcat's 404 for a path without a servlet, not a close without an "
                    + "answer; engine: " + server.snapshot());
        }
        assertEquals(200, blocker.get().statusCode());
        awaitIdle();
        ClassStats basic = server.snapshot().get("basic");
        assertEquals(2, basic.entered(), basic.toString());
        assertEquals(2, basic.completed(), "the blocker and the 404, nothing declined: " + basic);
    }

    /**
     * Holds the valve's labelling of a request for {@code /nothing} (its first request attribute) until the blocker
     * has released its permit, so that the engine grants the waiting request's permit before the valve parks it.
     */
    private static final class ReleaseWhileLabelling implements ServletRequestAttributeListener {
        private final jakarta.servlet.ServletContext context;

        ReleaseWhileLabelling(jakarta.servlet.ServletContext context) {
            this.context = context;
        }

        @Override
        public void attributeAdded(ServletRequestAttributeEvent event) {
            if (!Responses.CLASS_ATTRIBUTE.equals(event.getName())
                    || !(event.getServletRequest() instanceof HttpServletRequest r)
                    || !r.getRequestURI().equals("/nothing")) {
                return;
            }
            QosEngine engine = (QosEngine) context.getAttribute(QosValve.ENGINE_ATTRIBUTE);
            await("the blocker released its permit", Duration.ofSeconds(10),
                    () -> engine.snapshot().get("basic").completed() == 1);
            assertTrue(engine.snapshot().get("basic").executing() == 1, "the waiting request holds the permit now");
        }
    }
}

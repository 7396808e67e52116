package dev.servletqos.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.jetty.JettyWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/**
 * The real-HTTP suite on Boot's embedded Jetty, with the handler in front of the web application. Run by the
 * module's {@code jetty} Surefire execution, whose class path has no Tomcat.
 */
@EnabledIf("dev.servletqos.boot.ClassPaths#jettyOnly")
class OnJettyTest extends OverHttpSuite {

    @Autowired
    WebServerApplicationContext context;

    @Override
    int busyWorkerThreads() {
        return ((QueuedThreadPool) ((JettyWebServer) context.getWebServer()).getServer().getThreadPool())
                .getBusyThreads();
    }

    /** The handler holds a waiting request before the servlet layer: every filter sees it as a REQUEST dispatch. */
    @Test
    void aPlainFilterSeesEveryRequestOnJetty() throws Exception {
        assertThat(context.getWebServer()).isInstanceOf(JettyWebServer.class);
        int before = countingFilter.requests.get();
        int asyncBefore = countingFilter.async.get();
        var load = new java.util.ArrayList<java.util.concurrent.CompletableFuture<java.net.http.HttpResponse<String>>>();
        for (int i = 0; i < 5; i++) {
            load.add(send(request("/work?ms=300").build()));
        }
        for (var f : load) {
            assertThat(f.get().statusCode()).isEqualTo(200);
        }
        assertThat(countingFilter.requests.get() - before).isEqualTo(5);
        assertThat(countingFilter.async.get() - asyncBefore).isZero();
    }
}

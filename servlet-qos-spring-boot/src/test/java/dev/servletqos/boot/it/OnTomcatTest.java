package dev.servletqos.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;

/** The real-HTTP suite on Boot's embedded Tomcat, with the valve; and Tomcat's traps. */
@ExtendWith(OutputCaptureExtension.class)
class OnTomcatTest extends OverHttpSuite {

    @Autowired
    WebServerApplicationContext context;

    @Override
    int busyWorkerThreads() {
        TomcatWebServer server = (TomcatWebServer) context.getWebServer();
        return ((ThreadPoolExecutor) server.getTomcat().getConnector().getProtocolHandler().getExecutor())
                .getActiveCount();
    }

    /** Boot maps a plain Filter bean for REQUEST only: the starter names it and the fix at startup. */
    @Test
    void aFilterMappedWithoutAsyncIsNamedAtStartupWithTheFix(CapturedOutput output) {
        assertThat(context.getWebServer()).isInstanceOf(TomcatWebServer.class);
        assertThat(output.getAll()).contains("servlet-qos: the filters [countingFilter] are registered without "
                + "the ASYNC dispatcher type").contains("setDispatcherTypes(DispatcherType.REQUEST");
    }
}

package dev.servletqos.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.servletqos.servlet.QosFilter;
import org.apache.tomcat.util.threads.ThreadPoolExecutor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.test.context.TestPropertySource;

/** The real-HTTP suite with {@code servlet-qos.adapter = filter} on Boot's Tomcat: the portable filter, first. */
@EnabledIf("dev.servletqos.boot.ClassPaths#tomcat")
@TestPropertySource(properties = "servlet-qos.adapter = filter")
class FilterOnTomcatTest extends OverHttpSuite {

    @Autowired
    WebServerApplicationContext context;

    @Autowired
    FilterRegistrationBean<QosFilter> qosFilterRegistration;

    @Override
    int busyWorkerThreads() {
        TomcatWebServer server = (TomcatWebServer) context.getWebServer();
        return ((ThreadPoolExecutor) server.getTomcat().getConnector().getProtocolHandler().getExecutor())
                .getActiveCount();
    }

    @Test
    void theFilterServesTheStartersRuntimeAndNoValveIsInstalled() {
        assertThat(qosFilterRegistration.getFilter().getRuntime()).isSameAs(runtime);
        assertThat(((org.springframework.context.ApplicationContext) context)
                .containsBean("qosTomcatContextCustomizer")).isFalse();
    }
}

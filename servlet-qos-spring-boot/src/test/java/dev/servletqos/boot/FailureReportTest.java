package dev.servletqos.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

/** What a user sees when a servlet-qos property is bad: Boot's failure report, written by the starter's analyzer. */
@ExtendWith(OutputCaptureExtension.class)
@EnabledIf("dev.servletqos.boot.ClassPaths#tomcat")
class FailureReportTest {

    @Configuration(proxyBeanMethods = false)
    @EnableAutoConfiguration
    static class App {
    }

    @Test
    void aBadPropertyStopsStartupWithAReportNamingItAndTheFix(CapturedOutput output) {
        assertThatThrownBy(() -> new SpringApplicationBuilder(App.class)
                .properties("server.port=0", "servlet-qos.classes=premium, basic",
                        "servlet-qos.class.basic.max-wait=soon", "spring.main.banner-mode=off")
                .run()).isNotNull();
        assertThat(output.getAll()).contains("APPLICATION FAILED TO START")
                .contains("the setting servlet-qos.class.basic.max-wait is not valid")
                .contains("class.basic.max-wait = soon")
                .contains("Fix servlet-qos.class.basic.max-wait in the application's properties");
    }
}

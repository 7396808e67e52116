package dev.servletqos.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.servletqos.runtime.QosRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.eclipse.jetty.server.Server;
import org.springframework.boot.jetty.JettyServerCustomizer;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * The beans on a class path with Jetty and without Tomcat, as spring-boot-starter-jetty users have it (the module's
 * {@code jetty} Surefire execution).
 */
@EnabledIf("dev.servletqos.boot.ClassPaths#jettyOnly")
class ClassPathOnJettyTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(QosAutoConfiguration.class))
            .withPropertyValues("servlet-qos.classes = premium, basic", "servlet-qos.jmx.enabled = false");

    @Test
    void onJettyTheHandlerAndNoFilter() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(QosRuntime.class).hasBean("qosJettyServerCustomizer")
                    .doesNotHaveBean("qosTomcatContextCustomizer").doesNotHaveBean("qosFilterRegistration")
                    .doesNotHaveBean("qosResumedRequestFilter");
            assertThat(context.getBean(JettyServerCustomizer.class)).isInstanceOf(HandlerCustomizer.class);
        });
    }

    @Test
    void withoutJettyTheFilter() {
        runner.withClassLoader(new FilteredClassLoader(Server.class)).run(context -> assertThat(context)
                .hasNotFailed().hasBean("qosFilterRegistration").hasBean("qosResumedRequestFilter")
                .doesNotHaveBean("qosJettyServerCustomizer"));
    }

    @Test
    void theValveCannotRunHereAndStartupSaysSo() {
        runner.withPropertyValues("servlet-qos.adapter = valve").run(context -> assertThat(
                new PolicyFailureAnalyzer().analyze(context.getStartupFailure()).getDescription())
                .contains("servlet-qos.adapter").contains("needs Tomcat"));
    }
}

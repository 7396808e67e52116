package dev.servletqos.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.servletqos.QosEngine;
import dev.servletqos.metrics.QosMetrics;
import dev.servletqos.policy.ClassPolicy;
import dev.servletqos.policy.ExemptRule;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.servlet.QosFilter;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.tomcat.TomcatContextCustomizer;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Which beans the starter defines, by class path and by property, with the real auto-configurations (Boot's Jetty
 * support is not on this execution's class path: see {@code ClassPathOnJettyTest}); a bad property fails startup
 * with the analyzer's text.
 */
@EnabledIf("dev.servletqos.boot.ClassPaths#tomcat")
class QosAutoConfigurationTest {

    private final WebApplicationContextRunner runner = new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(QosAutoConfiguration.class, QosActuatorAutoConfiguration.class))
            .withPropertyValues("servlet-qos.classes = premium, basic", "servlet-qos.max-executing = 8",
                    "servlet-qos.jmx.enabled = false", "management.endpoints.web.exposure.include = health, qos");

    @Test
    void onTomcatTheValveTheEngineTheMetersTheEndpointAndHealth() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(QosRuntime.class).hasSingleBean(QosEngine.class)
                    .hasSingleBean(QosMetrics.class).hasSingleBean(QosEndpoint.class)
                    .hasSingleBean(QosHealthIndicator.class).hasBean("qosTomcatContextCustomizer")
                    .hasBean("qosResumedRequestFilter").doesNotHaveBean("qosFilterRegistration");
            assertThat(context.getBean(TomcatContextCustomizer.class)).isInstanceOf(ValveCustomizer.class);
            QosEngine engine = context.getBean(QosEngine.class);
            assertThat(engine).isSameAs(context.getBean(QosRuntime.class).engine());
            assertThat(engine.policy().maxExecuting()).isEqualTo(8);
            assertThat(engine.policy().classes()).extracting(ClassPolicy::name).containsExactly("premium", "basic");
            assertThat(context.getBean(QosRuntime.class).origin()).isEqualTo("policy from servlet-qos.* properties");
        });
    }

    @Test
    void withoutTomcatOrJettyTheFilter() {
        runner.withClassLoader(new FilteredClassLoader(Tomcat.class)).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(QosRuntime.class).hasBean("qosFilterRegistration")
                    .hasBean("qosResumedRequestFilter").doesNotHaveBean("qosTomcatContextCustomizer");
            FilterRegistrationBean<?> filter = context.getBean("qosFilterRegistration", FilterRegistrationBean.class);
            assertThat(filter.getFilter()).isInstanceOf(QosFilter.class);
            assertThat(filter.isAsyncSupported()).isTrue();
        });
    }

    @Test
    void theAdapterPropertyChoosesTheFilterOnTomcat() {
        runner.withPropertyValues("servlet-qos.adapter = filter").run(context -> assertThat(context).hasNotFailed()
                .hasBean("qosFilterRegistration").doesNotHaveBean("qosTomcatContextCustomizer"));
    }

    @Test
    void anAdapterThatCannotRunHereFailsStartupNamingTheProperty() {
        runner.withPropertyValues("servlet-qos.adapter = handler").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis a = new PolicyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(a.getDescription()).contains("servlet-qos.adapter").contains("needs Jetty");
        });
    }

    @Test
    void withoutActuatorNoEndpointAndNoHealth() {
        runner.withClassLoader(new FilteredClassLoader(Endpoint.class, HealthIndicator.class)).run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(QosRuntime.class)
                        .doesNotHaveBean(QosEndpoint.class).doesNotHaveBean(QosHealthIndicator.class));
    }

    @Test
    void withoutMicrometerNoMeters() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer.core")).run(context ->
                assertThat(context).hasNotFailed().hasSingleBean(QosRuntime.class)
                        .doesNotHaveBean(QosMetrics.class));
    }

    @Test
    void disabledByProperty() {
        runner.withPropertyValues("servlet-qos.enabled = false").run(context -> assertThat(context)
                .hasNotFailed().doesNotHaveBean(QosRuntime.class).doesNotHaveBean(QosEngine.class)
                .doesNotHaveBean("qosTomcatContextCustomizer").doesNotHaveBean(QosEndpoint.class));
    }

    @Test
    void aUsersOwnRuntimeWinsAndIsTheOneServed() {
        runner.withUserConfiguration(OwnRuntime.class).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(QosRuntime.class);
            QosRuntime own = context.getBean(QosRuntime.class);
            assertThat(own.origin()).isEqualTo("policy from Java");
            assertThat(context.getBean(QosEngine.class)).isSameAs(own.engine());
            assertThat(own.engine().policy().classes()).extracting(ClassPolicy::name).containsExactly("gold", "rest");
            assertThat(context).hasBean("qosTomcatContextCustomizer");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRuntime {
        @Bean
        QosRuntime myRuntime() {
            return QosRuntime.of(QosPolicy.builder().addClass(ClassPolicy.named("gold"))
                    .addClass(ClassPolicy.named("rest")).maxExecuting(4).build()).noMBeans().build();
        }
    }

    @Test
    void aBadValueFailsStartupWithTheAnalyzersTextNamingThePropertyAndTheValue() {
        runner.withPropertyValues("servlet-qos.class.basic.max-wait = soon").run(context -> {
            assertThat(context).hasFailed();
            FailureAnalysis a = new PolicyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(a).isNotNull();
            assertThat(a.getDescription()).contains("servlet-qos.class.basic.max-wait").contains("soon");
            assertThat(a.getAction()).contains("Fix servlet-qos.class.basic.max-wait")
                    .contains("docs/configuration.md");
        });
    }

    @Test
    void anUnknownKeyFailsWithTheNearestOne() {
        runner.withPropertyValues("servlet-qos.max-executin = 5").run(context -> {
            FailureAnalysis a = new PolicyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(a.getDescription()).contains("servlet-qos.max-executin").contains("max-executing");
        });
    }

    @Test
    void theMissingClassesKeyIsNamed() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(QosAutoConfiguration.class))
                .run(context -> {
                    FailureAnalysis a = new PolicyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(a.getDescription()).contains("servlet-qos.classes").contains("required");
                    assertThat(a.getAction()).contains("servlet-qos.enabled=false");
                });
    }

    @Test
    void thePolicyFilesSyntaxForSecretsIsRefusedBecauseSpringWouldResolveIt() {
        runner.withPropertyValues("servlet-qos.tier-cookie.secret = ${env:QOS_TIER_SECRET}").run(context -> {
            FailureAnalysis a = new PolicyFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(a.getDescription()).contains("servlet-qos.tier-cookie.secret")
                    .contains("write ${QOS_TIER_SECRET}");
        });
    }

    @Test
    void aPolicyFileUnderThePropertiesWhichOverrideIt() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(QosAutoConfiguration.class))
                .withPropertyValues("servlet-qos.policy = classpath:boot-test-qos.properties",
                        "servlet-qos.max-executing = 8", "servlet-qos.jmx.enabled = false")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    QosPolicy p = context.getBean(QosEngine.class).policy();
                    // the file says gold, silver, max-executing 3; the property max-executing 8 overrides it
                    assertThat(p.classes()).extracting(ClassPolicy::name).containsExactly("gold", "silver");
                    assertThat(p.maxExecuting()).isEqualTo(8);
                    assertThat(context.getBean(QosRuntime.class).engine().reloadable()).isTrue();
                });
    }

    @Test
    void yamlListsAndEnvironmentVariablesForFixedKeysAreBound() {
        new WebApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(QosAutoConfiguration.class))
                .withPropertyValues("servlet-qos.classes[0] = gold", "servlet-qos.classes[1] = silver",
                        "servlet-qos.jmx.enabled = false")
                .withInitializer(c -> c.getEnvironment().getPropertySources().addFirst(
                        new org.springframework.core.env.SystemEnvironmentPropertySource("systemEnvironment",
                                java.util.Map.of("SERVLET_QOS_MAX_EXECUTING", "7",
                                        "SERVLET_QOS_TIER_COOKIE_SECRET", "a secret of 24 bytes, env"))))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    QosPolicy p = context.getBean(QosEngine.class).policy();
                    assertThat(p.classes()).extracting(ClassPolicy::name).containsExactly("gold", "silver");
                    assertThat(p.maxExecuting()).isEqualTo(7);
                });
    }

    @Test
    void anEnvironmentVariableForAKeyWithANameInItFailsStartupInsteadOfBeingIgnored() {
        runner.withInitializer(c -> c.getEnvironment().getPropertySources().addFirst(
                        new org.springframework.core.env.SystemEnvironmentPropertySource("systemEnvironment",
                                java.util.Map.of("SERVLET_QOS_CLASS_BASIC_BUDGET", "3"))))
                .run(context -> {
                    FailureAnalysis a = new PolicyFailureAnalyzer().analyze(context.getStartupFailure());
                    assertThat(a.getDescription()).contains("SERVLET_QOS_CLASS_BASIC_BUDGET sets no servlet-qos key")
                            .contains("servlet-qos.class.premium.budget = ${SERVLET_QOS_CLASS_BASIC_BUDGET}");
                });
        // named in the properties, the same variable is Spring's to bind, and is bound
        runner.withPropertyValues("servlet-qos.class.basic.budget = 5")
                .withInitializer(c -> c.getEnvironment().getPropertySources().addFirst(
                        new org.springframework.core.env.SystemEnvironmentPropertySource("systemEnvironment",
                                java.util.Map.of("SERVLET_QOS_CLASS_BASIC_BUDGET", "3"))))
                .run(context -> assertThat(context.getBean(QosEngine.class).settings().get(1).budget())
                        .isEqualTo(3));
    }

    @Test
    void actuatorsPathsAreExemptByDefaultAndNotWhenTurnedOff() {
        runner.run(context -> assertThat(context.getBean(QosEngine.class).policy().exempt())
                .containsExactly(ExemptRule.onPaths("/actuator", "/actuator/**")));
        runner.withPropertyValues("management.endpoints.web.base-path = /manage", "server.servlet.context-path = /shop")
                .run(context -> assertThat(context.getBean(QosEngine.class).policy().exempt()).containsExactly(
                        ExemptRule.onPaths("/manage", "/manage/**", "/shop/manage", "/shop/manage/**")));
        runner.withPropertyValues("servlet-qos.exempt-actuator = false").run(context ->
                assertThat(context.getBean(QosEngine.class).policy().exempt()).isEmpty());
        // on a port of its own, Actuator is not under QoS at all
        runner.withPropertyValues("management.server.port = 9999").run(context ->
                assertThat(context.getBean(QosEngine.class).policy().exempt()).isEmpty());
    }
}

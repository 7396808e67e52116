package dev.servletqos.boot;

import dev.servletqos.runtime.QosRuntime;
import java.lang.management.ManagementFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator for servlet-qos: the {@code qos} endpoint ({@link QosEndpoint}) and the {@code qos} health contributor
 * ({@link QosHealthIndicator}), each when Actuator (or its health module) is on the class path and it is enabled.
 */
@AutoConfiguration(after = QosAutoConfiguration.class)
@ConditionalOnBean(QosRuntime.class)
public class QosActuatorAutoConfiguration {

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    static class EndpointConfiguration {

        @Bean
        @ConditionalOnMissingBean
        @ConditionalOnAvailableEndpoint
        QosEndpoint qosEndpoint(QosRuntime runtime, QosProperties properties) {
            QosProperties.Jmx jmx = properties.getJmx();
            return new QosEndpoint(runtime, jmx.isEnabled() ? ManagementFactory.getPlatformMBeanServer() : null,
                    jmx.getDomain());
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.health.contributor.HealthIndicator")
    static class HealthConfiguration {

        @Bean
        @ConditionalOnMissingBean(name = "qosHealthIndicator")
        @ConditionalOnEnabledHealthIndicator("qos")
        QosHealthIndicator qosHealthIndicator(QosRuntime runtime) {
            return new QosHealthIndicator(runtime);
        }
    }
}

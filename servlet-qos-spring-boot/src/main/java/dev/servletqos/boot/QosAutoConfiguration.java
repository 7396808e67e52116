package dev.servletqos.boot;

import dev.servletqos.QosEngine;
import dev.servletqos.metrics.QosMetrics;
import dev.servletqos.runtime.QosRuntime;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;

/**
 * servlet-qos on Spring Boot's embedded server: the runtime and its engine as beans, the adapter for the server in
 * use ({@link QosAdapterConfigurations}), the meters as a {@code MeterBinder} bean. The engine's JMX beans go to the
 * platform MBean server: Boot turns Tomcat's own MBean registry off, so beans registered there would be discarded.
 *
 * <p>Backs off for a {@link QosRuntime} bean of the application's own (which the adapter then serves), and entirely
 * with {@code servlet-qos.enabled=false}.
 */
@AutoConfiguration
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnBooleanProperty(name = "servlet-qos.enabled", matchIfMissing = true)
@EnableConfigurationProperties(QosProperties.class)
@Import({QosAdapterConfigurations.Valve.class, QosAdapterConfigurations.Handler.class,
        QosAdapterConfigurations.Filter.class})
public class QosAutoConfiguration {

    private static final Log LOG = LogFactory.getLog(QosRuntime.class);

    /**
     * The runtime: the policy from the {@code servlet-qos.*} properties (and {@code servlet-qos.policy}), the
     * engine's JMX beans on the platform MBean server, its periodic work on a daemon thread of its own. Started and
     * stopped by the adapter with the server; stopped again (a no-op then) when the context closes.
     *
     * @throws dev.servletqos.policy.PolicyException for a bad policy key or value ({@link PolicyFailureAnalyzer})
     */
    @Bean(destroyMethod = "stop")
    @ConditionalOnMissingBean
    public QosRuntime qosRuntime(QosProperties properties, Environment environment, ResourceLoader resources,
                                 ListableBeanFactory beans) {
        QosAdapterConfigurations.check(properties.getAdapter(), resources.getClassLoader());
        List<String> exempt = properties.isExemptActuator() ? ActuatorPaths.of(environment) : List.of();
        PolicySource source = PolicySource.of(environment, resources, properties.getPolicy(), exempt);
        QosRuntime.Builder b = source.applyTo(QosRuntime.builder())
                .threads(ServerThreads.of(environment, beans))
                .engineId(engineId(environment))
                .log(QosRuntime.Log.of(LOG::info, LOG::warn));
        if (properties.getJmx().isEnabled()) {
            b.mbeanServer(ManagementFactory.getPlatformMBeanServer()).jmxDomain(properties.getJmx().getDomain());
        } else {
            b.noMBeans();
        }
        return b.build();
    }

    /** The engine requests enter, for the application (a login issuing the tier cookie: {@code tierCookies()}). */
    @Bean
    @ConditionalOnMissingBean
    public QosEngine qosEngine(QosRuntime runtime) {
        return runtime.engine();
    }

    /** The engine id in the beans' ObjectNames: the application's context path, {@code /} at the root. */
    private static String engineId(Environment environment) {
        String path = environment.getProperty("server.servlet.context-path", "");
        return path.isBlank() ? "/" : path;
    }

    /** The engine's meters ({@code qos.*}, docs/metrics.md), bound by Boot to every meter registry. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    static class Metrics {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        QosMetrics qosMetrics(QosEngine engine) {
            return new QosMetrics(engine);
        }
    }
}

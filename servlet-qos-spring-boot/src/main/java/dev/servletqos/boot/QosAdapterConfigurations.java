package dev.servletqos.boot;

import dev.servletqos.boot.QosProperties.Adapter;
import dev.servletqos.boot.QosProperties.RequestOnlyFilters;
import dev.servletqos.policy.PolicyException;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.servlet.QosFilter;
import jakarta.servlet.DispatcherType;
import java.util.EnumSet;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

/**
 * The adapters, one per server: Tomcat's valve through a {@code TomcatContextCustomizer}, Jetty's handler through a
 * {@code JettyServerCustomizer} (in front of the web application), the servlet filter where neither server is on
 * the class path, or where {@code servlet-qos.adapter} asks for it. With both servers on the class path both
 * customizers are beans, and only the server Boot runs applies its own.
 */
final class QosAdapterConfigurations {

    static final String TOMCAT = "org.apache.catalina.startup.Tomcat";
    static final String TOMCAT_CUSTOMIZER = "org.springframework.boot.tomcat.TomcatContextCustomizer";
    static final String VALVE = "dev.servletqos.tomcat.QosValve";
    static final String JETTY = "org.eclipse.jetty.server.Server";
    static final String JETTY_CUSTOMIZER = "org.springframework.boot.jetty.JettyServerCustomizer";
    static final String HANDLER = "dev.servletqos.jetty.QosHandler";

    private QosAdapterConfigurations() {
    }

    /** Whether Tomcat, Boot's Tomcat support and the valve are all on the class path. */
    static boolean valvePossible(ClassLoader loader) {
        return present(loader, TOMCAT, TOMCAT_CUSTOMIZER, VALVE);
    }

    /** Whether Jetty, Boot's Jetty support and the handler are all on the class path. */
    static boolean handlerPossible(ClassLoader loader) {
        return present(loader, JETTY, JETTY_CUSTOMIZER, HANDLER);
    }

    private static boolean present(ClassLoader loader, String... names) {
        for (String n : names) {
            if (!ClassUtils.isPresent(n, loader)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Fails startup when {@code servlet-qos.adapter} names an adapter that cannot run here.
     *
     * @throws PolicyException naming the property, for {@link PolicyFailureAnalyzer}
     */
    static void check(Adapter adapter, ClassLoader loader) {
        if (adapter == Adapter.VALVE && !valvePossible(loader)) {
            throw new PolicyException("adapter", "valve", "needs Tomcat (spring-boot-starter-tomcat) and "
                    + "dev.servletqos:qos-tomcat on the class path");
        }
        if (adapter == Adapter.HANDLER && !handlerPossible(loader)) {
            throw new PolicyException("adapter", "handler", "needs Jetty (spring-boot-starter-jetty) and "
                    + "dev.servletqos:qos-jetty on the class path");
        }
    }

    private static Adapter adapter(ConditionContext context) {
        return Binder.get(context.getEnvironment()).bind("servlet-qos.adapter", Adapter.class).orElse(Adapter.AUTO);
    }

    /** Matches when {@code servlet-qos.adapter} is auto or {@code wanted}. */
    private static ConditionOutcome autoOr(ConditionContext context, Adapter wanted) {
        Adapter a = adapter(context);
        return a == Adapter.AUTO || a == wanted ? ConditionOutcome.match("servlet-qos.adapter = " + a)
                : ConditionOutcome.noMatch("servlet-qos.adapter = " + a);
    }

    /** The valve on Tomcat: {@code servlet-qos.adapter} auto or valve. */
    static final class OnValve extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return autoOr(context, Adapter.VALVE);
        }
    }

    /** The handler on Jetty: {@code servlet-qos.adapter} auto or handler. */
    static final class OnHandler extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return autoOr(context, Adapter.HANDLER);
        }
    }

    /** The filter: {@code servlet-qos.adapter} filter, or auto with neither the valve nor the handler possible. */
    static final class OnFilter extends SpringBootCondition {
        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Adapter a = adapter(context);
            if (a == Adapter.FILTER) {
                return ConditionOutcome.match("servlet-qos.adapter = filter");
            }
            ClassLoader loader = context.getClassLoader();
            if (a == Adapter.AUTO && !valvePossible(loader) && !handlerPossible(loader)) {
                return ConditionOutcome.match("servlet-qos.adapter = auto, neither Tomcat nor Jetty");
            }
            return ConditionOutcome.noMatch("servlet-qos.adapter = " + a);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {TOMCAT, TOMCAT_CUSTOMIZER, VALVE})
    @Conditional(OnValve.class)
    static class Valve {

        @Bean
        @ConditionalOnMissingBean(name = "qosTomcatContextCustomizer")
        org.springframework.boot.tomcat.TomcatContextCustomizer qosTomcatContextCustomizer(QosRuntime runtime,
                                                                                           QosProperties p) {
            return new ValveCustomizer(runtime, p.getRequestOnlyFilters() == RequestOnlyFilters.WARN);
        }

        @Bean
        @ConditionalOnMissingBean(name = "qosResumedRequestFilter")
        FilterRegistrationBean<ResumedRequestFilter> qosResumedRequestFilter() {
            return resumedRequestFilter();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {JETTY, JETTY_CUSTOMIZER, HANDLER})
    @Conditional(OnHandler.class)
    static class Handler {

        @Bean
        @ConditionalOnMissingBean(name = "qosJettyServerCustomizer")
        org.springframework.boot.jetty.JettyServerCustomizer qosJettyServerCustomizer(QosRuntime runtime) {
            return new HandlerCustomizer(runtime);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @Conditional(OnFilter.class)
    static class Filter {

        /**
         * The filter, first in the chain, for every dispatcher type (a request that waited comes back as an ASYNC
         * dispatch), asynchronous (a waiting request holds no thread).
         */
        @Bean
        @ConditionalOnMissingBean(name = "qosFilterRegistration")
        FilterRegistrationBean<QosFilter> qosFilterRegistration(QosRuntime runtime, QosProperties p) {
            FilterRegistrationBean<QosFilter> r = new FilterRegistrationBean<>(new QosFilter(runtime));
            r.setName("servletQosFilter");
            r.setDispatcherTypes(EnumSet.allOf(DispatcherType.class));
            r.setAsyncSupported(true);
            r.setOrder(Ordered.HIGHEST_PRECEDENCE);
            r.addInitParameter("allowRequestOnlyFilters",
                    String.valueOf(p.getRequestOnlyFilters() == RequestOnlyFilters.WARN));
            return r;
        }

        @Bean
        @ConditionalOnMissingBean(name = "qosResumedRequestFilter")
        FilterRegistrationBean<ResumedRequestFilter> qosResumedRequestFilter() {
            return resumedRequestFilter();
        }
    }

    /** {@link ResumedRequestFilter} for every dispatcher type, right after the servlet filter (if any). */
    static FilterRegistrationBean<ResumedRequestFilter> resumedRequestFilter() {
        FilterRegistrationBean<ResumedRequestFilter> r = new FilterRegistrationBean<>(new ResumedRequestFilter());
        r.setName("servletQosResumedRequestFilter");
        r.setDispatcherTypes(EnumSet.allOf(DispatcherType.class));
        r.setAsyncSupported(true);
        r.setOrder(Ordered.HIGHEST_PRECEDENCE + 1);
        return r;
    }
}

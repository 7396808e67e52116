package dev.servletqos.sample.boot;

import dev.servletqos.QosEngine;
import dev.servletqos.TierCookies;
import dev.servletqos.policy.QosPolicy;
import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.Shop;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.servlet.ServletContextInitializer;
import org.springframework.context.annotation.Bean;

/**
 * The sample shop (docs/sample.md) as a Spring Boot application: the shop's pages and its {@code /login}, which
 * issues the signed tier cookie of the class asked for, registered on Boot's embedded Tomcat; servlet-qos from the
 * starter with the bundled sample policy ({@code application.properties}); Actuator's health, metrics and
 * {@code qos} endpoints on. Run it with {@code ./mvnw -pl samples-boot -am spring-boot:run}, or from an IDE.
 */
@SpringBootApplication
public class BootShopApplication {

    public static void main(String[] args) {
        SpringApplication.run(BootShopApplication.class, args);
    }

    /**
     * The shop's servlets and its status page. Its {@code /login} signs tier cookies with the engine's keys (the
     * starter's engine bean), or, with servlet-qos off, with the bundled policy's, as the shop does on its own.
     */
    @Bean
    ServletContextInitializer shop(ObjectProvider<QosEngine> engine) {
        return context -> {
            QosEngine e = engine.getIfAvailable();
            TierCookies tierCookies = e != null ? e.tierCookies() : Shop.tierCookies(bundledPolicy());
            Shop.register(context, Costs.scaled(Double.parseDouble(System.getProperty("shop.scale", "1"))),
                    tierCookies);
            Shop.registerStatusPage(context);
        };
    }

    private static QosPolicy bundledPolicy() {
        return SamplePolicy.load(null);
    }
}

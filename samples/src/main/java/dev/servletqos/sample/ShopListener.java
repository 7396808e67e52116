package dev.servletqos.sample;

import dev.servletqos.policy.QosPolicy;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;
import jakarta.servlet.annotation.WebListener;
import java.nio.file.Path;

/**
 * Registers the shop when it is deployed as a WAR ({@code target/qos-sample.war}). Settings, as context
 * init parameters or system properties: {@code qos.policy} (the policy file the valve reads, for the tier
 * cookie's name and secret; default the bundled policy) and {@code shop.scale} (the cost scale, default 1).
 * The embedded runners register the shop themselves and do not scan for this listener.
 */
@WebListener
public final class ShopListener implements ServletContextListener {

    @Override
    public void contextInitialized(ServletContextEvent event) {
        ServletContext context = event.getServletContext();
        String policyFile = setting(context, "qos.policy");
        String scale = setting(context, "shop.scale");
        QosPolicy policy = SamplePolicy.load(policyFile == null ? null : Path.of(policyFile));
        Costs costs;
        try {
            costs = Costs.scaled(scale == null ? 1 : Double.parseDouble(scale));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("shop.scale = " + scale + ": " + e.getMessage(), e);
        }
        Shop.register(context, costs, Shop.tierCookies(policy));
        Shop.registerStatusPage(context);
    }

    private static String setting(ServletContext context, String name) {
        String v = context.getInitParameter(name);
        return v != null ? v : System.getProperty(name);
    }
}

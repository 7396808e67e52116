package dev.servletqos.sample.boot;

import dev.servletqos.QosEngine;
import dev.servletqos.sample.Backend;
import dev.servletqos.sample.Shop;
import dev.servletqos.sample.run.ShopConfig;
import dev.servletqos.sample.run.ShopServer;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The Boot sample as the demo's shop server: {@link BootShopApplication} on Boot's embedded Tomcat, servlet-qos on
 * (the starter, the valve) or off ({@code servlet-qos.enabled=false}), with the threads the shop's own Tomcat
 * runner gives (max-executing, plus {@value ShopConfig#QOS_THREAD_HEADROOM} with QoS on; accept count 100).
 */
final class BootShop implements ShopServer {

    private final ConfigurableApplicationContext context;
    private final ShopConfig config;

    private BootShop(ShopConfig config) {
        this.config = config;
        List<String> args = new ArrayList<>();
        args.add("--server.port=" + config.port());
        args.add("--server.tomcat.threads.max=" + config.workerThreads());
        args.add("--server.tomcat.threads.min-spare=" + config.workerThreads());
        args.add("--server.tomcat.accept-count=100");
        args.add("--servlet-qos.enabled=" + config.qos());
        if (config.policyFile() != null) {
            args.add("--servlet-qos.policy=file:" + config.policyFile().toAbsolutePath());
        }
        args.add("--spring.main.banner-mode=off");
        args.add("--logging.level.root=WARN");
        SpringApplication app = new SpringApplication(BootShopApplication.class);
        app.setWebApplicationType(WebApplicationType.SERVLET);
        context = app.run(args.toArray(String[]::new));
    }

    /** Starts the sample; the container named must be {@code tomcat} (the sample's server). */
    static ShopServer start(String container, ShopConfig config) {
        if (!container.equals("tomcat")) {
            throw new IllegalArgumentException("the Boot sample runs on Tomcat, not " + container);
        }
        return new BootShop(config);
    }

    private ServletWebServerApplicationContext web() {
        return (ServletWebServerApplicationContext) context;
    }

    @Override
    public int port() {
        return web().getWebServer().getPort();
    }

    @Override
    public QosEngine engine() {
        return context.getBeanProvider(QosEngine.class).getIfAvailable();
    }

    @Override
    public Backend backend() {
        return Shop.backend(web().getServletContext());
    }

    @Override
    public long pagesServed() {
        return Shop.pagesServed(web().getServletContext());
    }

    @Override
    public String describe() {
        return "Spring Boot, Tomcat, QoS " + (config.qos() ? "on (the starter's valve)" : "off") + ", maxThreads "
                + config.workerThreads() + ", acceptCount 100";
    }

    @Override
    public void close() {
        context.close();
    }
}

package dev.servletqos.sample.run;

import java.io.IOException;

/** Starts the shop on the container named on the command line. */
public final class Containers {

    private Containers() {
    }

    /**
     * Starts the shop on {@code tomcat} or {@code jetty}.
     *
     * @throws IOException if the server cannot start (port in use, bad policy: the message says which)
     */
    public static ShopServer start(String container, ShopConfig config) throws IOException {
        switch (container) {
            case "tomcat":
                try {
                    return TomcatShop.start(config);
                } catch (org.apache.catalina.LifecycleException e) {
                    Throwable cause = e;
                    while (cause.getCause() != null && cause.getCause() != cause) {
                        cause = cause.getCause();
                    }
                    throw new IOException("Tomcat did not start: " + cause.getMessage(), e);
                }
            case "jetty":
                return JettyShop.start(config);
            default:
                throw new IllegalArgumentException("--container " + container + ": must be tomcat or jetty");
        }
    }
}

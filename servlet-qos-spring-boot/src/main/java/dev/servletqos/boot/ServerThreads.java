package dev.servletqos.boot;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/** The request threads of the server Boot will run, which the engine fits its max-executing below. */
final class ServerThreads {

    private static final String TOMCAT_FACTORY = "org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory";
    private static final String JETTY_FACTORY = "org.springframework.boot.jetty.servlet.JettyServletWebServerFactory";

    private ServerThreads() {
    }

    /**
     * {@code server.tomcat.threads.max} or {@code server.jetty.threads.max} (Boot's default 200 each) for the server
     * factory defined in the context, or 0 (unknown) for another.
     */
    static int of(Environment env, ListableBeanFactory beans) {
        if (defines(beans, TOMCAT_FACTORY)) {
            return env.getProperty("server.tomcat.threads.max", Integer.class, 200);
        }
        if (defines(beans, JETTY_FACTORY)) {
            return env.getProperty("server.jetty.threads.max", Integer.class, 200);
        }
        return 0;
    }

    private static boolean defines(ListableBeanFactory beans, String factory) {
        ClassLoader loader = ServerThreads.class.getClassLoader();
        if (!ClassUtils.isPresent(factory, loader)) {
            return false;
        }
        return beans.getBeanNamesForType(ClassUtils.resolveClassName(factory, loader), false, false).length > 0;
    }
}

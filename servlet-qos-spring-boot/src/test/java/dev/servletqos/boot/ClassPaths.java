package dev.servletqos.boot;

import org.springframework.util.ClassUtils;

/**
 * Which of the module's two Surefire executions a test runs in: the default one has Tomcat and no Boot Jetty
 * support, the {@code jetty} one Jetty and no Tomcat. The executions choose their tests by name; these conditions
 * ({@code @EnabledIf}) also skip a test in the other execution when {@code -Dtest} overrides the names.
 */
public final class ClassPaths {

    private ClassPaths() {
    }

    /** Tomcat with Boot's support for it. */
    public static boolean tomcat() {
        return present("org.apache.catalina.startup.Tomcat") && present("org.springframework.boot.tomcat.TomcatWebServer");
    }

    /** Jetty with Boot's support for it, and no Tomcat. */
    public static boolean jettyOnly() {
        return present("org.springframework.boot.jetty.JettyWebServer") && !present("org.apache.catalina.startup.Tomcat");
    }

    private static boolean present(String name) {
        return ClassUtils.isPresent(name, ClassPaths.class.getClassLoader());
    }
}

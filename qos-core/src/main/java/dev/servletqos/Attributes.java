package dev.servletqos;

/**
 * The names the engine defines for the attributes adapters set, written once here: on the servlet context
 * (or Jetty context) and on each request. The values are stable strings, part of the public API.
 */
public final class Attributes {

    /** Context attribute holding the {@link QosEngine} of the application (tier cookies, management). */
    public static final String ENGINE = "dev.servletqos.QosEngine";

    /** Request attribute holding the service class name a request was classified into. */
    public static final String CLASS = "dev.servletqos.class";

    /**
     * Request attribute holding the content level the engine decided for a request (an {@code Integer}, 1 =
     * lowest quality served, higher is richer); absent means full quality.
     */
    public static final String LEVEL = "dev.servletqos.level";

    private Attributes() {
    }
}

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
     * Request attribute holding the content level the engine decided for a request ({@link Ticket#level()}, an
     * {@code Integer}): 1 = the lightest content served, up to the class's {@code class.<name>.levels} = full
     * content (1 for a class with one level). The adapters set it on every request that runs; absent (no
     * servlet-qos in front) means full quality.
     */
    public static final String LEVEL = "dev.servletqos.level";

    /**
     * Request attribute holding the number of content levels of the request's class ({@code class.<name>.levels},
     * an {@code Integer}): the level that means full content. Set with {@link #LEVEL}.
     */
    public static final String LEVELS = "dev.servletqos.levels";

    private Attributes() {
    }

    /**
     * The content level the values of {@link #LEVEL} and {@link #LEVELS} stand for: at least 1; {@code levels}
     * (full content) when the level is not a number. The adapters' {@code ContentLevels} read it.
     */
    public static int level(Object level, Object levels) {
        return level instanceof Number n ? Math.max(1, n.intValue()) : levels(levels);
    }

    /** The number of content levels the value of {@link #LEVELS} stands for: at least 1; 1 when not a number. */
    public static int levels(Object levels) {
        return levels instanceof Number n ? Math.max(1, n.intValue()) : 1;
    }
}

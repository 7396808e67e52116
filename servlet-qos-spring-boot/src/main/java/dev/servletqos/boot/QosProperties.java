package dev.servletqos.boot;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The starter's own settings under {@code servlet-qos.*}. Every other key under {@code servlet-qos.} is a policy key
 * of docs/configuration.md ({@code servlet-qos.classes}, {@code servlet-qos.class.premium.delay-target}, ...),
 * handed as it is to the policy parser ({@link PolicySource}), so that a bad value fails with the parser's message
 * naming the key; the configuration metadata of those keys is generated from the key table.
 *
 * <p>Bound once at startup; not thread-safe while binding, read-only after.
 */
@ConfigurationProperties("servlet-qos")
public class QosProperties {

    /** Which adapter puts the engine in front of the application. */
    public enum Adapter {
        /** The valve on Tomcat, the handler on Jetty, else the servlet filter. */
        AUTO,
        /** Tomcat's valve, in the Context's pipeline: before every filter, a waiting request holds no thread. */
        VALVE,
        /** Jetty's handler, in front of the web application: a waiting request holds no thread. */
        HANDLER,
        /** The portable servlet filter, first in the chain, on any servlet container. */
        FILTER
    }

    /** What to do at startup about filters mapped without the ASYNC dispatcher type on Tomcat. */
    public enum RequestOnlyFilters {
        /** Log a warning naming them and the fix; start anyway. */
        WARN,
        /** Fail startup, naming them and the fix. */
        FAIL
    }

    /** Whether the starter configures servlet-qos at all. */
    private boolean enabled = true;

    /** Which adapter puts the engine in front of the application. */
    private Adapter adapter = Adapter.AUTO;

    /**
     * A policy file to read instead of (or under) the servlet-qos.* policy keys: a resource location such as
     * classpath:qos.properties or file:/etc/qos.properties. Policy keys given as properties override the file's.
     */
    private String policy;

    /**
     * Whether Actuator's paths (the management base path, health, the Prometheus scrape, the qos endpoint) bypass
     * admission: answered under any load, before any queue. A separate management port is never under QoS.
     */
    private boolean exemptActuator = true;

    /** What to do about filters that would skip a request that waited (Tomcat resumes it as an ASYNC dispatch). */
    private RequestOnlyFilters requestOnlyFilters = RequestOnlyFilters.WARN;

    private final Jmx jmx = new Jmx();

    public boolean isEnabled() {
        return enabled;
    }

    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    public Adapter getAdapter() {
        return adapter;
    }

    public void setAdapter(Adapter adapter) {
        this.adapter = adapter;
    }

    public String getPolicy() {
        return policy;
    }

    public void setPolicy(String policy) {
        this.policy = policy;
    }

    public boolean isExemptActuator() {
        return exemptActuator;
    }

    public void setExemptActuator(boolean exemptActuator) {
        this.exemptActuator = exemptActuator;
    }

    public RequestOnlyFilters getRequestOnlyFilters() {
        return requestOnlyFilters;
    }

    public void setRequestOnlyFilters(RequestOnlyFilters requestOnlyFilters) {
        this.requestOnlyFilters = requestOnlyFilters;
    }

    public Jmx getJmx() {
        return jmx;
    }

    /** The engine's JMX beans, on the platform MBean server (never Tomcat's registry, which Boot turns off). */
    public static class Jmx {

        /** Whether the engine's JMX beans are registered on the platform MBean server. */
        private boolean enabled = true;

        /** The ObjectName domain of the engine's JMX beans. */
        private String domain = "dev.servletqos";

        public boolean isEnabled() {
            return enabled;
        }

        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        public String getDomain() {
            return domain;
        }

        public void setDomain(String domain) {
            this.domain = domain;
        }
    }
}

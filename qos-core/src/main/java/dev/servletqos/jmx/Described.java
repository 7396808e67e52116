package dev.servletqos.jmx;

import java.util.Map;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanOperationInfo;
import javax.management.StandardMBean;

/**
 * An MXBean whose bean, attributes and operations carry descriptions (one map, by attribute or operation name),
 * which jconsole and VisualVM show as tooltips.
 */
final class Described<T> extends StandardMBean {

    private final String description;
    private final Map<String, String> attributes;

    Described(T bean, Class<T> type, String description, Map<String, String> attributes) {
        super(bean, type, true);
        this.description = description;
        this.attributes = Map.copyOf(attributes);
    }

    @Override
    protected String getDescription(MBeanInfo info) {
        return description;
    }

    @Override
    protected String getDescription(MBeanAttributeInfo info) {
        return attributes.getOrDefault(info.getName(), info.getDescription());
    }

    @Override
    protected String getDescription(MBeanOperationInfo info) {
        return attributes.getOrDefault(info.getName(), info.getDescription());
    }
}

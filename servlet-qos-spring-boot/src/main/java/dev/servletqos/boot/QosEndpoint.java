package dev.servletqos.boot;

import dev.servletqos.jmx.QosMBeans;
import dev.servletqos.runtime.QosRuntime;
import dev.servletqos.status.AllowedClients;
import dev.servletqos.status.StatusPage;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.management.Attribute;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanParameterInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeMBeanException;
import javax.management.RuntimeOperationsException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * Actuator's {@code qos} endpoint. Read ({@code GET /actuator/qos}): the status page's JSON (schema
 * {@value StatusPage#SCHEMA}: the engine, the controller, every class). Write ({@code POST /actuator/qos/{target}},
 * target {@code engine}, {@code controller} or a class name, a JSON body {@code {"attribute": "Budget", "value":
 * "4"}} or {@code {"operation": "reloadPolicy", "arguments": [..]}}): exactly what the engine's JMX beans offer,
 * done through those beans, so that every change goes through the engine's settings seam and a refusal carries the
 * same message (answered 400).
 *
 * <p>Thread-safe.
 */
@Endpoint(id = "qos")
public class QosEndpoint {

    private final QosRuntime runtime;
    private final MBeanServer server;
    private final String domain;
    private final StatusPage page = new StatusPage(AllowedClients.loopback());

    /**
     * @param server where the runtime registers its beans (null: JMX off, no write operations)
     * @param domain their ObjectName domain
     */
    public QosEndpoint(QosRuntime runtime, MBeanServer server, String domain) {
        this.runtime = runtime;
        this.server = server;
        this.domain = domain;
    }

    /** The status page's JSON: engine, controller, per class (docs/operations.md). */
    @ReadOperation(produces = "application/json")
    public String status() {
        return page.json(runtime.engine(), 0, System.currentTimeMillis());
    }

    /**
     * Sets an attribute of a bean or invokes one of its operations.
     *
     * @param target    {@code engine}, {@code controller} or a service class
     * @param attribute a writable attribute of that bean ({@code Budget}, {@code MaxExecuting}, {@code Mode}, ...)
     * @param value     its new value, as text
     * @param operation an operation of that bean ({@code reloadPolicy}, {@code resetStatistics}, ...)
     * @param arguments the operation's arguments, as text, in order
     */
    @WriteOperation
    public WebEndpointResponse<Map<String, Object>> write(@Selector String target, @Nullable String attribute,
                                                          @Nullable String value, @Nullable String operation,
                                                          @Nullable List<String> arguments) {
        QosMBeans beans = runtime.mbeans();
        if (server == null || beans == null) {
            return answer(503, "error", "the engine's JMX beans are off (servlet-qos.jmx.enabled) or not registered:"
                    + " nothing to write through");
        }
        if ((attribute == null) == (operation == null)) {
            return answer(400, "error", "give either an attribute and a value, or an operation");
        }
        ObjectName name = switch (target) {
            case "engine" -> QosMBeans.engineName(domain, beans.engineId());
            case "controller" -> QosMBeans.controllerName(domain, beans.engineId());
            default -> QosMBeans.className(domain, beans.engineId(), target);
        };
        try {
            if (!server.isRegistered(name)) {
                return answer(404, "error", "no bean " + target + ": engine, controller or one of the classes "
                        + List.of(runtime.engine().policy().classes().stream().map(c -> c.name()).toArray()));
            }
            if (attribute != null) {
                MBeanAttributeInfo info = attributeInfo(name, attribute);
                if (info == null || !info.isWritable()) {
                    return answer(400, "error", attribute + " is not a writable attribute of " + target);
                }
                server.setAttribute(name, new Attribute(attribute, convert(attribute, value, info.getType())));
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("target", target);
                body.put("attribute", attribute);
                body.put("value", String.valueOf(server.getAttribute(name, attribute)));
                return new WebEndpointResponse<>(body, 200);
            }
            List<String> args = arguments == null ? List.of() : arguments;
            MBeanOperationInfo op = operationInfo(name, operation, args.size());
            if (op == null) {
                return answer(400, "error", operation + " with " + args.size() + " arguments is not an operation of "
                        + target);
            }
            MBeanParameterInfo[] params = op.getSignature();
            Object[] values = new Object[params.length];
            String[] types = new String[params.length];
            for (int i = 0; i < params.length; i++) {
                values[i] = convert(params[i].getName(), args.get(i), params[i].getType());
                types[i] = params[i].getType();
            }
            Object result = server.invoke(name, operation, values, types);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("target", target);
            body.put("operation", operation);
            body.put("result", result == null ? null : String.valueOf(result));
            return new WebEndpointResponse<>(body, 200);
        } catch (RuntimeMBeanException | RuntimeOperationsException e) {
            return answer(400, "error", String.valueOf(e.getCause() != null ? e.getCause().getMessage()
                    : e.getMessage()));
        } catch (IllegalArgumentException e) {
            return answer(400, "error", e.getMessage());
        } catch (JMException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return answer(400, "error", String.valueOf(cause.getMessage()));
        }
    }

    private MBeanAttributeInfo attributeInfo(ObjectName name, String attribute) throws JMException {
        for (MBeanAttributeInfo a : server.getMBeanInfo(name).getAttributes()) {
            if (a.getName().equals(attribute)) {
                return a;
            }
        }
        return null;
    }

    private MBeanOperationInfo operationInfo(ObjectName name, String operation, int arguments) throws JMException {
        for (MBeanOperationInfo o : server.getMBeanInfo(name).getOperations()) {
            if (o.getName().equals(operation) && o.getSignature().length == arguments) {
                return o;
            }
        }
        return null;
    }

    /** The text as the JMX type wants it; a malformed number is refused naming the attribute and the value. */
    private static Object convert(String what, String text, String type) {
        if (text == null) {
            throw new IllegalArgumentException(what + ": a value is required");
        }
        String t = text.trim();
        try {
            return switch (type) {
                case "int", "java.lang.Integer" -> Integer.valueOf(t);
                case "long", "java.lang.Long" -> Long.valueOf(t);
                case "double", "java.lang.Double" -> Double.valueOf(t);
                case "boolean", "java.lang.Boolean" -> {
                    if (!t.equals("true") && !t.equals("false")) {
                        throw new IllegalArgumentException(what + " = " + text + ": must be true or false");
                    }
                    yield Boolean.valueOf(t);
                }
                default -> text;
            };
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " = " + text + ": not a number (" + type + ")");
        }
    }

    private static WebEndpointResponse<Map<String, Object>> answer(int status, String key, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put(key, message);
        return new WebEndpointResponse<>(body, status);
    }
}

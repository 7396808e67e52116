/**
 * The engine's JMX beans, written once for every adapter: {@link dev.servletqos.jmx.QosMBeans#register} puts
 * one {@link dev.servletqos.jmx.QosEngineMXBean} (the engine's counters, per class), one
 * {@link dev.servletqos.jmx.QosServiceClassMXBean} per service class (its live settings, writable) and one
 * {@link dev.servletqos.jmx.QosControllerMXBean} (the feedback controller's settings, writable, and what it did)
 * on an {@link javax.management.MBeanServer}; the adapters only choose the server, the domain and the engine's
 * id, and unregister the beans when they stop. Every write goes through
 * {@link dev.servletqos.QosEngine#update}, the engine's settings seam, as an operator's change; a bad value is
 * refused with an {@link java.lang.IllegalArgumentException} naming the attribute and the value, and changes
 * nothing. Operations: the engine bean's {@code reloadPolicy} ({@link dev.servletqos.QosEngine#reloadPolicy}; the class
 * beans follow the new classes) and {@code resetStatistics} (a baseline the beans subtract, see
 * {@code StatisticsBaseline}), the controller bean's start and stop of a system identification. The beans are
 * MXBeans: a JMX client (jconsole, VisualVM, a script) needs none of these classes.
 * ObjectNames and attributes: {@code docs/operations.md}.
 */
package dev.servletqos.jmx;

/**
 * The read-only status page, written once for every adapter: {@link dev.servletqos.status.StatusPage} answers a
 * request with HTML (numbers and live charts, nothing loaded from elsewhere) or JSON, from
 * {@link dev.servletqos.QosEngine#snapshot()} and {@link dev.servletqos.QosEngine#controlStatus()};
 * {@link dev.servletqos.status.StatusHistory} keeps the last minutes, fed by the page's own reads;
 * {@link dev.servletqos.status.AllowedClients} says who may read it (loopback by default). No servlet or
 * container type: the servlet ({@code dev.servletqos.servlet.QosStatusServlet}) and the Jetty handler
 * ({@code dev.servletqos.jetty.QosStatusHandler}) map it. Mapping, the loopback restriction and the JSON schema:
 * {@code docs/operations.md}.
 */
package dev.servletqos.status;

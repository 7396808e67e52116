<%@ page contentType="text/plain; charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
    import="java.lang.management.ManagementFactory, javax.management.MBeanServer, javax.management.ObjectName" %>
<%--
  Lists the requests the connector holds right now, one line each:
    <stage> <uri>?<query>
  from Tomcat's RequestProcessor MBeans (the data of the manager app's status page). Stage 3 (SERVICE)
  is a request running on a container thread; a request with a URI at stage 7 (ENDED) has gone async and
  its thread has left: for the QosValve that means it is parked in a queue. Deployed without the valve,
  so it answers while the app under test is saturated.
--%>
<%
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    for (ObjectName name : server.queryNames(new ObjectName("Catalina:type=RequestProcessor,*"), null)) {
        Object uri;
        Object query;
        Object stage;
        try {
            uri = server.getAttribute(name, "currentUri");
            query = server.getAttribute(name, "currentQueryString");
            stage = server.getAttribute(name, "stage");
        } catch (javax.management.InstanceNotFoundException gone) {
            continue;
        }
        if (uri != null && !uri.toString().isEmpty()) {
            out.println(stage + " " + uri + (query == null || query.toString().isEmpty() ? "" : "?" + query));
        }
    }
%>

<%@ page contentType="text/plain; charset=UTF-8" session="false" trimDirectiveWhitespaces="true" %>
<%--
  A fast page: "hello <service class>", the class being the request attribute the QosValve sets
  (dev.servletqos.servlet.Responses.CLASS_ATTRIBUTE), or "-" when no valve classified the request.
--%>
<%
    Object serviceClass = request.getAttribute("dev.servletqos.class");
    out.print("hello " + (serviceClass == null ? "-" : serviceClass));
%>

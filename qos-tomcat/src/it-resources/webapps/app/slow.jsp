<%@ page contentType="text/plain; charset=UTF-8" session="false" trimDirectiveWhitespaces="true" %>
<%--
  Sleeps ?ms=N milliseconds (0..60000), then answers "ok <X-Tier header or ->".
  session="false" here and in every fixture page: the valve keys sessions on cookies, and the fixture
  must not create any.
--%>
<%
    long ms = Math.max(0L, Math.min(60_000L, Long.parseLong(request.getParameter("ms"))));
    Thread.sleep(ms);
    String tier = request.getHeader("X-Tier");
    out.print("ok " + (tier == null ? "-" : tier));
%>

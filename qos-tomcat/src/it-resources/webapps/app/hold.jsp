<%@ page contentType="text/plain; charset=UTF-8" session="false" trimDirectiveWhitespaces="true"
    import="java.nio.file.Files, java.nio.file.Path, java.nio.file.Paths" %>
<%--
  A request that runs until the test lets it go, so that tests decide when a permit is freed instead of
  guessing it from sleep lengths. On entry it creates $CATALINA_BASE/temp/hold/<id>.entered; it then
  waits until <id>.release exists there (the test creates it), at most 60 s, and answers
  "ok <X-Tier header or -> <id>". A second request with the same id is refused (409).
--%>
<%
    String id = request.getParameter("id");
    if (id == null || !id.matches("[A-Za-z0-9_-]{1,40}")) {
        response.sendError(400, "id must match [A-Za-z0-9_-]{1,40}");
        return;
    }
    Path dir = Paths.get(System.getProperty("catalina.base"), "temp", "hold");
    Files.createDirectories(dir);
    try {
        Files.createFile(dir.resolve(id + ".entered"));
    } catch (java.nio.file.FileAlreadyExistsException e) {
        response.sendError(409, "id " + id + " was used before");
        return;
    }
    Path release = dir.resolve(id + ".release");
    long deadline = System.nanoTime() + 60_000_000_000L;
    while (!Files.exists(release)) {
        if (System.nanoTime() - deadline > 0) {
            response.sendError(504, "nobody released " + id);
            return;
        }
        Thread.sleep(5);
    }
    String tier = request.getHeader("X-Tier");
    out.print("ok " + (tier == null ? "-" : tier) + " " + id);
%>

package dev.servletqos.testkit;

import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The extra endpoints {@link FaultInjectionSoakSuite} drives, as servlets to mount beside {@link TestServlets} (each
 * at its path, {@code asyncSupported = true}, in the same context at the root path):
 * <dl>
 *   <dt>{@value #STREAM} {@code ?bytes=N}</dt>
 *   <dd>Records the class like {@link TestApp#WORK}, then writes N bytes in 8 KB pieces, flushing each, so that a
 *       client that stops reading holds the writing thread and one that closes makes the write fail.</dd>
 *   <dt>{@value #ASYNC_TIMEOUT} {@code ?ms=N}</dt>
 *   <dd>Goes asynchronous with a container timeout of N ms and never completes: the container's timeout ends it
 *       (an error dispatch, 500).</dd>
 *   <dt>{@value #SEND_ERROR}</dt>
 *   <dd>{@code sendError(409)}.</dd>
 *   <dt>{@value #FORWARD}, {@value #INCLUDE}</dt>
 *   <dd>Forward to, or include, {@link TestApp#WORK} ({@code ?ms=} passed on).</dd>
 * </dl>
 */
public final class SoakServlets {

    public static final String STREAM = "/stream";
    public static final String ASYNC_TIMEOUT = "/async-timeout";
    public static final String SEND_ERROR = "/send-error";
    public static final String FORWARD = "/forward";
    public static final String INCLUDE = "/include";
    /** The status {@value #SEND_ERROR} answers. */
    public static final int SEND_ERROR_STATUS = 409;

    private SoakServlets() {
    }

    /** The servlets, by mapping path. */
    public static Map<String, HttpServlet> forApp(TestApp app) {
        Map<String, HttpServlet> m = new LinkedHashMap<>();
        m.put(STREAM, new Stream(app));
        m.put(ASYNC_TIMEOUT, new AsyncTimeout());
        m.put(SEND_ERROR, new SendError());
        m.put(FORWARD, new Dispatch(false));
        m.put(INCLUDE, new Dispatch(true));
        return m;
    }

    private static final class Stream extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient TestApp app;

        Stream(TestApp app) {
            this.app = app;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            app.recordStart(req.getAttribute(TestApp.CLASS_ATTRIBUTE));
            long bytes = TestApp.millis(req.getParameter("bytes"));
            byte[] piece = new byte[8192];
            Arrays.fill(piece, (byte) 'x');
            resp.setContentType("application/octet-stream");
            ServletOutputStream out = resp.getOutputStream();
            for (long left = bytes; left > 0; left -= piece.length) {
                out.write(piece, 0, (int) Math.min(left, piece.length));
                out.flush();
            }
        }
    }

    private static final class AsyncTimeout extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            req.startAsync().setTimeout(Math.max(1, TestApp.millis(req.getParameter("ms"))));
        }
    }

    private static final class SendError extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.sendError(SEND_ERROR_STATUS, "conflict (on purpose)");
        }
    }

    private static final class Dispatch extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final boolean include;

        Dispatch(boolean include) {
            this.include = include;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException, ServletException {
            String ms = req.getParameter("ms");
            var target = req.getRequestDispatcher(TestApp.WORK + (ms == null ? "" : "?ms=" + ms));
            if (include) {
                resp.setContentType("text/plain");
                target.include(req, resp);
            } else {
                target.forward(req, resp);
            }
        }
    }
}

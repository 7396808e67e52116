package dev.servletqos.testkit;

import dev.servletqos.Attributes;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.ServletRequestAttributeEvent;
import jakarta.servlet.ServletRequestAttributeListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The {@link TestApp} as servlets, for the adapters that run in a servlet container (Tomcat valve, the filter on
 * Tomcat or Jetty ee11). Mount each servlet of {@link #forApp(TestApp)} at its path with
 * {@code asyncSupported = true}, in a context at the root path.
 */
public final class TestServlets {

    private TestServlets() {
    }

    /** The servlets of the application, by mapping path ({@link TestApp#WORK}, ...). */
    public static Map<String, HttpServlet> forApp(TestApp app) {
        Map<String, HttpServlet> m = new LinkedHashMap<>();
        m.put(TestApp.WORK, new Work(app));
        m.put(TestApp.FAIL, new Fail());
        m.put(TestApp.ASYNC, new Async(app));
        m.put(TestApp.ECHO, new Echo());
        m.put(TestApp.LEVEL, new Level());
        m.put(TestApp.HEALTH, new Health());
        m.put(TestApp.EVENTS, new Events(app));
        m.put(TestApp.IMAGES + "/*", new Files());
        m.put(TestApp.DEGRADED + "/*", new Files());
        return m;
    }

    /**
     * The {@link TestApp attribute trap} for servlet containers: register it as a listener of the context (a
     * public class with a public constructor, so that a container can also instantiate it by name).
     */
    public static final class AttributeTrap implements ServletRequestAttributeListener {

        @Override
        public void attributeAdded(ServletRequestAttributeEvent event) {
            trap(event);
        }

        @Override
        public void attributeReplaced(ServletRequestAttributeEvent event) {
            trap(event);
        }

        private static void trap(ServletRequestAttributeEvent event) {
            if (event.getServletRequest() instanceof HttpServletRequest r
                    && event.getName().equals(r.getHeader(TestApp.TRAP_HEADER))) {
                throw new IllegalStateException("an attribute listener failed on " + event.getName() + " (on purpose)");
            }
        }
    }

    private static final class Work extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient TestApp app;

        Work(TestApp app) {
            this.app = app;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            Object serviceClass = req.getAttribute(TestApp.CLASS_ATTRIBUTE);
            app.recordStart(serviceClass);
            TestApp.work(TestApp.millis(req.getParameter("ms")));
            resp.setContentType("text/plain");
            resp.getWriter().print("ok " + serviceClass);
        }
    }

    private static final class Fail extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            throw new IllegalStateException("the application failed (on purpose)");
        }
    }

    private static final class Async extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient TestApp app;

        Async(TestApp app) {
            this.app = app;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
            app.recordStart(req.getAttribute(TestApp.CLASS_ATTRIBUTE));
            long ms = TestApp.millis(req.getParameter("ms"));
            AsyncContext async = req.startAsync();
            app.later(ms, () -> {
                try {
                    async.getResponse().setContentType("text/plain");
                    async.getResponse().getWriter().print("async done");
                } catch (IOException | RuntimeException ignored) {
                    // the client is gone; complete anyway
                }
                async.complete();
            });
        }
    }

    private static final class Health extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setContentType("text/plain");
            resp.getWriter().print("healthy " + req.getAttribute(TestApp.CLASS_ATTRIBUTE));
        }
    }

    /** A server-sent events stream, as an application writes one with {@code AsyncContext}. */
    private static final class Events extends HttpServlet {
        private static final long serialVersionUID = 1L;
        private final transient TestApp app;

        Events(TestApp app) {
            this.app = app;
        }

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            long ms = TestApp.millis(req.getParameter("ms"));
            AsyncContext async = req.startAsync();
            async.setTimeout(ms + 30_000);
            resp.setContentType("text/event-stream");
            resp.setCharacterEncoding("UTF-8");
            resp.getWriter().print("data: open\n\n");
            resp.flushBuffer();
            app.later(ms, () -> {
                try {
                    async.getResponse().getWriter().print("data: bye\n\n");
                } catch (IOException | RuntimeException ignored) {
                    // the client is gone; complete anyway
                }
                async.complete();
            });
        }
    }

    private static final class Level extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            TestApp.work(TestApp.millis(req.getParameter("ms")));
            resp.setContentType("text/plain");
            Object levels = req.getAttribute(Attributes.LEVELS);
            resp.getWriter().print("level " + Attributes.level(req.getAttribute(Attributes.LEVEL), levels) + " of "
                    + Attributes.levels(levels));
        }
    }

    /** Static content: names the path it was served from (under a forward, the forward's path). */
    private static final class Files extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            resp.setContentType("text/plain;charset=utf-8");
            String info = req.getPathInfo();
            resp.getWriter().print("file " + req.getServletPath() + (info == null ? "" : info));
        }
    }

    private static final class Echo extends HttpServlet {
        private static final long serialVersionUID = 1L;

        @Override
        protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws IOException {
            byte[] body;
            try (InputStream in = req.getInputStream()) {
                body = in.readAllBytes();
            }
            resp.setContentType("text/plain");
            resp.getOutputStream().write(body);
        }
    }
}

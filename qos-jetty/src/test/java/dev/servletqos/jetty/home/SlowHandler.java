package dev.servletqos.jetty.home;

import dev.servletqos.jetty.QosHandler;
import java.util.concurrent.atomic.AtomicInteger;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;

/**
 * The application of the jetty-home integration test, deployed from Jetty XML: {@code ?ms=N} works N ms on
 * its thread and answers {@code ok <class> #<n>}, n counting the requests in the order they started.
 */
public class SlowHandler extends Handler.Abstract {

    private final AtomicInteger started = new AtomicInteger();

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        int n = started.incrementAndGet();
        Fields.Field ms = Request.extractQueryParameters(request).get("ms");
        if (ms != null) {
            Thread.sleep(Long.parseLong(ms.getValue()));
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
        Content.Sink.write(response, true, "ok " + request.getAttribute(QosHandler.CLASS_ATTRIBUTE) + " #" + n,
                callback);
        return true;
    }
}

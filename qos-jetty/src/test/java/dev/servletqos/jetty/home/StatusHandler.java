package dev.servletqos.jetty.home;

import dev.servletqos.ClassStats;
import dev.servletqos.EngineSnapshot;
import dev.servletqos.jetty.QosHandler;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * What the jetty-home integration test watches: the server's QoS counters, one {@code class.counter=value}
 * per line. It goes through the QoS handler too (the policy gives it a class of its own with a reserve).
 */
public class StatusHandler extends Handler.Abstract {

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        QosHandler qos = getServer().getDescendant(QosHandler.class);
        EngineSnapshot s = qos == null ? null : qos.snapshot();
        StringBuilder out = new StringBuilder();
        if (s != null) {
            for (ClassStats c : s.classes()) {
                out.append(c.name()).append(".executing=").append(c.executing()).append('\n');
                out.append(c.name()).append(".queued=").append(c.queued()).append('\n');
                out.append(c.name()).append(".completed=").append(c.completed()).append('\n');
                out.append(c.name()).append(".expired=").append(c.expired()).append('\n');
                out.append(c.name()).append(".queueFull=").append(c.queueFull()).append('\n');
                out.append(c.name()).append(".reconciles=").append(c.reconciles()).append('\n');
            }
        }
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "text/plain;charset=utf-8");
        Content.Sink.write(response, true, out.toString(), callback);
        return true;
    }
}

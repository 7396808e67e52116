package dev.servletqos.jetty;

import dev.servletqos.Attributes;
import dev.servletqos.QosEngine;
import dev.servletqos.status.AllowedClients;
import dev.servletqos.status.StatusPage;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.Callback;

/**
 * The read-only status page of a {@link QosHandler}'s engine ({@link StatusPage}) as a Jetty core handler. It
 * answers requests whose path in the context is {@link #setPath path} (default {@value #DEFAULT_PATH}) and passes
 * every other request to the handler it wraps (without one, {@code handle} returns false, and the next handler of
 * a {@code Handler.Sequence} gets it). So it goes in front of the application: {@code server.insertHandler(status)}
 * after the {@code QosHandler} was inserted (or in Jetty XML, below the {@code servlet-qos} module), or
 * {@code new Handler.Sequence(status, context)}; nothing is served unless it is added. {@code ?format=json}
 * answers the same data as JSON.
 *
 * <p>Put in front of the {@link QosHandler} (not inside it), the page is never queued or refused by QoS: an
 * operator sees it in an overload too.
 *
 * <p>The engine: {@link #QosStatusHandler(QosHandler)} shows that handler's; the no-argument constructor (for
 * Jetty XML) the one published as the attribute {@link Attributes#ENGINE} of the request's context, else of the
 * server (where a {@code QosHandler} publishes it). 503 while there is none.
 *
 * <p>{@link #setAllow allow}: the client addresses it answers, IP ranges separated by commas or white space
 * (default {@value AllowedClients#LOOPBACK}, this machine only; others get 403), checked against
 * {@code Request.getRemoteAddr}, which Jetty's {@code ForwardedRequestCustomizer} replaces with the forwarded
 * client's. Thread-safe.
 */
public class QosStatusHandler extends Handler.Wrapper {

    /** The path served by default. */
    public static final String DEFAULT_PATH = "/qos/status";

    private final Supplier<QosEngine> engine;
    private volatile String path = DEFAULT_PATH;
    private volatile StatusPage page = new StatusPage(AllowedClients.loopback());

    /** The page of the engine published on the request's context or the server. */
    public QosStatusHandler() {
        this.engine = null;
    }

    /** The page of this handler's engine (while it runs). */
    public QosStatusHandler(QosHandler qos) {
        this(Objects.requireNonNull(qos, "qos")::getEngine);
    }

    /** The page of the engine {@code engine} gives (null while there is none). */
    public QosStatusHandler(Supplier<QosEngine> engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    /** The path (within the context) the page answers. */
    public String getPath() {
        return path;
    }

    /**
     * Sets the path (within the context) the page answers, e.g. {@code /qos/status}; the JSON form is the same
     * path with {@code ?format=json}.
     *
     * @throws IllegalArgumentException if it does not start with {@code /}
     */
    public void setPath(String path) {
        if (path == null || !path.startsWith("/")) {
            throw new IllegalArgumentException("path = " + path + ": must start with /");
        }
        this.path = path;
    }

    /** The allowed client ranges. */
    public String getAllow() {
        return page.allowed().toString();
    }

    /**
     * Sets the client addresses the page answers (replacing loopback; keep {@code 127.0.0.0/8, ::1} in the list
     * to keep this machine). The page's history starts again.
     *
     * @param ranges IP ranges ({@code 10.0.0.0/8}, {@code 192.168.1.7}, {@code ::1}), separated by commas or white space
     * @throws IllegalArgumentException naming {@code allow} and the value if a range is bad or there is none
     */
    public void setAllow(String ranges) {
        page = new StatusPage(AllowedClients.parse("allow", ranges));
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        if (!path.equals(Request.getPathInContext(request))) {
            return super.handle(request, response, callback);
        }
        StatusPage.Answer a = page.answer(request.getMethod(), Request.getRemoteAddr(request),
                request.getHttpURI().getQuery(), engine(request), System.currentTimeMillis());
        response.setStatus(a.status());
        HttpFields.Mutable headers = response.getHeaders();
        headers.put(HttpHeader.CONTENT_TYPE, a.contentType());
        for (Map.Entry<String, String> h : a.headers().entrySet()) {
            headers.put(h.getKey(), h.getValue());
        }
        headers.put(HttpHeader.CONTENT_LENGTH, Integer.toString(a.length()));
        response.write(true, a.sendBody() ? ByteBuffer.wrap(a.body()) : null, callback);
        return true;
    }

    private QosEngine engine(Request request) {
        if (engine != null) {
            return engine.get();
        }
        if (request.getContext().getAttribute(Attributes.ENGINE) instanceof QosEngine e) {
            return e;
        }
        Server server = getServer();
        return server != null && server.getAttribute(Attributes.ENGINE) instanceof QosEngine e ? e : null;
    }
}

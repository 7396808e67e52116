package dev.servletqos.jetty;

import dev.servletqos.Rejection;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpFields;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpMethod;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;

/**
 * Writes the engine's refusals to a Jetty core response, byte for byte what the servlet adapters write
 * ({@code dev.servletqos.servlet.Responses}): the status, {@code Retry-After}, {@code Cache-Control: no-store}
 * and a short HTML or JSON body chosen by {@code Accept} (none for HEAD).
 */
final class Refusals {

    private Refusals() {
    }

    /**
     * Writes the refusal and completes the callback when it is sent. Headers already set (by handlers in front)
     * are kept; the QoS handler adds its admission cookie only to responses the wrapped handler makes. If the
     * response is already committed, nothing is written and the callback fails.
     */
    static void write(Request request, Response response, Callback callback, Rejection rejection) {
        if (response.isCommitted()) {
            callback.failed(new IllegalStateException("servlet-qos: cannot answer " + rejection
                    + ", the response is already committed"));
            return;
        }
        String accept = request.getHeaders().get(HttpHeader.ACCEPT);
        byte[] body = rejection.body(accept);
        response.setStatus(rejection.status());
        HttpFields.Mutable headers = response.getHeaders();
        headers.put(HttpHeader.RETRY_AFTER, Long.toString(rejection.retryAfterSeconds()));
        headers.put(HttpHeader.CACHE_CONTROL, "no-store");
        headers.put(HttpHeader.CONTENT_TYPE, rejection.contentType(accept));
        headers.put(HttpHeader.CONTENT_LENGTH, Integer.toString(body.length));
        boolean head = HttpMethod.HEAD.is(request.getMethod());
        response.write(true, head ? null : ByteBuffer.wrap(body).asReadOnlyBuffer(), callback);
    }
}

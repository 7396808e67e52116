package dev.servletqos.servlet;

import dev.servletqos.Rejection;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Writes the engine's answers to a servlet response; shared by the Tomcat valve and the servlet filter so
 * that both refuse in exactly the same way.
 */
public final class Responses {

    /** Request attribute holding the service class name of the request, for the application to read. */
    public static final String CLASS_ATTRIBUTE = dev.servletqos.Attributes.CLASS;

    private Responses() {
    }

    /**
     * Writes a refusal: status, {@code Retry-After}, {@code Cache-Control: no-store} and a short HTML or
     * JSON body chosen by {@code Accept} (none for HEAD). Does nothing if the response is already committed.
     *
     * @return false if the response was committed and nothing could be written
     */
    public static boolean writeRejection(HttpServletResponse response, Rejection rejection, String accept,
                                         String method) throws IOException {
        if (response.isCommitted()) {
            return false;
        }
        response.resetBuffer();
        response.setStatus(rejection.status());
        response.setHeader("Retry-After", Long.toString(rejection.retryAfterSeconds()));
        response.setHeader("Cache-Control", "no-store");
        response.setContentType(rejection.contentType(accept));
        byte[] body = rejection.body(accept);
        response.setContentLength(body.length);
        if (!"HEAD".equals(method)) {
            response.getOutputStream().write(body);
        }
        response.flushBuffer();
        return true;
    }
}

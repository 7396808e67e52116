package dev.servletqos.boot;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.io.IOException;

/**
 * Shows the filters after it a request that waited for its permit as what it is to the application: its first,
 * REQUEST, dispatch. The valve (and the filter) resume a waiting request with {@code AsyncContext.dispatch()}, so
 * it reaches the filters as an ASYNC dispatch although none of them has seen it before; Spring's
 * {@code OncePerRequestFilter}s skip ASYNC dispatches by default ({@code shouldNotFilterAsyncDispatch()}), and so
 * Spring Security's authentication filters (HTTP Basic, bearer tokens) and Boot's character encoding filter would
 * skip exactly the requests that waited: a signed-in user's request answered 401 under load.
 *
 * <p>The filter marks each request it sees; an ASYNC dispatch of a request it has not seen is a resumed one, and
 * is passed on wrapped so that {@link HttpServletRequest#getDispatcherType()} says REQUEST. Later dispatches of the
 * same request (the application's own asynchronous processing) pass unchanged. Registered by the starter for every
 * dispatcher type, right after the engine (the valve is before every filter; the servlet filter is first). Not
 * needed on Jetty, where the handler holds a waiting request before the servlet layer. Thread-safe (stateless).
 */
public class ResumedRequestFilter implements Filter {

    /** The request attribute marking a request this filter has seen. */
    static final String SEEN = ResumedRequestFilter.class.getName() + ".seen";

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        boolean seen = request.getAttribute(SEEN) != null;
        if (!seen) {
            request.setAttribute(SEEN, Boolean.TRUE);
            if (request.getDispatcherType() == DispatcherType.ASYNC && request instanceof HttpServletRequest http) {
                chain.doFilter(new FirstDispatch(http), response);
                return;
            }
        }
        chain.doFilter(request, response);
    }

    /** The resumed request, as its first dispatch. */
    private static final class FirstDispatch extends HttpServletRequestWrapper {

        FirstDispatch(HttpServletRequest request) {
            super(request);
        }

        @Override
        public DispatcherType getDispatcherType() {
            return DispatcherType.REQUEST;
        }
    }
}

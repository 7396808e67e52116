package dev.servletqos.boot.it;

import dev.servletqos.Attributes;
import dev.servletqos.QosEngine;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The application the real-HTTP tests run: {@code /work?ms=} (answers {@code ok <class>} after {@code ms}
 * milliseconds, recording the order in which requests started), {@code /login} (issues the signed tier cookie
 * of premium through the engine bean), {@code /account} behind Spring Security's HTTP Basic (user {@code ann},
 * password {@code secret}), and a plain {@code Filter} bean, which Boot maps for REQUEST only.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(ShopApp.Web.class)
public class ShopApp {

    /** The classes of the requests in the order the application started them. */
    @Bean
    List<String> startedOrder() {
        return new CopyOnWriteArrayList<>();
    }

    /** A plain Filter bean, counting what it sees: Boot maps it for REQUEST dispatches only. */
    @Bean
    CountingFilter countingFilter() {
        return new CountingFilter();
    }

    @Bean
    SecurityFilterChain security(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests(a -> a.requestMatchers("/account", "/async-work").authenticated()
                        .anyRequest().permitAll())
                .httpBasic(Customizer.withDefaults())
                .csrf(c -> c.disable());
        return http.build();
    }

    @Bean
    UserDetailsService users() {
        return new InMemoryUserDetailsManager(User.withUsername("ann").password("{noop}secret").roles("USER")
                .build());
    }

    /** Counts the requests it sees, by dispatcher type. */
    public static final class CountingFilter implements Filter {
        public final AtomicInteger requests = new AtomicInteger();
        public final AtomicInteger async = new AtomicInteger();

        @Override
        public void doFilter(jakarta.servlet.ServletRequest req, jakarta.servlet.ServletResponse res,
                             jakarta.servlet.FilterChain chain) throws java.io.IOException,
                jakarta.servlet.ServletException {
            (req.getDispatcherType() == DispatcherType.ASYNC ? async : requests).incrementAndGet();
            chain.doFilter(req, res);
        }
    }

    @RestController
    static class Web {

        private final List<String> startedOrder;
        private final QosEngine engine;

        Web(List<String> startedOrder, QosEngine engine) {
            this.startedOrder = startedOrder;
            this.engine = engine;
        }

        @GetMapping("/work")
        String work(@RequestParam(defaultValue = "0") long ms, HttpServletRequest request)
                throws InterruptedException {
            String c = String.valueOf(request.getAttribute(Attributes.CLASS));
            startedOrder.add(c);
            if (ms > 0) {
                Thread.sleep(ms);
            }
            return "ok " + c;
        }

        /** Spring MVC's own asynchronous processing: the answer comes from another thread. */
        @GetMapping("/async-work")
        java.util.concurrent.Callable<String> asyncWork(HttpServletRequest request) {
            String c = String.valueOf(request.getAttribute(Attributes.CLASS));
            return () -> "async " + c + " for " + request.getRemoteUser();
        }

        @PostMapping("/login")
        String login(@RequestParam String user, HttpServletResponse response) {
            response.addHeader("Set-Cookie", engine.tierCookies().setCookieHeader("premium", user));
            return "welcome " + user;
        }

        @GetMapping("/account")
        String account(@RequestParam(defaultValue = "0") long ms, HttpServletRequest request)
                throws InterruptedException {
            String c = String.valueOf(request.getAttribute(Attributes.CLASS));
            startedOrder.add(c);
            if (ms > 0) {
                Thread.sleep(ms);
            }
            return "account of " + request.getRemoteUser() + " (" + c + ")";
        }
    }
}

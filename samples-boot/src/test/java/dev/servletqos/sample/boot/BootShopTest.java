package dev.servletqos.sample.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.servletqos.sample.Costs;
import dev.servletqos.sample.SamplePolicy;
import dev.servletqos.sample.run.ShopConfig;
import dev.servletqos.sample.run.ShopServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

/**
 * The Boot sample starts with the starter and the bundled policy, serves the shop's pages, issues the tier cookie
 * at login and answers Actuator, on the class path a build gives it (after {@code package}, the samples module's
 * shaded jar).
 */
class BootShopTest {

    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void theShopServesUnderTheStarterWithActuatorOn() throws Exception {
        ShopConfig config = new ShopConfig(true, 0, SamplePolicy.load(null), null, Costs.scaled(0.1));
        try (ShopServer shop = BootShop.start("tomcat", config)) {
            assertThat(shop.engine()).as("the starter's engine").isNotNull();
            HttpResponse<String> login = get(shop, "/login?tier=premium&user=ann");
            assertThat(login.statusCode()).isEqualTo(200);
            assertThat(login.headers().allValues("Set-Cookie")).anyMatch(c -> c.startsWith("QOSTIER="));
            assertThat(get(shop, "/browse").statusCode()).isEqualTo(200);
            assertThat(shop.pagesServed()).isEqualTo(2);
            HttpResponse<String> health = get(shop, "/actuator/health");
            assertThat(health.body()).contains("\"qos\":{").contains("\"status\":\"UP\"");
            assertThat(get(shop, "/actuator/qos").body()).startsWith("{\"schema\":\"servlet-qos-status/1\"");
            assertThat(shop.engine().snapshot().exempt()).as("Actuator's requests").isEqualTo(2);
        }
    }

    private HttpResponse<String> get(ShopServer shop, String path) throws Exception {
        return client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + shop.port() + path)).build(),
                HttpResponse.BodyHandlers.ofString());
    }
}

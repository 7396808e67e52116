package dev.servletqos.boot.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.servletqos.QosEngine;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIf;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

/** Actuator on a port of its own is not under QoS: answered while the application's requests wait, never counted. */
@SpringBootTest(classes = ShopApp.class, webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "servlet-qos.classes = premium, basic",
        "servlet-qos.max-executing = 2",
        "servlet-qos.class.basic.max-wait = 30s",
        "management.server.port = 0",
        "management.endpoint.health.show-details = always"})
@EnabledIf("dev.servletqos.boot.ClassPaths#tomcat")
class ManagementPortTest {

    @LocalServerPort
    int port;

    @LocalManagementPort
    int managementPort;

    @Autowired
    QosEngine engine;

    private final HttpClient client = HttpClient.newHttpClient();

    @Test
    void aSeparateManagementPortIsNotUnderQos() throws Exception {
        assertThat(engine.policy().exempt()).as("nothing to exempt on the application's port").isEmpty();
        CompletableFuture<HttpResponse<String>> running = client.sendAsync(get(port, "/work?ms=1500"),
                HttpResponse.BodyHandlers.ofString());
        // the slow request must hold its permit first: sent together, the quick one could run and end before it
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (engine.snapshot().executing() < 1 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        CompletableFuture<HttpResponse<String>> waiting = client.sendAsync(get(port, "/work"),
                HttpResponse.BodyHandlers.ofString());
        end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (engine.snapshot().queued() < 1 && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertThat(engine.snapshot().queued()).as("a request waits on the application's port").isEqualTo(1);
        // (the waiting request may soon borrow an idle permit of premium's: what follows does not need it waiting)
        long entered = engine.snapshot().get("basic").entered() + engine.snapshot().get("premium").entered();

        HttpResponse<String> health = client.send(get(managementPort, "/actuator/health"),
                HttpResponse.BodyHandlers.ofString());
        assertThat(health.statusCode()).isEqualTo(200);
        assertThat(health.body()).contains("\"qos\":{").contains("\"status\":\"UP\"");
        assertThat(running.isDone()).isFalse();
        assertThat(engine.snapshot().get("basic").entered() + engine.snapshot().get("premium").entered())
                .as("the management port's request never entered the engine").isEqualTo(entered);
        assertThat(engine.snapshot().exempt()).isZero();
        assertThat(running.get().statusCode()).isEqualTo(200);
        assertThat(waiting.get().statusCode()).isEqualTo(200);
    }

    private static HttpRequest get(int port, String path) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path)).timeout(Duration.ofSeconds(30))
                .build();
    }
}

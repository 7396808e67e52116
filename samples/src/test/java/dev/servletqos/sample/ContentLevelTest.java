package dev.servletqos.sample;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.servletqos.Attributes;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServletRequest;
import java.io.InputStream;
import java.lang.reflect.Proxy;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.catalina.Context;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The degraded content tree, selected by the request attribute {@code dev.servletqos.level}. */
class ContentLevelTest {

    @TempDir
    Path dir;

    /** A request as the adapter labels it: the level, and the two levels of the shop's classes. */
    private static ServletRequest requestWith(Object level) {
        Map<String, Object> attributes = new HashMap<>();
        if (level != null) {
            attributes.put(ContentLevel.ATTRIBUTE, level);
            attributes.put(Attributes.LEVELS, 2);
        }
        return (ServletRequest) Proxy.newProxyInstance(ContentLevelTest.class.getClassLoader(),
                new Class<?>[] {ServletRequest.class}, (proxy, method, args) -> {
                    if (method.getName().equals("getAttribute")) {
                        return attributes.get((String) args[0]);
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
    }

    @Test
    void theAttributeSelectsTheTreeAndAnythingElseMeansFull() {
        assertEquals(ContentLevel.FULL, ContentLevel.of(requestWith(null)), "absent: full");
        assertEquals(ContentLevel.DEGRADED, ContentLevel.of(requestWith(1)));
        assertEquals(ContentLevel.DEGRADED, ContentLevel.of(requestWith(0)), "below 1 (never set): degraded");
        assertEquals(ContentLevel.FULL, ContentLevel.of(requestWith(2)));
        assertEquals(ContentLevel.FULL, ContentLevel.of(requestWith(7)), "above the class's levels: full");
        assertEquals(ContentLevel.DEGRADED, ContentLevel.of(requestWith(1L)), "any Number");
        assertEquals(ContentLevel.FULL, ContentLevel.of(requestWith("1")), "not a Number: ignored");
        assertTrue(ContentLevel.degraded(requestWith(1)));
        assertFalse(ContentLevel.degraded(requestWith(null)));
        assertEquals("degraded", ContentLevel.name(ContentLevel.DEGRADED));
        assertEquals("full", ContentLevel.name(ContentLevel.FULL));
    }

    @Test
    void degradedPagesAndImagesComeFromTheDegradedTree() throws Exception {
        Tomcat tomcat = new Tomcat();
        try {
            tomcat.setBaseDir(dir.toString());
            Connector connector = new Connector();
            connector.setPort(0);
            connector.setProperty("address", "127.0.0.1");
            tomcat.setConnector(connector);
            Context ctx = tomcat.addContext("", null);
            ctx.addServletContainerInitializer((classes, sc) -> {
                Shop.register(sc, Costs.scaled(0.05), Shop.tierCookies(SamplePolicy.load(null)));
                // stands in for the adapter: the level comes from a test header (ShopOnEngineLevelsTest has the engine)
                Filter level = (request, response, chain) -> {
                    String h = ((HttpServletRequest) request).getHeader("X-Test-Level");
                    if (h != null) {
                        request.setAttribute(ContentLevel.ATTRIBUTE, Integer.valueOf(h));
                        request.setAttribute(Attributes.LEVELS, 2);
                    }
                    chain.doFilter(request, response);
                };
                sc.addFilter("level", level).addMappingForUrlPatterns(
                        EnumSet.of(jakarta.servlet.DispatcherType.REQUEST), false, "/*");
            }, null);
            tomcat.start();
            int port = connector.getLocalPort();

            HttpResponse<String> full = new LevelClient(port, null).get("/item?id=12");
            assertEquals("full", full.headers().firstValue("X-Content-Level").orElse(null));
            assertEquals(2, images(full.body()), full.body());
            assertTrue(full.body().contains("Customers also bought"));

            HttpResponse<String> degraded = new LevelClient(port, "1").get("/item?id=12");
            assertEquals(200, degraded.statusCode());
            assertEquals("degraded", degraded.headers().firstValue("X-Content-Level").orElse(null));
            assertEquals(1, images(degraded.body()), degraded.body());
            assertTrue(degraded.body().contains("light version"), degraded.body());
            assertFalse(degraded.body().contains("Customers also bought"));

            String image = firstImage(degraded.body());
            HttpResponse<byte[]> small = new LevelClient(port, "1").getBytes(image);
            HttpResponse<byte[]> big = new LevelClient(port, "2").getBytes(image);
            String name = image.substring(image.lastIndexOf('/') + 1);
            assertArrayEquals(resource("degraded/" + name), small.body());
            assertArrayEquals(resource("full/" + name), big.body());
            assertEquals("degraded", small.headers().firstValue("X-Content-Level").orElse(null));
            assertTrue(small.body().length * 20 < big.body().length, small.body().length + " vs " + big.body().length);
        } finally {
            tomcat.stop();
            tomcat.destroy();
        }
    }

    private static int images(String html) {
        Matcher m = Pattern.compile("<img src=").matcher(html);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    private static String firstImage(String html) {
        Matcher m = Pattern.compile("<img src=\"([^\"]+)\"").matcher(html);
        assertTrue(m.find(), html);
        return m.group(1);
    }

    private static byte[] resource(String name) throws Exception {
        try (InputStream in = ContentLevelTest.class.getResourceAsStream("/dev/servletqos/sample/img/" + name)) {
            return in.readAllBytes();
        }
    }

    private static final java.net.http.HttpClient HTTP = java.net.http.HttpClient.newHttpClient();

    /** A client that sends the test level header. */
    private static final class LevelClient {
        private final int port;
        private final String level;

        LevelClient(int port, String level) {
            this.port = port;
            this.level = level;
        }

        HttpResponse<String> get(String path) throws Exception {
            return HTTP.send(request(path), HttpResponse.BodyHandlers.ofString());
        }

        HttpResponse<byte[]> getBytes(String path) throws Exception {
            return HTTP.send(request(path), HttpResponse.BodyHandlers.ofByteArray());
        }

        private java.net.http.HttpRequest request(String path) {
            java.net.http.HttpRequest.Builder b = java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + port + path));
            if (level != null) {
                b.header("X-Test-Level", level);
            }
            return b.build();
        }
    }

    @Test
    void everyImageHasBothTrees() throws Exception {
        Catalog catalog = new Catalog();
        for (int id = 1; id <= 8; id++) {
            for (String image : Catalog.images(id, 2)) {
                assertTrue(catalog.image(image, false).length > catalog.image(image, true).length, image);
            }
        }
    }
}

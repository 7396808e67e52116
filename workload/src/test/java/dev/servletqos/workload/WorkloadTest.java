package dev.servletqos.workload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class WorkloadTest {

    private static final Workload SHOP = ShopWorkload.SHOP;

    @Test
    void theShopsSessionIsTwelveRequestsAnd555MillisecondsOfWorkerTime() {
        assertEquals(12, SHOP.requests(false));
        assertEquals(9, SHOP.requests(true), "degraded product pages show one image instead of two");
        assertEquals(548, SHOP.cost(false).waitMillis(), 1e-9);
        assertEquals(7.1, SHOP.cost(false).cpuMillis(), 1e-9);
        assertEquals(555.1, SHOP.cost(false).millis(), 1e-9);
        assertEquals(2 * 548 + 7.1, SHOP.cost(false).millis(2), 1e-9, "a slower back end multiplies the waits only");
        assertEquals(16 / 0.5551, SHOP.capacity(16, 1, 1), 1e-9);
        assertEquals(Duration.ZERO, SHOP.thinkTime());
        assertEquals(List.of("premium", "basic"), SHOP.classNames());
        assertEquals(Duration.ofSeconds(5), SHOP.clientTimeout());
    }

    @Test
    void aFifthOfTheSessionsArePremiumReturningUsers() {
        assertEquals("premium", SHOP.draw(0.0).name());
        assertEquals("premium", SHOP.draw(0.1999).name());
        assertEquals("basic", SHOP.draw(0.2).name());
        assertEquals("basic", SHOP.draw(0.9999).name());
        assertTrue(SHOP.userClass("premium").returning());
        assertEquals(0.2, SHOP.userClass("premium").share());
        assertEquals(null, SHOP.userClass("gold"));
    }

    @Test
    void aPlanBrowsesOneCataloguePageAndViewsProductsOfIt() {
        Random r = new Random(7);
        for (int i = 0; i < 200; i++) {
            Visit v = SHOP.plan(SHOP.userClass(i % 2 == 0 ? "premium" : "basic"), r);
            assertEquals(SHOP.steps().size(), v.calls().size());
            assertEquals(i % 2 == 0, v.returningUser() >= 0);
            assertTrue(v.returningUser() < SHOP.returningUsers());
            assertEquals("/login?tier=" + v.userClass().name(), v.calls().get(0).path());
            String browse = v.calls().get(1).path();
            assertTrue(browse.matches("/browse\\?page=\\d+"), browse);
            int page = Integer.parseInt(browse.substring("/browse?page=".length()));
            assertTrue(page >= 1 && page <= ShopWorkload.CATALOG.pages(), browse);
            for (int k = 2; k < 5; k++) {
                String item = v.calls().get(k).path();
                int id = Integer.parseInt(item.substring("/item?id=".length()));
                assertEquals(page, (id - 1) / ShopWorkload.CATALOG.pageSize() + 1, item + " is on page " + page);
            }
            assertEquals("/checkout", v.calls().get(5).path());
            assertEquals("POST", v.calls().get(5).method());
        }
    }

    @Test
    void theSameSeedPlansTheSameVisits() {
        Random a = new Random(42);
        Random b = new Random(42);
        for (int i = 0; i < 20; i++) {
            assertEquals(SHOP.plan(SHOP.classes().get(1), a), SHOP.plan(SHOP.classes().get(1), b));
        }
    }

    @Test
    void badDescriptionsAreRefusedWithTheFieldAndValue() {
        assertEquals("the user classes' shares must add up to 1, they add up to 0.5",
                assertThrows(IllegalArgumentException.class, () -> new Workload(
                        List.of(new UserClass("a", 0.5, false)), SHOP.steps(), SHOP.catalog(), Duration.ofSeconds(1),
                        1)).getMessage());
        assertEquals("page x: unknown placeholder {user} in /x?u={user} (known: [class, page, item])",
                assertThrows(IllegalArgumentException.class, () -> new Workload(SHOP.classes(),
                        List.of(Step.of(Page.of("x", "GET", "/x?u={user}", null, Cost.NONE))), SHOP.catalog(),
                        Duration.ofSeconds(1), 1)).getMessage());
        assertEquals("waitMillis must be a finite number, 0 or more, was -1.0",
                assertThrows(IllegalArgumentException.class, () -> new Cost(-1, 0)).getMessage());
        assertEquals("page x: only a POST has a body",
                assertThrows(IllegalArgumentException.class, () -> Page.of("x", "GET", "/x", "a=b", Cost.NONE))
                        .getMessage());
        assertEquals("user class premium: share must be 0..1, was 1.5",
                assertThrows(IllegalArgumentException.class, () -> new UserClass("premium", 1.5, true)).getMessage());
    }
}

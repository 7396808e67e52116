package dev.servletqos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Which requests the capacity law compares with each other: method and the path's first segment, 63 at most. */
class RoutesTest {

    @Test
    void aRouteIsTheMethodAndThePathsFirstSegment() {
        Routes routes = new Routes();
        int item = routes.of("GET", "/item");
        assertEquals(item, routes.of("GET", "/item"));
        assertEquals(item, routes.of("GET", "/item;jsessionid=ABC"), "a path parameter is not a new route");
        int img = routes.of("GET", "/img/a.svg");
        assertEquals(img, routes.of("GET", "/img/b.svg"), "one route for every image");
        assertNotEquals(item, img);
        assertNotEquals(item, routes.of("POST", "/item"), "the method is part of it");
        assertNotEquals(item, routes.of("GET", "/items"));
        assertEquals(routes.of("GET", "/"), routes.of("GET", null), "no path is the root");
    }

    @Test
    void afterTheFirst63RoutesEveryNewOneIsRouteZeroAndTheKnownOnesKeepTheirs() {
        Routes routes = new Routes();
        Set<Integer> seen = new HashSet<>();
        for (int i = 0; i < Routes.MAX - 1; i++) {
            seen.add(routes.of("GET", "/page" + i));
        }
        assertEquals(Routes.MAX - 1, seen.size());
        assertEquals(Set.of(), intersect(seen, Set.of(0)), "route 0 is for the others");
        for (int i = 0; i < 1000; i++) {
            assertEquals(0, routes.of("GET", "/made-up-" + i), "a client making up paths fills nothing");
        }
        assertEquals(routes.of("GET", "/page7"), routes.of("GET", "/page7/x"));
        assertNotEquals(0, routes.of("GET", "/page7"));
    }

    private static Set<Integer> intersect(Set<Integer> a, Set<Integer> b) {
        Set<Integer> s = new HashSet<>(a);
        s.retainAll(b);
        return s;
    }
}

package dev.servletqos.sample;

import dev.servletqos.workload.ShopWorkload;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The shop's products and its two image trees, all in memory. Products are numbered 1 to {@link #ITEMS};
 * each shows two of the eight product images. Images are read once from the classpath
 * ({@code dev/servletqos/sample/img/full/} and {@code .../degraded/}); each name exists in both trees.
 * Immutable after construction and thread-safe.
 */
public final class Catalog {

    /** Number of products (the workload's catalogue). */
    public static final int ITEMS = ShopWorkload.CATALOG.items();
    /** Product pages listed per browse page. */
    public static final int PAGE_SIZE = ShopWorkload.CATALOG.pageSize();

    private static final List<String> IMAGES =
            List.of("teapot", "lamp", "chair", "kettle", "clock", "vase", "bowl", "mug");
    private static final List<String> ADJECTIVES =
            List.of("Classic", "Nordic", "Copper", "Stoneware", "Walnut", "Enamel", "Linen", "Glazed", "Brass",
                    "Oak");
    private static final String IMAGE_ROOT = "/dev/servletqos/sample/img/";

    private final Map<String, byte[]> full = new TreeMap<>();
    private final Map<String, byte[]> degraded = new TreeMap<>();

    /** Loads the image trees from the classpath. */
    public Catalog() {
        for (String image : IMAGES) {
            full.put(image + ".svg", read(IMAGE_ROOT + "full/" + image + ".svg"));
            degraded.put(image + ".svg", read(IMAGE_ROOT + "degraded/" + image + ".svg"));
        }
    }

    private static byte[] read(String resource) {
        try (InputStream in = Catalog.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("missing image resource " + resource);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    /** Whether {@code id} names a product. */
    public static boolean exists(int id) {
        return ShopWorkload.CATALOG.exists(id);
    }

    /** The product's name. */
    public static String name(int id) {
        return ADJECTIVES.get(id % ADJECTIVES.size()) + " " + IMAGES.get(id % IMAGES.size()) + " No. " + id;
    }

    /** The price in cents, stable per product. */
    public static int priceCents(int id) {
        return 900 + (id * 7919) % 12_000;
    }

    /** The image names ({@code NAME.svg}) of a product page: {@code count} of them, 1 or 2. */
    public static List<String> images(int id, int count) {
        String first = IMAGES.get(id % IMAGES.size()) + ".svg";
        if (count <= 1) {
            return List.of(first);
        }
        return List.of(first, IMAGES.get((id + 3) % IMAGES.size()) + ".svg");
    }

    /** The bytes of an image in the full or degraded tree, or null for an unknown name. */
    public byte[] image(String name, boolean degradedTree) {
        return (degradedTree ? degraded : full).get(name);
    }
}

package dev.servletqos.workload;

/**
 * The product catalogue a visit browses: products numbered 1 to {@code items}, listed {@code pageSize} to a
 * catalogue page. Immutable.
 *
 * @param items    number of products, at least 1
 * @param pageSize products per catalogue page, at least 1; divides {@code items}
 */
public record Catalog(int items, int pageSize) {

    public Catalog {
        if (items < 1 || pageSize < 1 || items % pageSize != 0) {
            throw new IllegalArgumentException("catalog: items (" + items + ") and pageSize (" + pageSize
                    + ") must be at least 1, and pageSize must divide items");
        }
    }

    /** Number of catalogue pages. */
    public int pages() {
        return items / pageSize;
    }

    /** Whether {@code id} names a product. */
    public boolean exists(int id) {
        return id >= 1 && id <= items;
    }
}

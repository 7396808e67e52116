package dev.servletqos.sample.demo;

/** Escaping for the demo's report page, shared by its text, tables and charts. */
final class Html {

    private Html() {
    }

    /** {@code s} with the four characters HTML gives a meaning escaped; safe in text and in quoted attributes. */
    static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}

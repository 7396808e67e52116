package dev.servletqos.bench;

import dev.servletqos.RequestView;

/**
 * A request view whose fields are fixed strings, as an adapter's view over a parsed request would be: GET
 * {@code shop.example.com/item}, its admission cookie ({@code QOSSESSION}), tier cookie ({@code QOSTIER}), client
 * address and Accept header as given (null: none). For the request-path benchmarks.
 */
final class FixedRequest implements RequestView {
    private final String sessionCookie;
    private final String tierCookie;
    private final String address;
    private final String accept;

    FixedRequest(String sessionCookie) {
        this(sessionCookie, "10.1.2.3");
    }

    FixedRequest(String sessionCookie, String address) {
        this(sessionCookie, address, "text/html"); // a browser's page: a new session
    }

    FixedRequest(String sessionCookie, String address, String accept) {
        this(sessionCookie, null, address, accept);
    }

    FixedRequest(String sessionCookie, String tierCookie, String address, String accept) {
        this.sessionCookie = sessionCookie;
        this.tierCookie = tierCookie;
        this.address = address;
        this.accept = accept;
    }

    @Override
    public String method() {
        return "GET";
    }

    @Override
    public String host() {
        return "shop.example.com";
    }

    @Override
    public String path() {
        return "/item";
    }

    @Override
    public String remoteAddress() {
        return address;
    }

    @Override
    public String cookie(String name) {
        return "QOSSESSION".equals(name) ? sessionCookie : "QOSTIER".equals(name) ? tierCookie : null;
    }

    @Override
    public String header(String name) {
        return "Accept".equalsIgnoreCase(name) ? accept : null;
    }
}

package dev.tunnel.server.vhost;

import dev.tunnel.server.vhost.RouteTable.Entry;
import io.netty.handler.codec.http.HttpRequest;
import java.util.Map;

/**
 * What an {@code http} proxy asks of the requests routed to it: Basic auth checked here on the
 * server ({@code httpUser}/{@code httpPassword}, both empty = none), the Host header rewritten
 * ({@code hostHeaderRewrite}, "" = kept), and request and response headers set
 * ({@code requestHeaders.set}, {@code responseHeaders.set}).
 */
public record HttpRoute(VhostTarget target, String httpUser, String httpPassword, String hostHeaderRewrite,
                        Map<String, String> requestHeaders, Map<String, String> responseHeaders) {

    public HttpRoute {
        requestHeaders = Map.copyOf(requestHeaders);
        responseHeaders = Map.copyOf(responseHeaders);
    }

    /** Whether requests must carry {@code httpUser}/{@code httpPassword}. */
    public boolean needsAuth() {
        return !httpUser.isEmpty() || !httpPassword.isEmpty();
    }

    /** Whether requests are changed beyond the forwarding headers: the Host rewritten or headers set. */
    boolean rewritesRequests() {
        return !hostHeaderRewrite.isEmpty() || !requestHeaders.isEmpty();
    }

    /** Applies the Host rewrite and {@code requestHeaders.set}. */
    void rewriteRequest(HttpRequest request) {
        if (!hostHeaderRewrite.isEmpty()) {
            request.headers().set("Host", hostHeaderRewrite);
        }
        requestHeaders.forEach((k, v) -> request.headers().set(k, v));
    }

    /** The name routing and logs use for a route entry. */
    static String describe(Entry<HttpRoute> e) {
        return "proxy [" + e.owner() + "] (" + e.domain() + e.location()
                + (e.httpUser().isEmpty() ? "" : ", routeByHTTPUser " + e.httpUser()) + ")";
    }
}

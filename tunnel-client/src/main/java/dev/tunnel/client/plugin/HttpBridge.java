package dev.tunnel.client.plugin;

import dev.tunnel.client.config.HeaderOperations;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.ssl.SslContext;
import java.net.InetSocketAddress;
import java.util.Map;

/**
 * What one of frp's HTTP bridge plugins ({@code http2http}, {@code http2https},
 * {@code https2http}, {@code https2https}) does to each request and where it sends it: to
 * {@code localAddr}, over TLS when {@code upstreamTls} is set (the local app's certificate is not
 * verified, as in frp), with the Host header rewritten and headers set. Immutable, shared by the
 * plugin's connections.
 *
 * @param localAddr         the local app
 * @param upstreamTls       client context toward the local app, null for plain HTTP
 * @param hostHeaderRewrite the Host the local app sees; "" keeps the visitor's
 * @param setHeaders        headers set on every request (replacing the visitor's)
 * @param forwardedProto    "https" for the https2* plugins: sets {@code X-Forwarded-Proto} and
 *                          {@code X-Forwarded-Host} as frp does; null for the http2* ones
 */
record HttpBridge(InetSocketAddress localAddr, SslContext upstreamTls, String hostHeaderRewrite,
                  Map<String, String> setHeaders, String forwardedProto) {

    static HttpBridge of(InetSocketAddress localAddr, SslContext upstreamTls, String hostHeaderRewrite,
                         HeaderOperations requestHeaders, String forwardedProto) {
        return new HttpBridge(localAddr, upstreamTls, hostHeaderRewrite == null ? "" : hostHeaderRewrite,
                Map.copyOf(requestHeaders.set), forwardedProto);
    }

    /** {@code host:port} of the local app, as configured (for logs and error pages). */
    String describe() {
        return localAddr.getHostString() + ":" + localAddr.getPort();
    }

    /** Rewrites {@code request} in place for the local app. */
    void rewrite(HttpRequest request) {
        if (forwardedProto != null) {
            String host = request.headers().get(HttpHeaderNames.HOST);
            if (host != null) {
                request.headers().set("X-Forwarded-Host", host);
            }
            request.headers().set("X-Forwarded-Proto", forwardedProto);
        }
        if (!hostHeaderRewrite.isEmpty()) {
            request.headers().set(HttpHeaderNames.HOST, hostHeaderRewrite);
        }
        setHeaders.forEach((name, value) -> request.headers().set(name, value));
    }
}

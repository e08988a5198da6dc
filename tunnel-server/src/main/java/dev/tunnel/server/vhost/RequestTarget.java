package dev.tunnel.server.vhost;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What routing reads from a request head, and the forwarding headers it adds: the host (from
 * an absolute URI, else the Host header), the path, and {@code X-Forwarded-For} (the visitor's
 * address appended to the chain it brought), {@code X-Forwarded-Host}, {@code X-Forwarded-Proto}
 * and {@code X-Real-IP} (the visitor's address).
 */
record RequestTarget(String host, String path) {
    static final String X_FORWARDED_FOR = "X-Forwarded-For";
    static final String X_FORWARDED_HOST = "X-Forwarded-Host";
    static final String X_FORWARDED_PROTO = "X-Forwarded-Proto";
    static final String X_REAL_IP = "X-Real-IP";

    /** The routing host and path of {@code request}; host is null when the request names none. */
    static RequestTarget of(HttpRequest request) {
        String uri = request.uri();
        String authority = null;
        int schemeEnd = uri.indexOf("://");
        if (schemeEnd > 0 && uri.indexOf('/') > schemeEnd) {
            int start = schemeEnd + 3;
            int slash = uri.indexOf('/', start);
            authority = uri.substring(start, slash < 0 ? uri.length() : slash);
            uri = slash < 0 ? "/" : uri.substring(slash);
        }
        String host = HostNames.fromHostHeader(authority != null ? authority : request.headers().get(HttpHeaderNames.HOST));
        int end = uri.length();
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '?' || c == '#') {
                end = i;
                break;
            }
        }
        return new RequestTarget(host, uri.substring(0, end));
    }

    /** The address {@code X-Forwarded-For} and {@code X-Real-IP} give for {@code visitor}. */
    static String ipOf(SocketAddress visitor) {
        return visitor instanceof InetSocketAddress a && a.getAddress() != null
                ? a.getAddress().getHostAddress() : String.valueOf(visitor);
    }

    /** Adds the forwarding headers for a request from the visitor at {@code ip} that arrived over {@code proto}. */
    static void addForwarded(HttpRequest request, String ip, String proto) {
        HttpHeaders headers = request.headers();
        String chain = null;
        for (String hop : headers.getAll(X_FORWARDED_FOR)) {
            chain = chain == null ? hop : chain + ", " + hop;
        }
        headers.set(X_FORWARDED_FOR, chain == null || chain.isBlank() ? ip : chain + ", " + ip);
        String host = headers.get(HttpHeaderNames.HOST);
        if (host != null) {
            headers.set(X_FORWARDED_HOST, host);
        }
        headers.set(X_FORWARDED_PROTO, proto);
        headers.set(X_REAL_IP, ip);
    }
}

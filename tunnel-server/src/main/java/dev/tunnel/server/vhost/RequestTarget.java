package dev.tunnel.server.vhost;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What routing reads from a request head's target and Host, and what the app is sent instead:
 * the routing host (an absolute-form target's authority, else the Host header), the normalized
 * path ({@link RequestPath}), and the origin-form target with that path and the query as it came
 * ({@link #applyTo}). Also the forwarding headers the vhost adds: {@code X-Forwarded-For} (the
 * visitor's address appended to the chain it brought), {@code X-Forwarded-Host},
 * {@code X-Forwarded-Proto} and {@code X-Real-IP} (the visitor's address).
 *
 * <p>An absolute-form target ({@code GET http://app.example/x}) is routed and authorized by its
 * authority, which also becomes the Host the app sees (and so {@code X-Forwarded-Host}), as RFC
 * 9112 3.2.2 asks: the Host header it came with is ignored. An asterisk-form {@code OPTIONS *}
 * and an authority-form {@code CONNECT} go as they came, routed by Host with their target as path
 * (which only a proxy without {@code locations} matches).
 *
 * <p>Refused, with {@link #problem} saying why (400): a fragment ({@code #}) or a control
 * character anywhere in the target, user info in an absolute-form authority (RFC 9110 4.2.4),
 * and every path {@link RequestPath} refuses.
 *
 * @param host      the routing name ({@link HostNames#fromHostHeader}), null when the request names none
 * @param path      the normalized path routing compares with locations, null when refused
 * @param target    the target the app is sent
 * @param authority an absolute-form target's authority, the Host the app is sent; null for other forms
 * @param problem   why the target is refused, or null
 */
record RequestTarget(String host, String path, String target, String authority, String problem) {
    static final String X_FORWARDED_FOR = "X-Forwarded-For";
    static final String X_FORWARDED_HOST = "X-Forwarded-Host";
    static final String X_FORWARDED_PROTO = "X-Forwarded-Proto";
    static final String X_REAL_IP = "X-Real-IP";

    /** The routing host, path and target the app is sent of {@code request}. */
    static RequestTarget of(HttpRequest request) {
        String uri = request.uri();
        for (int i = 0; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == '#') {
                return refused("a fragment ('#') in the request target");
            }
            if (c < ' ' || c == 0x7f) {
                return refused("a control character in the request target");
            }
        }
        String hostHeader = request.headers().get(HttpHeaderNames.HOST);
        if (HttpMethod.CONNECT.equals(request.method()) && !uri.startsWith("/")
                || uri.equals("*") && HttpMethod.OPTIONS.equals(request.method())) {
            return new RequestTarget(HostNames.fromHostHeader(hostHeader), uri, uri, null, null);
        }
        String authority = null;
        String rest = uri;
        int schemeEnd = schemeEnd(uri);
        if (schemeEnd > 0) {
            int start = schemeEnd + 3;
            int end = start;
            while (end < uri.length() && uri.charAt(end) != '/' && uri.charAt(end) != '?') {
                end++;
            }
            authority = uri.substring(start, end);
            if (authority.indexOf('@') >= 0) {
                return refused("user info in the request target's authority");
            }
            rest = end == uri.length() || uri.charAt(end) == '?' ? "/" + uri.substring(end) : uri.substring(end);
        }
        int q = rest.indexOf('?');
        String rawPath = q < 0 ? rest : rest.substring(0, q);
        String path = RequestPath.normalize(rawPath);
        if (path == null) {
            return refused(RequestPath.problem(rawPath));
        }
        String rawQuery = q < 0 ? "" : rest.substring(q);
        String query = RequestPath.encodeNonAscii(rawQuery);
        if (query == null) {
            return refused("a character that is no byte in the query");
        }
        String target = path == rawPath && query == rawQuery ? rest : path + query;
        return new RequestTarget(HostNames.fromHostHeader(authority != null ? authority : hostHeader), path, target,
                authority, null);
    }

    private static RequestTarget refused(String why) {
        return new RequestTarget(null, null, null, null, why);
    }

    /**
     * Makes {@code request} what the app is sent: its target {@link #target}, and for an
     * absolute-form target its Host the target's authority.
     */
    void applyTo(HttpRequest request) {
        if (!target.equals(request.uri())) {
            request.setUri(target);
        }
        if (authority != null) {
            request.headers().set("Host", authority); // as visitors spell it
        }
    }

    /** Where "://" follows the scheme an absolute-form target starts with (RFC 3986 3.1), or -1. */
    private static int schemeEnd(String uri) {
        if (uri.isEmpty() || !letter(uri.charAt(0))) {
            return -1;
        }
        for (int i = 1; i < uri.length(); i++) {
            char c = uri.charAt(i);
            if (c == ':') {
                return uri.startsWith("://", i) ? i : -1;
            }
            if (!letter(c) && !(c >= '0' && c <= '9') && c != '+' && c != '-' && c != '.') {
                return -1;
            }
        }
        return -1;
    }

    private static boolean letter(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z';
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

package dev.tunnel.server.plugin;

import java.net.URI;
import java.net.URISyntaxException;

/**
 * Where a plugin listens, from its {@code addr} and {@code path} as frp reads them: the URL is
 * {@code addr + path}, with {@code http://} in front when {@code addr} names no scheme; a port
 * left out is the scheme's (80, 443).
 *
 * @param https whether the calls go over TLS ({@code addr = "https://..."})
 * @param host  the host name or address, without brackets
 * @param port  the TCP port
 * @param path  the request path, "/" when empty; the query ({@code ?version=...&op=...}) is added per call
 */
public record PluginEndpoint(boolean https, String host, int port, String path) {

    /**
     * Parses {@code addr} and {@code path}.
     *
     * @throws IllegalArgumentException with what is wrong, for the config error
     */
    public static PluginEndpoint parse(String addr, String path) {
        String url = addr + (path == null ? "" : path);
        if (!url.startsWith("http://") && !url.startsWith("https://")) {
            url = "http://" + url;
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("\"" + addr + (path == null ? "" : path) + "\" is not a URL: "
                    + e.getReason());
        }
        String host = uri.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("\"" + addr + "\" (expected: HOST:PORT, http://HOST:PORT or https://HOST:PORT)");
        }
        if (uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw new IllegalArgumentException("\"" + url + "\" has a query or fragment (the server adds ?version=...&op=...)");
        }
        boolean https = "https".equals(uri.getScheme());
        int port = uri.getPort() == -1 ? (https ? 443 : 80) : uri.getPort();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        String requestPath = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
        return new PluginEndpoint(https, host, port, requestPath);
    }

    /** The {@code Host} header: the host, in brackets when it is an IPv6 address, and a port that is not the scheme's. */
    public String hostHeader() {
        String h = host.indexOf(':') >= 0 ? "[" + host + "]" : host;
        return port == (https ? 443 : 80) ? h : h + ":" + port;
    }

    /** The path and query of a call for {@code op}: {@code path?version=0.1.0&op=OP}, as frp sends it. */
    public String requestTarget(PluginOp op) {
        return path + "?version=" + PluginRequests.API_VERSION + "&op=" + op.wireName();
    }

    @Override
    public String toString() {
        return (https ? "https://" : "http://") + hostHeader() + path;
    }
}

package dev.tunnel.client.config;

/**
 * {@code [proxies.plugin]}: a built-in service the proxy forwards to instead of a local port. One
 * class holds the keys of every plugin type (as {@link ProxyConfig} does for proxy types); the
 * validator refuses a key the chosen type does not read.
 */
public class PluginConfig {
    /**
     * "static_file", "unix_domain_socket", "http_proxy", "socks5", "tls2raw", "http2http",
     * "http2https", "https2http", "https2https".
     */
    public String type;
    /** static_file: directory to serve; must exist. */
    public String localPath;
    /** static_file: URL prefix removed before looking up files; "" serves the directory at "/". */
    public String stripPrefix = "";
    /** static_file, http_proxy: HTTP basic-auth user; "" = no auth. */
    public String httpUser = "";
    /** static_file, http_proxy: HTTP basic-auth password. */
    public String httpPassword = "";
    /** unix_domain_socket: the socket each connection is joined to (e.g. /var/run/docker.sock). */
    public String unixPath;
    /**
     * http_proxy, socks5: the only destinations visitors may reach ({@link DestinationRule}
     * entries: {@code ["127.0.0.1:5432", "192.168.1.0/24"]}). Empty (the default): any address
     * except loopback, link-local, unspecified, multicast and this machine's own (its admin API,
     * its visitors' ports, every local service). A tunnel key: frp's plugins have no such limit.
     */
    public java.util.List<String> allowDestinations = new java.util.ArrayList<>();
    /** socks5: RFC 1929 user; "" with an empty password = no auth. */
    public String username = "";
    /** socks5: RFC 1929 password. */
    public String password = "";
    /** tls2raw, http2http, http2https, https2http, https2https: {@code host:port} of the local app. */
    public String localAddr;
    /**
     * tls2raw, https2http, https2https: PEM certificate presented to visitors; "" with keyPath ""
     * = a self-signed one generated at start.
     */
    public String crtPath = "";
    /** tls2raw, https2http, https2https: PEM private key of crtPath. */
    public String keyPath = "";
    /** http2http, http2https, https2http, https2https: the Host header the local app sees; "" keeps the visitor's. */
    public String hostHeaderRewrite = "";
    /** http2http, http2https, https2http, https2https: {@code requestHeaders.set.NAME = VALUE}. */
    public HeaderOperations requestHeaders = new HeaderOperations();
    /**
     * https2http, https2https: HTTP/2 toward visitors. Only {@code false} (HTTP/1.1, also what an
     * unset key gives) is supported; null when unset.
     */
    public Boolean enableHTTP2;
}

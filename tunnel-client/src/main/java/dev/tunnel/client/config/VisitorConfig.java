package dev.tunnel.client.config;

/**
 * One {@code [[visitors]]} entry: a local port on this machine that reaches another client's
 * {@code stcp} or {@code sudp} proxy through the server, with its secret key.
 */
public class VisitorConfig {
    /** Required, unique among the visitors. */
    public String name;
    /** {@code stcp} or {@code sudp} (the type of the proxy it visits). */
    public String type;
    /** The name of the secret proxy to reach (required). */
    public String serverName;
    /** The user of the client that provides it; "" = this client's own user. */
    public String serverUser = "";
    /** The proxy's secretKey; proven per connection, never sent. */
    public String secretKey = "";
    /** Address the visitor listens on. */
    public String bindAddr = "127.0.0.1";
    /** Port the visitor listens on (1-65535): TCP for stcp, UDP for sudp. */
    public int bindPort;
}

package dev.tunnel.client.config;

/**
 * One {@code [[visitors]]} entry: a local port on this machine that reaches another client's
 * {@code stcp} or {@code sudp} proxy through the server, with its secret key.
 */
public class VisitorConfig {
    /** Required, unique among the visitors. */
    public String name;
    /** false = the visitor is not run (frp's {@code enabled}; its keys are still checked). */
    public boolean enabled = true;
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
    /** {@code [visitors.transport]}: frp's {@code useEncryption} and {@code useCompression}, read as for a proxy. */
    public VisitorTransport transport = new VisitorTransport();

    /** {@code [visitors.transport]}. */
    public static class VisitorTransport {
        /** true needs transport.tls.enable = true: the visitor's streams travel inside the TLS to the server. */
        public boolean useEncryption = false;
        /** Not supported: only false is accepted. */
        public boolean useCompression = false;
    }
}

package dev.tunnel.client.config;

/** {@code [proxies.transport]}: per-proxy transport settings. */
public class ProxyTransport {
    /**
     * tcp, http, https, tcpmux, stcp: "v1" or "v2" to send the local app a HAProxy PROXY protocol
     * header naming the visitor before the connection's bytes; udp: "v2" only, before the first
     * datagram of each peer; not for sudp; "" = none.
     */
    public String proxyProtocolVersion = "";
    /**
     * frp's bandwidth limit for the whole proxy (all its connections together): "500KB", "1MB"
     * (per second; KB = 1024 bytes); "" = none. Enforced by pausing reads, never by dropping.
     */
    public String bandwidthLimit = "";
    /**
     * Where {@link #bandwidthLimit} is enforced: "client" (reads from the local app, the default)
     * or "server" (reads from public connections, on the server).
     */
    public String bandwidthLimitMode = "client";
    /**
     * frp encrypts a proxy's traffic between frpc and frps with this key. Here the tunnel
     * connection is TLS already (every stream inside it), so true is accepted with
     * {@code transport.tls.enable = true} and refused without TLS.
     */
    public boolean useEncryption = false;
    /** frp compresses a proxy's traffic between frpc and frps; not supported: only false is accepted. */
    public boolean useCompression = false;
}

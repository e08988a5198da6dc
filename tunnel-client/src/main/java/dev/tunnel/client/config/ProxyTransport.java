package dev.tunnel.client.config;

/** {@code [proxies.transport]}: per-proxy transport settings. */
public class ProxyTransport {
    /**
     * tcp, http and https: "v1" or "v2" to send the local app a HAProxy PROXY protocol header
     * naming the visitor before the connection's bytes; "" = none.
     */
    public String proxyProtocolVersion = "";
}

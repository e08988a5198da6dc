package dev.tunnel.client.config;

import java.util.ArrayList;
import java.util.List;

/**
 * One {@code [[proxies]]} entry: what the server exposes and the local service or plugin behind it.
 * The fields are frp's keys for every type; which ones a type reads is up to its
 * {@code ClientProxyType} (dev.tunnel.client.proxy), which also checks them.
 */
public class ProxyConfig {
    /** Required, unique within the file. */
    public String name;
    /** A type registered in {@code ClientProxyTypes}: "tcp", "udp", "http", "https", "stcp", "sudp", "tcpmux". */
    public String type = "tcp";
    /** Address of the local service. */
    public String localIP = "127.0.0.1";
    /** Port of the local service (1-65535); 0 = not set, allowed only with a plugin. */
    public int localPort = 0;
    /** tcp, udp: public port on the server; 0 = the server picks one. */
    public int remotePort = 0;
    /** stcp, sudp: the key visitors must prove (never sent by them); required. */
    public String secretKey;
    /** stcp, sudp: users whose visitors may connect; empty = only this client's user, {@code ["*"]} = everyone. */
    public java.util.List<String> allowUsers = new java.util.ArrayList<>();
    /** http, https: domains served, exact or {@code *.example.com}. */
    public List<String> customDomains = new ArrayList<>();
    /** http, https: serve {@code subdomain.subDomainHost} of the server; "" = none. */
    public String subdomain = "";
    /** http: path prefixes served (the longest match wins); empty = every path. */
    public List<String> locations = new ArrayList<>();
    /** http: Basic auth user the server requires; "" = no auth. */
    public String httpUser = "";
    /** http: Basic auth password the server requires. */
    public String httpPassword = "";
    /** http: Host header the local app sees; "" = the visitor's. */
    public String hostHeaderRewrite = "";
    /** http: {@code requestHeaders.set.NAME = VALUE}. */
    public HeaderOperations requestHeaders = new HeaderOperations();
    /** http: {@code responseHeaders.set.NAME = VALUE}. */
    public HeaderOperations responseHeaders = new HeaderOperations();
    /** http: serve only requests whose Basic auth user is this one; "" = any. */
    public String routeByHTTPUser = "";
    /** tcpmux: how the server tells its proxies apart; only "httpconnect" (frp's only one). */
    public String multiplexer = "";
    /** {@code [proxies.transport]}. */
    public ProxyTransport transport = new ProxyTransport();
    /** {@code [proxies.plugin]}: serve from a built-in plugin instead of localIP:localPort; null when absent. */
    public PluginConfig plugin;
}

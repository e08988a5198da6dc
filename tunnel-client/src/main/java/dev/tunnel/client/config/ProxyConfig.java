package dev.tunnel.client.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One {@code [[proxies]]} entry: what the server exposes and the local service or plugin behind it.
 * The fields are frp's keys for every type; which ones a type reads is up to its
 * {@code ClientProxyType} (dev.tunnel.client.proxy), which also checks them.
 */
public class ProxyConfig {
    /** Required, unique within the file. */
    public String name;
    /** false = the proxy is not run (frp's {@code enabled}; its keys are still checked). */
    public boolean enabled = true;
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
    /** {@code [proxies.healthCheck]}: checks of the local app; the proxy is withdrawn while they fail. */
    public HealthCheckConfig healthCheck = new HealthCheckConfig();
    /** {@code [proxies.loadBalancer]}: tcp proxies of one group share a public port. */
    public LoadBalancer loadBalancer = new LoadBalancer();
    /** {@code metadatas.NAME = VALUE}: sent to the server, shown by its /api/proxy (frp's {@code metas}). */
    public Map<String, String> metadatas = new LinkedHashMap<>();
    /** {@code annotations.NAME = VALUE}: sent to the server, shown by its /api/proxy. */
    public Map<String, String> annotations = new LinkedHashMap<>();
    /**
     * Every type: the only visitor addresses the server lets reach this proxy (IPv4/IPv6 addresses
     * or CIDR networks); empty = any. For stcp/sudp the visitor's address is that of the visitor
     * client's connection to the server. Not in frp.
     */
    public List<String> allowIPs = new ArrayList<>();
    /** Every type: visitor addresses or networks the server refuses (before allowIPs). Not in frp. */
    public List<String> denyIPs = new ArrayList<>();
    /** Every type: new connections one visitor address may open per minute; 0 = no limit. Not in frp. */
    public int maxNewConnsPerIPPerMinute = 0;
    /** {@code [proxies.plugin]}: serve from a built-in plugin instead of localIP:localPort; null when absent. */
    public PluginConfig plugin;

    /** Whether any of {@code allowIPs}, {@code denyIPs}, {@code maxNewConnsPerIPPerMinute} is set. */
    public boolean hasVisitorRules() {
        return !allowIPs.isEmpty() || !denyIPs.isEmpty() || maxNewConnsPerIPPerMinute > 0;
    }

    /** {@code [proxies.loadBalancer]}. */
    public static class LoadBalancer {
        /** The group's name; "" = no group. */
        public String group = "";
        /** What every member of the group must present (compared in constant time on the server). */
        public String groupKey = "";
    }
}

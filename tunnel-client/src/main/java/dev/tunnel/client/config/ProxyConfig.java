package dev.tunnel.client.config;

/**
 * One {@code [[proxies]]} entry: what the server exposes and the local service or plugin behind it.
 * The fields are frp's keys for every type; which ones a type reads is up to its
 * {@code ClientProxyType} (dev.tunnel.client.proxy), which also checks them.
 */
public class ProxyConfig {
    /** Required, unique within the file. */
    public String name;
    /** A type registered in {@code ClientProxyTypes} ("tcp"). */
    public String type = "tcp";
    /** Address of the local service. */
    public String localIP = "127.0.0.1";
    /** Port of the local service (1-65535); 0 = not set, allowed only with a plugin. */
    public int localPort = 0;
    /** tcp: public port on the server; 0 = the server picks one. */
    public int remotePort = 0;
    /** {@code [proxies.plugin]}: serve from a built-in plugin instead of localIP:localPort; null when absent. */
    public PluginConfig plugin;
}

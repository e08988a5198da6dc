package dev.tunnel.client.config;

/** TEMPORARY stand-in until the config loader lands (same public fields). */
public class ProxyConfig {
    public String name;
    public String type = "tcp";
    public String localIP = "127.0.0.1";
    public int localPort;
    public int remotePort;
    public PluginConfig plugin;
}

package dev.tunnel.client.config;

/** One {@code [[proxies]]} entry: a public port on the server forwarded to a local service or plugin. */
public class ProxyConfig {
    /** Required, unique within the file. */
    public String name;
    /** {@code tcp}, {@code udp}, or a secret proxy without a public port: {@code stcp}, {@code sudp}. */
    public String type = "tcp";
    /** Address of the local service. */
    public String localIP = "127.0.0.1";
    /** Port of the local service (1-65535); 0 = not set, allowed only with a plugin. */
    public int localPort = 0;
    /** Public port on the server; 0 = the server picks one. */
    public int remotePort = 0;
    /** stcp/sudp: the key visitors must prove (never sent by them); required. */
    public String secretKey;
    /** stcp/sudp: users whose visitors may connect; empty = only this client's user, {@code ["*"]} = everyone. */
    public java.util.List<String> allowUsers = new java.util.ArrayList<>();
    /** {@code [proxies.plugin]}: serve from a built-in plugin instead of localIP:localPort; null when absent. */
    public PluginConfig plugin;
}

package dev.tunnel.client.config;

/** {@code [proxies.plugin]}: a built-in service the proxy forwards to instead of a local port. */
public class PluginConfig {
    /** Only "static_file" for now. */
    public String type;
    /** static_file: directory to serve; must exist. */
    public String localPath;
    /** static_file: URL prefix removed before looking up files; "" serves the directory at "/". */
    public String stripPrefix = "";
    /** static_file: HTTP basic-auth user; "" = no auth. */
    public String httpUser = "";
    /** static_file: HTTP basic-auth password. */
    public String httpPassword = "";
}
